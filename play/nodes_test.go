package play

import (
	"strings"
	"testing"

	"github.com/windowlab/playground/scenario"
)

// On several servers the selected request's explanation starts with the
// node that decided it and what it had not heard of; on one it does not.
func TestExplainSeveralServers(t *testing.T) {
	s := newSession(t, scenario.Scenario{Limit: 2, WindowMs: 1000, Policies: []scenario.PolicySpec{
		{Name: "fixed-window"}, {Name: "fixed-window", Deployment: scenario.Deployment{Nodes: 3}},
	}})
	must(t, "fire", s.Fire(8))
	must(t, "select", s.Select(7))
	lanes := s.View().Selected.Lanes
	const want = "Node 2 never hears of the 4 requests nodes 1 and 3 admitted in the last window (the nodes never sync); one server would have refused it too; across the nodes 6 permits admitted so far, one server 2."
	if got := lanes[1].Steps[0]; got != want {
		t.Errorf("several servers: first step = %q, want %q", got, want)
	}
	view := s.View()
	if !view.Lanes[0].NextKnown || view.Lanes[1].NextKnown {
		t.Errorf("next known = %v on one server, %v on several; want true, false (the next answer depends on the node)",
			view.Lanes[0].NextKnown, view.Lanes[1].NextKnown)
	}
	for _, step := range lanes[0].Steps {
		if step == want || len(step) > 4 && step[:4] == "Node" {
			t.Errorf("one server: a step speaks of nodes: %q", step)
		}
	}
}

// At or after the last request a lane on several servers says that the
// next answer is its node's, not that the clock is before the last request.
func TestStatusOnSeveralServers(t *testing.T) {
	s := newSession(t, scenario.Scenario{Limit: 2, WindowMs: 1000, Policies: []scenario.PolicySpec{
		{Name: "fixed-window"}, {Name: "fixed-window", Deployment: scenario.Deployment{Nodes: 3, SyncMs: 500}},
	}})
	must(t, "fire", s.Fire(4))
	v := s.View()
	for i, want := range []string{"the next request would be", "the next request's answer depends on the server it reaches"} {
		got := v.Lanes[i].Status(v.Clock.Now)
		if !strings.Contains(got, want) || strings.Contains(got, "before the last request") {
			t.Errorf("lane %d after the last request: status = %q, want it to say %q", i, got, want)
		}
	}
}

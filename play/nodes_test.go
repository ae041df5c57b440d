package play

import (
	"strings"
	"testing"

	"github.com/windowlab/playground/explain"
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
	if !view.Lanes[0].NextKnown || !view.Lanes[1].NextKnown || view.Lanes[0].NextNode != 0 || view.Lanes[1].NextNode == 0 {
		t.Errorf("next known = %v, node %d on one server, %v, node %d on several; want true, 0 and true, a node",
			view.Lanes[0].NextKnown, view.Lanes[0].NextNode, view.Lanes[1].NextKnown, view.Lanes[1].NextNode)
	}
	for _, step := range lanes[0].Steps {
		if step == want || len(step) > 4 && step[:4] == "Node" {
			t.Errorf("one server: a step speaks of nodes: %q", step)
		}
	}
}

// At or after the last request a lane on several servers says which node
// the next request reaches and what it would get there, as scenario.WhatIf
// decides it: round-robin (its next in turn), by key (the client's
// server), a central store (the node that asks it) and random (the seeded
// generator's next draw, which is as determined as the rest).
func TestStatusOnSeveralServers(t *testing.T) {
	four := []scenario.Request{{At: 0, Count: 4, Cost: 1}}
	for _, tc := range []struct {
		name   string
		deploy scenario.Deployment
		clock  int64
		want   string // the line's end, where the test can know it
	}{
		{"round-robin, refused", scenario.Deployment{Nodes: 3}, 500, " · the next request reaches node 2 and would be refused, retry after 500 ms"},
		{"round-robin, next window", scenario.Deployment{Nodes: 3}, 1200, " · the next request reaches node 2 and would be admitted"},
		{"key", scenario.Deployment{Nodes: 3, Route: "key"}, 500, " and would be refused, retry after 500 ms"},
		{"central", scenario.Deployment{Nodes: 3, Central: true}, 500, " · the next request reaches node 2 and would be refused, retry after 500 ms"},
		{"random", scenario.Deployment{Nodes: 4, Route: "random", Seed: 7}, 500, " · the next request reaches node 2 and would be admitted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := scenario.Scenario{Limit: 1, WindowMs: 1000, Requests: four,
				Policies: []scenario.PolicySpec{{Name: "fixed-window", Deployment: tc.deploy}}}
			s := newSession(t, sc)
			must(t, "load", s.Load(sc))
			must(t, "jump", s.Jump(tc.clock))
			v := s.View()
			l := v.Lanes[0]
			want, err := scenario.WhatIf(v.Scenario, v.Scenario.Policies[0], scenario.Request{At: tc.clock, Cost: 1})
			if err != nil {
				t.Fatal(err)
			}
			if !l.NextKnown || l.Next != want.Detail || l.NextNode != want.Nodes.Node+1 {
				t.Fatalf("next = %+v (known %v) on node %d, WhatIf: %+v on node %d", l.Next, l.NextKnown, l.NextNode, want.Detail, want.Nodes.Node+1)
			}
			got := l.Status(v.Clock.Now)
			reaches := " · the next request reaches " + explain.NodeName(want.Nodes.Node) + " and "
			if !strings.Contains(got, reaches) || !strings.HasSuffix(got, tc.want) {
				t.Errorf("status = %q, want it to say %q and end %q", got, reaches, tc.want)
			}
			// A room clears NextKnown while a question is open: the line
			// then names no node and no outcome.
			l.NextKnown = false
			if hidden := l.Status(v.Clock.Now); strings.Contains(hidden, "node") || strings.Contains(hidden, "would be") || !strings.Contains(hidden, "depends on the server it reaches") {
				t.Errorf("with NextKnown cleared: status = %q, want no node or outcome", hidden)
			}
		})
	}
}

package room

import (
	"slices"
	"strings"
	"testing"

	"github.com/windowlab/playground/cluster"
	"github.com/windowlab/playground/lessons"
	"github.com/windowlab/playground/scenario"
)

// A room asks "how many of the next 10 get through?" of the several-servers
// preset's lanes, one server beside three: each lane's truth is what its
// servers decide, worked out here on package cluster's servers directly,
// and the lanes on three servers that do not share a store let more
// through than one server does.
func TestCountAcrossThreeServersInARoom(t *testing.T) {
	sc, err := lessons.PresetScenario("several-servers")
	if err != nil {
		t.Fatal(err)
	}
	at := sc.Requests[len(sc.Requests)-1].At + 1 // just after the preset's requests
	q, err := newQuestion(1, Ask{Kind: KindCount, At: at, N: 10}, sc, DefaultBounds(), t0)
	if err != nil {
		t.Fatalf("newQuestion: %v", err)
	}
	sol, err := q.Solve(sc)
	if err != nil {
		t.Fatalf("Solve: %v", err)
	}
	var want []int64
	for _, spec := range sc.Specs() {
		cfg := cluster.Config{Policy: spec.Name, Params: spec.Params(sc), Nodes: max(spec.Nodes, 1), SyncMs: spec.SyncMs, Central: spec.Central}
		var reqs []cluster.Request
		for _, r := range append(slices.Clone(sc.Requests), scenario.Request{At: at, Cost: 1, Count: 10}) {
			for range r.Count {
				reqs = append(reqs, cluster.Request{Key: scenario.KeyOf(r.KeyName()), At: r.At, Cost: r.Cost})
			}
		}
		res, err := cluster.Run(cfg, reqs)
		if err != nil {
			t.Fatal(err)
		}
		n := int64(0)
		for _, d := range res.Decisions[len(reqs)-10:] {
			if d.Policy.Allowed {
				n++
			}
		}
		want = append(want, n)
	}
	if !slices.Equal(sol.Truth, want) {
		t.Errorf("of the next 10 at %s, the lanes let %v through, want %v", scenario.FormatMs(at), sol.Truth, want)
	}
	if len(want) < 3 || want[2] <= want[0] {
		t.Errorf("three servers that never sync let %v of the 10 through: no more than one server does; the preset does not show them apart", want)
	}
}

// A room's question says the servers its lanes run on, worded by the kind
// in package ask: "across 3 servers" when every lane runs on three, "each
// lane's servers" when they differ, and nothing on one server.
func TestRoomQuestionSaysTheServers(t *testing.T) {
	one := scenario.PolicySpec{Name: "fixed-window"}
	three := scenario.PolicySpec{Name: "fixed-window", Deployment: scenario.Deployment{Nodes: 3, SyncMs: 500}}
	central := scenario.PolicySpec{Name: "sliding-log", Deployment: scenario.Deployment{Nodes: 3, Central: true}}
	for _, tt := range []struct {
		name  string
		kind  Kind
		lanes []scenario.PolicySpec
		want  string
	}{
		{"one server", KindCount, []scenario.PolicySpec{one}, "at 2 s: how many get through?"},
		{"three servers", KindCount, []scenario.PolicySpec{three, central}, "at 2 s: how many get through across 3 servers?"},
		{"lanes differ", KindCount, []scenario.PolicySpec{one, three}, "at 2 s: how many get through across each lane's servers?"},
		{"admitted on three", KindAdmit, []scenario.PolicySpec{three}, "at 2 s be admitted on 3 servers?"},
		{"first moment on three", KindFirstAdmit, []scenario.PolicySpec{three}, "gets in on 3 servers?"},
	} {
		sc := scenario.Scenario{Limit: 5, WindowMs: 1000, Policies: tt.lanes, Requests: []scenario.Request{{At: 0, Count: 5, Cost: 1}}}
		n := int64(10)
		if tt.kind != KindCount {
			n = 1
		}
		q, err := newQuestion(1, Ask{Kind: tt.kind, At: 2000, N: n}, sc, DefaultBounds(), t0)
		if err != nil {
			t.Fatalf("%s: newQuestion: %v", tt.name, err)
		}
		k, aq := q.Ask()
		if got := k.Ask(aq); !strings.HasSuffix(got, tt.want) {
			t.Errorf("%s: the question reads %q, want it to end %q", tt.name, got, tt.want)
		}
	}
}

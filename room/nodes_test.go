package room

import (
	"slices"
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
	q, err := newQuestion(1, Ask{Kind: KindCount, At: at, N: 10}, sc, 20, t0)
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

package play

import (
	"encoding/json"
	"testing"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// The form's servers apply to the lane they were shown for, by its index
// before the merge: a lane removed before it does not pass its servers to
// the next, and a new lane runs on one server.
func TestFormMergeSetsEachLanesServers(t *testing.T) {
	three := scenario.Deployment{Nodes: 3, SyncMs: 500}
	current := []scenario.PolicySpec{{Name: policies.FixedWindow}, {Name: policies.SlidingLog}, {Name: policies.GCRA}}
	f := Form{Limit: 5, WindowMs: 1000,
		Checked: []Kind{{Name: policies.SlidingLog}, {Name: policies.GCRA}, {Name: policies.TokenBucket}},
		Servers: map[int]scenario.Deployment{0: {Nodes: 2}, 2: three}}
	got := f.Merge(current)
	want := []scenario.Deployment{{}, three, {}}
	if len(got) != len(want) {
		t.Fatalf("%d lanes, want %d", len(got), len(want))
	}
	for i, p := range got {
		if p.Deployment != want[i] {
			t.Errorf("lane %d (%s): servers %+v, want %+v", i, p.Name, p.Deployment, want[i])
		}
	}
}

// A session's lanes on several servers survive being saved and restored,
// as a store that outlives the process keeps them.
func TestSavedKeepsTheServers(t *testing.T) {
	skew, _ := scenario.SkewsOf(0, 300, -200)
	sc := scenario.Scenario{Limit: 5, WindowMs: 1000, Policies: []scenario.PolicySpec{
		{Name: policies.FixedWindow, Deployment: scenario.Deployment{Nodes: 3, SyncMs: 500, SkewMs: skew}},
		{Name: policies.TokenBucket, Deployment: scenario.Deployment{Nodes: 2, Route: "random", Seed: 9, Central: true}},
	}}
	s := newSession(t, sc)
	must(t, "fire", s.Fire(4))
	data, err := json.Marshal(s.Saved())
	if err != nil {
		t.Fatal(err)
	}
	var sv Saved
	if err := json.Unmarshal(data, &sv); err != nil {
		t.Fatal(err)
	}
	back, err := Restore(sv)
	if err != nil {
		t.Fatalf("restore: %v", err)
	}
	for i, p := range back.Scenario().Specs() {
		if p.Deployment != sc.Policies[i].Deployment {
			t.Errorf("lane %d: restored on %+v, want %+v", i, p.Deployment, sc.Policies[i].Deployment)
		}
	}
	if a, b := s.View().Lanes[0].Admitted, back.View().Lanes[0].Admitted; a != b {
		t.Errorf("restored lane admits %d, the session %d", b, a)
	}
}

package lane

import (
	"testing"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// TestReplayedDrawsThePoliciesDecisions: each lane is the policy's own
// replay at the clock given, under ids of the caller's prefix, and a
// scenario the playground refuses is an error, not an empty picture.
func TestReplayedDrawsThePoliciesDecisions(t *testing.T) {
	sc := scenario.Scenario{Limit: 2, WindowMs: 10_000, Policies: []scenario.PolicySpec{
		{Name: policies.FixedWindow}, {Name: policies.SlidingLog},
	}}
	for _, at := range []int64{8_000, 9_000, 10_000, 11_000} {
		sc.Requests = append(sc.Requests, scenario.Request{At: at, Key: scenario.DefaultKey, Cost: 1, Count: 1})
	}
	res, err := scenario.Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	ins, err := Replayed("pic", sc, 11_000)
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) != 2 {
		t.Fatalf("%d lanes, want 2", len(ins))
	}
	for i, in := range ins {
		if want := "pic-" + itoa(i); in.ID != want {
			t.Errorf("lane %d: id %q, want %q", i, in.ID, want)
		}
		if in.Now != 11_000 {
			t.Errorf("lane %d: clock at %d ms, want 11000", i, in.Now)
		}
		admitted := 0
		for _, m := range in.Marks {
			if m.Allowed {
				admitted++
			}
		}
		if want := int(res.Results[i].Admitted); len(in.Marks) != 4 || admitted != want {
			t.Errorf("lane %d (%s): %d marks, %d admitted, want 4 and %d", i, in.Policy, len(in.Marks), admitted, want)
		}
	}
	if _, err := Replayed("bad", scenario.Scenario{Limit: -1, WindowMs: 10_000}, 0); err == nil {
		t.Error("a scenario with limit -1 was replayed, want an error")
	}
}

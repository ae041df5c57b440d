package exercises

import (
	"slices"
	"strings"
	"testing"

	"github.com/windowlab/playground/scenario"
)

// An exercise names a lane on several servers as "#N", the scenario's own
// lane: its question is then asked of that lane with its servers, and its
// answer is what the lane itself admits when the scenario runs.
func TestPolicyNamesTheScenariosOwnLane(t *testing.T) {
	set := load(t)
	for _, id := range []string{"several-local-count", "several-sync-late", "several-central-count"} {
		e := set.Get(id)
		if e == nil {
			t.Fatalf("no exercise %s", id)
		}
		for _, seed := range []uint64{0, 3, 7} {
			in := e.Instance(seed)
			q := in.Asked()
			if len(q.Lanes) != 1 || !q.Lanes[0].Spec.Several() {
				t.Fatalf("%s seed %d: lanes %+v, want the scenario's lane on several servers", id, seed, q.Lanes)
			}
			sol, err := in.Solve()
			if err != nil {
				t.Fatal(err)
			}
			res, err := scenario.Run(in.Scenario)
			if err != nil {
				t.Fatal(err)
			}
			if want := res.Results[0].Admitted; sol.Count != want {
				t.Errorf("%s seed %d: answer %d, but the lane admits %d when the scenario runs", id, seed, sol.Count, want)
			}
		}
	}
	const file = `{"title": "x", "question": "q", "scenario": {"limit": 5, "windowMs": 1000, "policies": [{"name": "fixed-window", "nodes": 3}], "requests": [{"at": 0}]}, "ask": "count", "policy": "#2", "vary": {"limit": [2, 9]}}`
	if _, err := Parse([]byte(file), "x.json", loadCatalog(t)); err == nil || !strings.Contains(err.Error(), `policy: "#2": the scenario's lanes are #1 (fixed-window on 3 servers, no sync)`) {
		t.Errorf("a lane the scenario does not have: err = %v, want it to name policy and the lanes there are", err)
	}
}

// A drawn window scales a lane's sync interval and its clocks' offsets
// with every other instant, and refuses a draw that would put one between
// two milliseconds.
func TestRescaledScalesSyncsAndSkews(t *testing.T) {
	s, err := scenario.Parse([]byte(`{"limit": 5, "windowMs": 1000, "policies": [{"name": "fixed-window", "nodes": 2, "syncMs": 100, "skewMs": [-300, 300]}], "requests": [{"at": 0, "count": 5}]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := Instance{Scenario: s, At: 800}
	got, ok := in.rescaled(1500)
	if !ok {
		t.Fatal("rescaled to 1.5 s: refused")
	}
	p := got.Scenario.Policies[0]
	if p.SyncMs != 150 || !slices.Equal(p.SkewMs.Ms(), []int64{-450, 450}) || got.At != 1200 {
		t.Errorf("rescaled to 1.5 s: syncMs %d, skewMs %v, at %d; want 150, [-450 450], 1200", p.SyncMs, p.SkewMs.Ms(), got.At)
	}
	if s.Policies[0].SyncMs != 100 || s.Policies[0].SkewMs.Ms()[0] != -300 {
		t.Error("rescaled changed the exercise as written")
	}
	if _, ok := in.rescaled(1001); ok {
		t.Error("rescaled to 1.001 s: accepted a sync interval of 100.1 ms")
	}
	fine := in.scaled(1000).Scenario.Policies[0]
	if fine.SyncMs != 100_000 || !slices.Equal(fine.SkewMs.Ms(), []int64{-300_000, 300_000}) {
		t.Errorf("scaled to microseconds: syncMs %d, skewMs %v", fine.SyncMs, fine.SkewMs.Ms())
	}
}

package cluster

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/windowlab/playground/policies"
)

func TestSweep(t *testing.T) {
	base := Config{Policy: policies.FixedWindow, Params: policies.Params{Limit: 5, WindowMs: 1000}}
	points, err := Sweep(base, burst(0, 15), nil, []int64{0, 500})
	if err != nil {
		t.Fatal(err)
	}
	// Fifteen at one instant: every node admits min(its share, 5) before
	// any sync can tell it of the others.
	want := []Point{
		{Nodes: 2, SyncMs: 0, Admitted: 10, Single: 5, OverAdmission: 5},
		{Nodes: 2, SyncMs: 500, Admitted: 10, Single: 5, OverAdmission: 5},
		{Nodes: 4, SyncMs: 0, Admitted: 15, Single: 5, OverAdmission: 10},
		{Nodes: 4, SyncMs: 500, Admitted: 15, Single: 5, OverAdmission: 10},
		{Nodes: 8, SyncMs: 0, Admitted: 15, Single: 5, OverAdmission: 10},
		{Nodes: 8, SyncMs: 500, Admitted: 15, Single: 5, OverAdmission: 10},
	}
	if fmt.Sprint(points) != fmt.Sprint(want) {
		t.Errorf("Sweep = %v\nwant    %v", points, want)
	}
	for _, tt := range []struct {
		cfg   Config
		syncs []int64
		want  string
	}{
		{Config{Policy: policies.FixedWindow, Params: base.Params, Central: true}, []int64{0}, "central"},
		{base, make([]int64, 100), "over 256 runs"},
		{Config{Policy: policies.FixedWindow, Params: base.Params, SkewMs: []int64{0, 0, 300}}, []int64{0}, "skewMs has 3 entries for 2 nodes"},
	} {
		if _, err := Sweep(tt.cfg, nil, nil, tt.syncs); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Sweep(%+v, %d intervals) = %v, want an error containing %q", tt.cfg, len(tt.syncs), err, tt.want)
		}
	}
}

// TestPropertySweepMonotone checks where over-admission must grow (see the
// package documentation for why), with requests of cost 1 and aligned
// clocks: for fixed-window along syncMs = s, 2s, 4s, 8s, 16s and never,
// each interval's syncs being a subset of the one before; and, never
// syncing with round-robin, along N = 2, 4, 8 for fixed-window,
// sliding-log, token-bucket and gcra.
func TestPropertySweepMonotone(t *testing.T) {
	r := rand.New(rand.NewPCG(propertySeed, 4))
	grew := 0
	for scenario := range 150 {
		p := randomParams(r, policies.FixedWindow)
		reqs := traffic(r, p, 120, true)
		s := 1 + r.Int64N(p.WindowMs/4+1)
		syncs := []int64{s, 2 * s, 4 * s, 8 * s, 16 * s, 0}
		base := randomConfig(r, policies.FixedWindow, p)
		points, err := Sweep(base, reqs, nil, syncs)
		if err != nil {
			t.Fatal(err)
		}
		where := fmt.Sprintf("seed %d: scenario %d %+v route %s", propertySeed, scenario, p, base.Route)
		for i := 1; i < len(points); i++ {
			a, b := points[i-1], points[i]
			if a.Nodes == b.Nodes && b.OverAdmission < a.OverAdmission {
				t.Fatalf("%s: N %d: over-admission %d at syncMs %d, down from %d at syncMs %d", where, a.Nodes, b.OverAdmission, b.SyncMs, a.OverAdmission, a.SyncMs)
			}
			if a.Nodes == b.Nodes && b.OverAdmission > a.OverAdmission {
				grew++
			}
		}
	}
	if grew < 100 {
		t.Errorf("over-admission grew with syncMs only %d times, want the scenarios to exercise it at least 100", grew)
	}
	for _, name := range []string{policies.FixedWindow, policies.SlidingLog, policies.TokenBucket, policies.GCRA} {
		grew := 0
		for scenario := range 100 {
			p := randomParams(r, name)
			reqs := traffic(r, p, 120, true)
			local, err := Sweep(Config{Policy: name, Params: p}, reqs, nil, []int64{0})
			if err != nil {
				t.Fatal(err)
			}
			for i := 1; i < len(local); i++ {
				a, b := local[i-1], local[i]
				if b.OverAdmission < a.OverAdmission {
					t.Fatalf("seed %d: %s scenario %d %+v: never syncing, over-admission %d with %d nodes, down from %d with %d",
						propertySeed, name, scenario, p, b.OverAdmission, b.Nodes, a.OverAdmission, a.Nodes)
				}
				if b.OverAdmission > a.OverAdmission {
					grew++
				}
			}
		}
		if grew < 20 {
			t.Errorf("%s: over-admission grew with N only %d times, want at least 20", name, grew)
		}
	}
}

// TestTokenBucketNotMonotone is why the syncMs test is fixed-window's only:
// a token bucket hearing late of a request charges it in full at its
// latest instant, the upper bound, so a coarser sync can admit less. Limit
// 2 per 100 ms, two nodes: syncing every 10 ms, node 1 hears of node 0's
// request at 0 before its own at 10 and refills it in order; every 20 ms,
// it hears of it after, charges it at 10 unrefilled, and refuses at 50 what
// one server admits.
func TestTokenBucketNotMonotone(t *testing.T) {
	reqs := []Request{{At: 0, Cost: 1}, {At: 10, Cost: 1}, {At: 40, Cost: 1}, {At: 50, Cost: 1}}
	base := Config{Policy: policies.TokenBucket, Params: policies.Params{Limit: 2, WindowMs: 100}}
	points, err := Sweep(base, reqs, []int{2}, []int64{10, 20})
	if err != nil {
		t.Fatal(err)
	}
	if points[0].OverAdmission != 0 || points[1].OverAdmission != -1 {
		t.Errorf("over-admission at syncMs 10, 20 = %d, %d; want 0, -1", points[0].OverAdmission, points[1].OverAdmission)
	}
}

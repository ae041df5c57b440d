package policies

import (
	"slices"
	"testing"
)

func init() {
	var domain []Params
	for limit := int64(1); limit <= 4; limit++ {
		for _, w := range []int64{1, 3, 4} {
			domain = append(domain, Params{Limit: limit, WindowMs: w})
		}
	}
	registerCase(FixedWindow, policyCase{
		ruleDomain: domain, absorbsExactly: true,
		checkRule: func(t *testing.T, label string, p Params) int {
			return checkRuleCopies(t, label, p, flatCase(NewFixedWindowRule))
		},
	})
}

func TestFixedWindow(t *testing.T) {
	tests := []struct {
		name  string
		p     Params
		steps []step
	}{
		{
			// Epoch alignment: a request at 990 ms with a 100 ms window has ten
			// milliseconds before its budget resets, not a hundred.
			name: "epoch alignment",
			p:    Params{Limit: 1, WindowMs: 100},
			steps: []step{
				{at: 990, allowed: true, estimate: Whole(0)},
				{at: 995, allowed: false, retry: 5, estimate: Whole(1)},
				{at: 999, allowed: false, retry: 1},
				{at: 1000, allowed: true, estimate: Whole(0)},
			},
		},
		{
			name: "ties pass, one more waits for the edge",
			p:    Params{Limit: 5, WindowMs: 1000},
			steps: []step{
				{at: 100, cost: 3, allowed: true},
				{at: 200, cost: 2, allowed: true, estimate: Whole(3)},
				{at: 300, cost: 1, allowed: false, retry: 700, estimate: Whole(5)},
			},
		},
		{
			name: "cost above limit is never admitted and does not wedge the key",
			p:    Params{Limit: 5, WindowMs: 1000},
			steps: []step{
				{at: 0, cost: 6, never: true},
				{at: 1, cost: 5, allowed: true, estimate: Whole(0)},
				{at: 2, cost: 6, never: true},
			},
		},
		{
			name: "late request is decided at the latest instant",
			p:    Params{Limit: 2, WindowMs: 100},
			steps: []step{
				{at: 150, allowed: true},
				{at: 50, allowed: true, late: true, estimate: Whole(1)},
				// Counted in window [100, 200); retry from now=60 runs to 200.
				{at: 60, allowed: false, late: true, retry: 140},
				{at: 200, allowed: true, estimate: Whole(0)},
			},
		},
		{
			name: "keys are separate",
			p:    Params{Limit: 1, WindowMs: 100},
			steps: []step{
				{at: 0, key: 1, allowed: true},
				{at: 0, key: 2, allowed: true},
				{at: 1, key: 1, allowed: false, retry: 99},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run(t, mustNew(t, FixedWindow, tt.p), tt.steps)
		})
	}
}

func TestFixedWindowSnapshotAndStats(t *testing.T) {
	pol := mustNew(t, FixedWindow, Params{Limit: 5, WindowMs: 100})
	pol.Decide(1, 120, 2)
	pol.Decide(2, 130, 1)
	got := pol.Snapshot(1, 150)
	want := State{Estimate: Whole(2), Capacity: 5, Held: FixedWindowHeld{WindowStart: 100, Count: 2}}
	if !snapshotEqual(got, want) {
		t.Errorf("Snapshot(1, 150) = %+v, want %+v", got, want)
	}
	if got := pol.Snapshot(1, 200).Held.(FixedWindowHeld); got.Count != 0 || got.WindowStart != 200 {
		t.Errorf("Snapshot(1, 200) = %+v, want count 0 in window 200", got)
	}
	if got, want := stateStats(pol), (Stats{Keys: 2, Entries: 4, BytesPerKey: 16}); got != want {
		t.Errorf("Stats() = %+v, want %+v", got, want)
	}
}

func snapshotEqual(a, b State) bool {
	return sameFraction(a.Estimate, b.Estimate) && a.Capacity == b.Capacity && heldEqual(a.Held, b.Held)
}

// heldEqual compares two policies' own parts of a State, an empty log or
// ring equal to a nil one.
func heldEqual(a, b Held) bool {
	switch a := a.(type) {
	case SlidingLogHeld:
		b, ok := b.(SlidingLogHeld)
		return ok && slices.Equal(a.Log, b.Log)
	case SlidingBucketsHeld:
		b, ok := b.(SlidingBucketsHeld)
		return ok && slices.Equal(a.Slots, b.Slots)
	}
	return a == b
}

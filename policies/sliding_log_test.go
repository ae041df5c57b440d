package policies

import (
	"slices"
	"testing"
	"unsafe"
)

func init() {
	var domain []Params
	for limit := int64(1); limit <= 3; limit++ {
		for _, w := range []int64{2, 3} {
			if limit*w <= 6 { // limit 3 over 3 ms alone reaches 4,015 states
				domain = append(domain, Params{Limit: limit, WindowMs: w})
			}
		}
	}
	registerCase(SlidingLog, policyCase{
		ruleDomain: domain, absorbsExactly: true,
		checkRule: func(t *testing.T, label string, p Params) int {
			n := p.Limit
			ring := func(s slidingLogState) []int64 { return unsafe.Slice(s.ring, n) }
			return checkRuleCopies(t, label, p, ruleCase[slidingLogState, *SlidingLogRule]{
				build: NewSlidingLogRule,
				copy: func(s slidingLogState) slidingLogState {
					s.ring = &slices.Clone(ring(s))[0]
					return s
				},
				view: func(s slidingLogState) any { return logView{s.latest, s.head, s.count, ringView(ring(s))} },
				ring: ring,
			})
		},
	})
}

func TestSlidingLog(t *testing.T) {
	tests := []struct {
		name  string
		p     Params
		steps []step
	}{
		{
			// The window is (now-windowMs, now]; an entry exactly
			// windowMs old has left.
			name: "half-open window edge",
			p:    Params{Limit: 2, WindowMs: 100},
			steps: []step{
				{at: 0, allowed: true},
				{at: 40, allowed: true, estimate: Whole(1)},
				{at: 99, allowed: false, retry: 1, estimate: Whole(2)},
				{at: 100, allowed: true, estimate: Whole(1)},
				{at: 101, allowed: false, retry: 39},
				{at: 140, allowed: true, estimate: Whole(1)},
			},
		},
		{
			name: "cost n takes n slots stamped alike, leaving together",
			p:    Params{Limit: 4, WindowMs: 100},
			steps: []step{
				{at: 10, cost: 3, allowed: true},
				{at: 20, cost: 1, allowed: true, estimate: Whole(3)},
				// Room for 2 needs the 2nd oldest (stamped 10) gone: 110.
				{at: 50, cost: 2, allowed: false, retry: 60, estimate: Whole(4)},
				// Room for 4 needs the 4th oldest (stamped 20) gone: 120.
				{at: 50, cost: 4, allowed: false, retry: 70},
				{at: 110, cost: 3, allowed: true, estimate: Whole(1)},
			},
		},
		{
			name: "cost above limit never, and a tie passes",
			p:    Params{Limit: 3, WindowMs: 100},
			steps: []step{
				{at: 0, cost: 4, never: true},
				{at: 0, cost: 1, allowed: true},
				{at: 0, cost: 2, allowed: true, estimate: Whole(1)},
				{at: 0, cost: 4, never: true},
			},
		},
		{
			name: "late request is decided and stamped at the latest instant",
			p:    Params{Limit: 2, WindowMs: 100},
			steps: []step{
				{at: 500, allowed: true},
				{at: 300, allowed: true, late: true},
				// Both stamped 500, so both leave at 600: from now=350, 250.
				{at: 350, allowed: false, late: true, retry: 250},
				{at: 600, allowed: true, estimate: Whole(0)},
			},
		},
		{
			name: "idle longer than the window drops every entry",
			p:    Params{Limit: 3, WindowMs: 100},
			steps: []step{
				{at: 0, cost: 3, allowed: true},
				{at: 10_000, cost: 3, allowed: true, estimate: Whole(0)},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run(t, mustNew(t, SlidingLog, tt.p), tt.steps)
		})
	}
}

func TestSlidingLogSnapshotAndStats(t *testing.T) {
	pol := mustNew(t, SlidingLog, Params{Limit: 4, WindowMs: 100})
	// Wrap the ring: entries 0, 10, 20, 30, then 100 and 110 replace 0, 10.
	for _, at := range []int64{0, 10, 20, 30, 100, 110} {
		pol.Decide(1, at, 1)
	}
	if got, want := pol.Snapshot(1, 115).Held.(SlidingLogHeld).Log, []int64{20, 30, 100, 110}; !slices.Equal(got, want) {
		t.Errorf("Snapshot(1, 115).Log = %v, want %v", got, want)
	}
	if got, want := pol.Snapshot(1, 125).Held.(SlidingLogHeld).Log, []int64{30, 100, 110}; !slices.Equal(got, want) {
		t.Errorf("Snapshot(1, 125).Log = %v, want %v", got, want)
	}
	if got := pol.Peek(1, 125); got != Whole(3) {
		t.Errorf("Peek(1, 125) = %v, want 3", got)
	}
	d := pol.Decide(1, 115, 1)
	if d.Allowed || d.Terms.SlidingLog().OldestMs != 20 || d.Terms.SlidingLog().Count != 4 || d.RetryAfterMs != 5 {
		t.Errorf("Decide(1, 115, 1) = %+v, want refused, oldest 20, count 4, retry 5", d)
	}
	if got := pol.Snapshot(9, 0); len(got.Held.(SlidingLogHeld).Log) != 0 || got.Estimate != Whole(0) {
		t.Errorf("Snapshot of an unseen key = %+v, want an empty log", got)
	}
	pol.Decide(2, 0, 1)
	if got, want := stateStats(pol), (Stats{Keys: 2, Entries: 8, BytesPerKey: 4*8 + 24}); got != want {
		t.Errorf("Stats() = %+v, want %+v", got, want)
	}
}

package policies

import "testing"

func init() {
	var domain []Params
	for limit := int64(1); limit <= 4; limit++ {
		for _, w := range []int64{1, 3, 4} {
			domain = append(domain, Params{Limit: limit, WindowMs: w, Arithmetic: Floor}, Params{Limit: limit, WindowMs: w, Arithmetic: Exact})
		}
	}
	registerCase(SlidingCounter, policyCase{
		ruleDomain: domain, absorbsExactly: true,
		checkRule: func(t *testing.T, label string, p Params) int {
			return checkRuleCopies(t, label, p, flatCase(NewSlidingCounterRule))
		},
	})
}

func TestSlidingCounter(t *testing.T) {
	floor := func(limit, window int64) Params { return Params{Limit: limit, WindowMs: window, Arithmetic: Floor} }
	exact := func(limit, window int64) Params { return Params{Limit: limit, WindowMs: window, Arithmetic: Exact} }
	// fillPrevious is the lesson's "previous window that accepted 5".
	fillPrevious := step{at: 0, cost: 5, allowed: true}
	tests := []struct {
		name  string
		p     Params
		steps []step
	}{
		{
			// The sliding-counter lesson's "Try it" 1 and 2: 4.5 + 1 > 5, first acceptable at 36 s.
			name: "exact: 33 s refused, 36 s admitted",
			p:    exact(5, 30000),
			steps: []step{fillPrevious,
				{at: 33000, allowed: false, retry: 3000, estimate: frac(9, 2)},
				{at: 35999, allowed: false, retry: 1},
				{at: 36000, allowed: true, estimate: frac(4, 1)},
			},
		},
		{
			// The floor rule: floor(4.5) = 4 and 4 + 1 <= 5.
			name: "floor: 33 s admitted",
			p:    floor(5, 30000),
			steps: []step{fillPrevious,
				{at: 33000, allowed: true, estimate: Whole(4)},
			},
		},
		{
			// The floor rule: floor(5*29999/30000) = 4, so one ms into the window.
			name: "floor: first acceptable at 30.001 s",
			p:    floor(5, 30000),
			steps: []step{fillPrevious,
				{at: 30000, allowed: false, retry: 1, estimate: Whole(5)},
				{at: 30001, allowed: true, estimate: Whole(4)},
			},
		},
		{
			// The floor rule, limit 5 one ms into the window: exact 4.995, floor 4.
			name: "exact: 4.995 one ms in",
			p:    exact(5, 1000),
			steps: []step{fillPrevious,
				{at: 1001, allowed: false, retry: 199, estimate: frac(4995, 1000)},
				{at: 1200, allowed: true, estimate: Whole(4)},
			},
		},
		{
			name: "floor: 4 one ms in",
			p:    floor(5, 1000),
			steps: []step{fillPrevious,
				{at: 1001, allowed: true, estimate: Whole(4)},
			},
		},
		{
			// The car park's weighted table (lessons/03-sliding-counter.md): 35 s rejected, 40 s accepted, 40 s again
			// rejected.
			name: "exact: the lesson's weighted table",
			p:    exact(5, 30000),
			steps: []step{fillPrevious,
				{at: 35000, allowed: false, retry: 1000, estimate: frac(25, 6)},
				{at: 40000, allowed: true, estimate: frac(10, 3)},
				// 5*(30000-e) + 2*30000 <= 150000 from e = 12000: 42 s.
				{at: 40000, allowed: false, retry: 2000, estimate: frac(13, 3)},
			},
		},
		{
			// The current window alone is at the limit: wait past the edge,
			// plus what the decayed carry needs.
			name: "exact: full current window waits into the next",
			p:    exact(5, 1000),
			steps: []step{
				{at: 100, cost: 5, allowed: true},
				// Next window: 5*(1000-e) + 1000 <= 5000 from e = 200.
				{at: 200, allowed: false, retry: 1000},
				{at: 1199, allowed: false, retry: 1},
				{at: 1200, allowed: true},
			},
		},
		{
			name: "floor: full current window waits to the edge plus 1 ms",
			p:    floor(5, 1000),
			steps: []step{
				{at: 100, cost: 5, allowed: true},
				{at: 200, allowed: false, retry: 801},
				{at: 1000, allowed: false, retry: 1},
				{at: 1001, allowed: true, estimate: Whole(4)},
			},
		},
		{
			// With a 1 ms window nothing in the next window admits: the wait
			// runs to the window after, where both counts are cleared.
			name: "exact: retry in the window after next",
			p:    exact(1, 1),
			steps: []step{
				{at: 0, allowed: true},
				{at: 0, allowed: false, retry: 2},
				{at: 1, allowed: false, retry: 1},
				{at: 2, allowed: true, estimate: frac(0, 1)},
			},
		},
		{
			name: "floor: retry in the window after next",
			p:    floor(1, 1),
			steps: []step{
				{at: 0, allowed: true},
				{at: 0, allowed: false, retry: 2},
				{at: 2, allowed: true},
			},
		},
		{
			name: "a gap of two windows clears both counts",
			p:    exact(2, 100),
			steps: []step{
				{at: 50, cost: 2, allowed: true},
				// Window 200 follows window 0 by two: nothing carries.
				{at: 250, cost: 2, allowed: true, estimate: Whole(0)},
				// One window on, the 2 at 250 carry: 2*50/100 = 1.
				{at: 350, allowed: true, estimate: frac(2*50, 100)},
			},
		},
		{
			name: "one window later the current count becomes previous",
			p:    floor(4, 100),
			steps: []step{
				{at: 99, cost: 4, allowed: true},
				{at: 175, allowed: true, estimate: Whole(1)}, // 4*25/100 = 1
				{at: 175, cost: 2, allowed: true, estimate: Whole(2)},
				// floor(4*(100-e)/100) = 0 from e = 76: one ms later.
				{at: 175, allowed: false, retry: 1, estimate: Whole(4)},
				{at: 176, allowed: true, estimate: Whole(3)},
			},
		},
		{
			name: "ties pass and cost above limit is never admitted",
			p:    floor(3, 100),
			steps: []step{
				{at: 0, cost: 4, never: true},
				{at: 0, cost: 3, allowed: true},
				{at: 10, cost: 4, never: true},
			},
		},
		{
			name: "late request is decided at the latest instant",
			p:    exact(2, 100),
			steps: []step{
				{at: 150, allowed: true},
				{at: 50, allowed: true, late: true, estimate: Whole(1)},
				// Next window: 2*(100-e) + 100 <= 200 from e = 50, at 250.
				{at: 60, allowed: false, late: true, retry: 190},
				{at: 249, allowed: false, retry: 1},
				{at: 250, allowed: true},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run(t, mustNew(t, SlidingCounter, tt.p), tt.steps)
		})
	}
}

// TestSlidingCounterArithmeticsDiverge pins both directions on one stream:
// from the same state floor never refuses what exact admits (its carried
// part is never larger), but once floor has admitted a request exact
// refused, its own count is higher and it refuses one exact admits.
func TestSlidingCounterArithmeticsDiverge(t *testing.T) {
	p := Params{Limit: 5, WindowMs: 30000}
	p.Arithmetic = Floor
	fl := mustNew(t, SlidingCounter, p)
	p.Arithmetic = Exact
	ex := mustNew(t, SlidingCounter, p)
	tests := []struct {
		at               int64
		floorOK, exactOK bool
	}{
		{0, true, true}, {0, true, true}, {0, true, true}, {0, true, true}, {0, true, true},
		{33000, true, false},
		{36000, false, true},
	}
	for i, tt := range tests {
		if got := fl.Decide(1, tt.at, 1).Allowed; got != tt.floorOK {
			t.Errorf("step %d: floor allowed = %v, want %v", i, got, tt.floorOK)
		}
		if got := ex.Decide(1, tt.at, 1).Allowed; got != tt.exactOK {
			t.Errorf("step %d: exact allowed = %v, want %v", i, got, tt.exactOK)
		}
	}
}

func TestSlidingCounterTermsAndSnapshot(t *testing.T) {
	pol := mustNew(t, SlidingCounter, Params{Limit: 5, WindowMs: 30000, Arithmetic: Exact})
	pol.Decide(1, 0, 5)
	d := pol.Decide(1, 33000, 1)
	want := SlidingCounterTerms{WindowStart: 30000, Elapsed: 3000, Previous: 5, Current: 0, Carried: frac(5*27000, 30000)}
	if got := d.Terms.SlidingCounter(); got != want {
		t.Errorf("Decide(1, 33000, 1).Terms = %+v, want %+v", got, want)
	}
	if got := d.Terms.FixedWindow(); got != (FixedWindowTerms{}) {
		t.Errorf("read as fixed-window's, the terms = %+v, want zero", got)
	}
	if got := d.Estimate; got != frac(135000, 30000) {
		t.Errorf("estimate = %v, want the unreduced 135000/30000", got)
	}
	s := pol.Snapshot(1, 40000)
	if h := s.Held.(SlidingCounterHeld); h.Previous != 5 || h.Current != 0 || h.WindowStart != 30000 || s.Estimate != frac(100000, 30000) {
		t.Errorf("Snapshot(1, 40000) = %+v", s)
	}
	if got, want := stateStats(pol), (Stats{Keys: 1, Entries: 3, BytesPerKey: 24}); got != want {
		t.Errorf("Stats() = %+v, want %+v", got, want)
	}
}

// counterStep is one request in TestSlidingCounterAllowRemembersRefusals:
// the verdict Decide must give it, and whether the Allow side also sends it
// through Decide (so that Decide solves the refusal Allow then reuses).
type counterStep struct {
	key       Key
	at, cost  int64
	viaDecide bool
	allowed   bool
	retry     int64
}

// TestSlidingCounterAllowRemembersRefusals aims at Allow's shortcut, which
// answers a refusal like the one before without the window arithmetic:
// each case is traffic on which a shortcut taken one condition too early
// (another window, other counts, another cost, a late instant, one ms past
// the refusal) would decide or store differently. Every step must get
// Decide's verdict, pinned here, and leave every key's state, latest
// instant included, as Decide leaves it.
func TestSlidingCounterAllowRemembersRefusals(t *testing.T) {
	floor := Params{Limit: 5, WindowMs: 1000, Arithmetic: Floor}
	tests := []struct {
		name  string
		p     Params
		steps []counterStep
	}{
		{
			// 5 carried, 1 current: floor(5*(1000-e)/1000) + 2 <= 5 from e = 201.
			name: "refused up to the first admitting instant, admitted at it",
			p:    floor,
			steps: []counterStep{
				{key: 1, at: 0, cost: 5, allowed: true},
				{key: 1, at: 1000, retry: 1},
				{key: 1, at: 1001, allowed: true},
				{key: 1, at: 1002, retry: 199},
				{key: 1, at: 1100, retry: 101},
				{key: 1, at: 1200, retry: 1},
				{key: 1, at: 1201, allowed: true},
			},
		},
		{
			// Key 2 is refused until the window's end with counts (0, 2);
			// key 1 holds (0, 2) from the window before, which here are
			// (2, 0), and passes.
			name: "the same counts in the window before are other counts",
			p:    Params{Limit: 2, WindowMs: 1000, Arithmetic: Floor},
			steps: []counterStep{
				{key: 1, at: 0, cost: 2, allowed: true},
				{key: 2, at: 1000, cost: 2, allowed: true},
				{key: 2, at: 1001, retry: 1000},
				{key: 1, at: 1002, allowed: true},
				{key: 2, at: 1999, retry: 2},
				{key: 2, at: 2000, retry: 1},
				{key: 2, at: 2001, allowed: true},
			},
		},
		{
			name: "the same counts with another cost",
			p:    floor,
			steps: []counterStep{
				{key: 1, at: 0, cost: 3, allowed: true},
				{key: 1, at: 1, cost: 3, retry: 1000},
				{key: 1, at: 2, cost: 2, allowed: true},
			},
		},
		{
			// Key 2 is refused with (5, 1); key 1 holds (0, 1).
			name: "another previous count",
			p:    floor,
			steps: []counterStep{
				{key: 2, at: 0, cost: 5, allowed: true},
				{key: 1, at: 1000, allowed: true},
				{key: 2, at: 1001, allowed: true},
				{key: 2, at: 1002, retry: 199},
				{key: 1, at: 1003, allowed: true},
			},
		},
		{
			// Key 2 is refused with (5, 1); key 1 holds (5, 0).
			name: "another current count",
			p:    floor,
			steps: []counterStep{
				{key: 1, at: 0, cost: 5, allowed: true},
				{key: 2, at: 0, cost: 5, allowed: true},
				{key: 1, at: 1000, retry: 1},
				{key: 2, at: 1001, allowed: true},
				{key: 2, at: 1002, retry: 199},
				{key: 1, at: 1003, allowed: true},
			},
		},
		{
			// Decided at the latest instant, 1100, which stays the latest.
			name: "a late request keeps the latest instant",
			p:    floor,
			steps: []counterStep{
				{key: 1, at: 0, cost: 5, allowed: true},
				{key: 1, at: 1001, allowed: true},
				{key: 1, at: 1100, retry: 101},
				{key: 1, at: 1050, retry: 151},
				{key: 1, at: 1000, retry: 201},
			},
		},
		{
			name: "a refusal Decide solved answers Allow",
			p:    floor,
			steps: []counterStep{
				{key: 1, at: 0, cost: 5, allowed: true},
				{key: 1, at: 1001, allowed: true},
				{key: 1, at: 1002, viaDecide: true, retry: 199},
				{key: 1, at: 1100, retry: 101},
				{key: 1, at: 1201, allowed: true},
			},
		},
		{
			// MaxTime's window ends 896 ms after it: a now past MaxTime is
			// decided at MaxTime and counted from there, never answered
			// by the refusal at MaxTime-3 as an instant in its window.
			name: "past MaxTime, the clamped instant",
			p:    Params{Limit: 1, WindowMs: 1000, Arithmetic: Floor},
			steps: []counterStep{
				{key: 1, at: MaxTime - 4, allowed: true},
				{key: 1, at: MaxTime - 3, retry: 900},
				{key: 1, at: MaxTime + 10, retry: 897},
				{key: 1, at: MaxTime, retry: 897},
			},
		},
		{
			// 5*(1000-e) + 1000 <= 5000 from e = 200: ties pass.
			name: "exact: refused up to the tie, admitted at it",
			p:    Params{Limit: 5, WindowMs: 1000, Arithmetic: Exact},
			steps: []counterStep{
				{key: 1, at: 0, cost: 5, allowed: true},
				{key: 1, at: 1000, retry: 200},
				{key: 1, at: 1199, retry: 1},
				{key: 1, at: 1200, allowed: true},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runAllowBesideDecide(t, tt.p, tt.steps)
		})
	}
}

// runAllowBesideDecide feeds steps to two sliding counters, one through
// Decide and one through Allow, and checks each verdict and every key's
// state after each step.
func runAllowBesideDecide(t *testing.T, p Params, steps []counterStep) {
	t.Helper()
	decided := mustNew(t, SlidingCounter, p).(*slidingCounterPolicy)
	allowed := mustNew(t, SlidingCounter, p).(*slidingCounterPolicy)
	// Allow's shortcut is taken only for a key in its home slot. The
	// table's random multiplier could put keys 1 and 2 in one home slot, and
	// the second would never meet the shortcut; this one puts them in
	// slots 1 and 2 of the table's 8.
	allowed.keys.seed = 1<<61 + 1
	for i, s := range steps {
		cost := max(s.cost, 1)
		d := decided.Decide(s.key, s.at, cost)
		if d.Allowed != s.allowed || (!d.Allowed && d.RetryAfterMs != s.retry) {
			t.Fatalf("step %d: Decide(%d, %d, %d) = allowed %v, retry %d; want allowed %v, retry %d",
				i, s.key, s.at, cost, d.Allowed, d.RetryAfterMs, s.allowed, s.retry)
		}
		var got Verdict
		if s.viaDecide {
			got = allowed.Decide(s.key, s.at, cost).Verdict()
		} else {
			got = allowed.Allow(s.key, s.at, cost)
		}
		if want := d.Verdict(); got != want {
			t.Fatalf("step %d: Allow(%d, %d, %d) = %+v, want Decide's %+v", i, s.key, s.at, cost, got, want)
		}
		for k := range Key(3) {
			if got, want := allowed.keys.get(k), decided.keys.get(k); got != want {
				t.Fatalf("step %d: key %d after Allow = %+v, after Decide = %+v", i, k, got, want)
			}
		}
	}
}

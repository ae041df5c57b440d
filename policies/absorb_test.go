package policies

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// absorbStep is one call on key 1: an Absorb when absorb is set, else a
// Decide checked like step (allowed, late, retry, estimate).
type absorbStep struct {
	absorb   bool
	at, cost int64 // cost 0 means 1
	allowed  bool
	late     bool
	retry    int64    // checked when refused and non-zero
	estimate Fraction // checked when Den != 0
}

func runAbsorb(t *testing.T, pol Policy, steps []absorbStep) {
	t.Helper()
	a, ok := pol.(Absorber)
	if !ok {
		t.Fatalf("%s is not an Absorber", pol.Name())
	}
	for i, s := range steps {
		cost := s.cost
		if cost == 0 {
			cost = 1
		}
		if s.absorb {
			a.Absorb(1, s.at, cost)
			continue
		}
		d := pol.Decide(1, s.at, cost)
		call := fmt.Sprintf("step %d: %s.Decide(1, %d, %d)", i, pol.Name(), s.at, cost)
		if d.Allowed != s.allowed {
			t.Errorf("%s: allowed = %v, want %v (estimate %v)", call, d.Allowed, s.allowed, d.Estimate)
		}
		if d.Late != s.late {
			t.Errorf("%s: late = %v, want %v", call, d.Late, s.late)
		}
		if !d.Allowed && s.retry != 0 && d.RetryAfterMs != s.retry {
			t.Errorf("%s: retryAfterMs = %d, want %d", call, d.RetryAfterMs, s.retry)
		}
		if s.estimate.Den != 0 && !sameFraction(d.Estimate, s.estimate) {
			t.Errorf("%s: estimate = %v, want %v", call, d.Estimate, s.estimate)
		}
	}
}

func TestAbsorb(t *testing.T) {
	const W = 1000
	tests := []struct {
		name   string
		policy string
		p      Params
		steps  []absorbStep
	}{
		{
			name: "fixed-window: an absorbed request counts in its window", policy: FixedWindow,
			p: Params{Limit: 5, WindowMs: W},
			steps: []absorbStep{
				{absorb: true, at: 100, cost: 4},
				{at: 200, allowed: true, estimate: Whole(4)},
				{at: 300, retry: 700, estimate: Whole(5)},
			},
		},
		{
			// The example on one node: it admitted 5 and hears of
			// the other two nodes' 5 each.
			name: "fixed-window: past the limit it refuses until the edge", policy: FixedWindow,
			p: Params{Limit: 5, WindowMs: W},
			steps: []absorbStep{
				{at: 0, cost: 5, allowed: true},
				{absorb: true, at: 0, cost: 5},
				{absorb: true, at: 0, cost: 5},
				{at: 10, retry: 990, estimate: Whole(15)},
				{at: 1000, allowed: true, estimate: Whole(0)},
			},
		},
		{
			name: "fixed-window: a late report in the key's window counts", policy: FixedWindow,
			p: Params{Limit: 5, WindowMs: W},
			steps: []absorbStep{
				{at: 900, allowed: true},
				{absorb: true, at: 100, cost: 4},
				{at: 950, retry: 50, estimate: Whole(5)},
			},
		},
		{
			name: "fixed-window: a late report from an earlier window is dropped", policy: FixedWindow,
			p: Params{Limit: 5, WindowMs: W},
			steps: []absorbStep{
				{at: 1100, allowed: true, estimate: Whole(0)},
				{absorb: true, at: 900, cost: 5},
				{at: 1200, allowed: true, estimate: Whole(1)},
			},
		},
		{
			name: "fixed-window: a report ahead of the key moves it there", policy: FixedWindow,
			p: Params{Limit: 5, WindowMs: W},
			steps: []absorbStep{
				{at: 100, cost: 5, allowed: true},
				{absorb: true, at: 1500, cost: 1},
				{at: 1200, allowed: true, late: true, estimate: Whole(1)},
			},
		},
		{
			name: "fixed-window: a cost no node could admit is ignored", policy: FixedWindow,
			p: Params{Limit: 5, WindowMs: W},
			steps: []absorbStep{
				{absorb: true, at: 0, cost: 6},
				{absorb: true, at: 0, cost: -1},
				{at: 0, allowed: true, estimate: Whole(0)},
			},
		},
		{
			name: "sliding-log: absorbed stamps leave a window after their instant", policy: SlidingLog,
			p: Params{Limit: 3, WindowMs: W},
			steps: []absorbStep{
				{absorb: true, at: 100, cost: 2},
				{at: 200, allowed: true, estimate: Whole(2)},
				{at: 300, retry: 800, estimate: Whole(3)},
				{at: 1100, allowed: true, estimate: Whole(1)},
			},
		},
		{
			name: "sliding-log: a late report is merged in order", policy: SlidingLog,
			p: Params{Limit: 3, WindowMs: W},
			steps: []absorbStep{
				{at: 500, allowed: true},
				{at: 600, allowed: true},
				{absorb: true, at: 550},
				{at: 700, retry: 800, estimate: Whole(3)},
				// (550, 1550] holds 600 only: 550 left with 500.
				{at: 1550, allowed: true, estimate: Whole(1)},
			},
		},
		{
			// Six inside the window, a ring of three: the three newest
			// decide, and the wait is for the fourth oldest, as with six.
			name: "sliding-log: more than limit inside keeps the newest, deciding exactly", policy: SlidingLog,
			p: Params{Limit: 3, WindowMs: W},
			steps: []absorbStep{
				{absorb: true, at: 10, cost: 3},
				{absorb: true, at: 0, cost: 3},
				{at: 20, retry: 990, estimate: Whole(3)},
				{at: 1000, retry: 10, estimate: Whole(3)},
				{at: 1010, allowed: true, estimate: Whole(0)},
			},
		},
		{
			name: "sliding-log: a stamp already outside the window is dropped", policy: SlidingLog,
			p: Params{Limit: 3, WindowMs: W},
			steps: []absorbStep{
				{at: 2000, allowed: true},
				{absorb: true, at: 1000, cost: 3},
				{at: 2001, allowed: true, estimate: Whole(1)},
				{absorb: true, at: 0, cost: 4}, // above limit: ignored
				{at: 2002, allowed: true, estimate: Whole(2)},
			},
		},
		{
			name: "sliding-counter: a late report into the previous window weighs as it", policy: SlidingCounter,
			p: Params{Limit: 10, WindowMs: W},
			steps: []absorbStep{
				{at: 1100, allowed: true, estimate: Whole(0)},
				{absorb: true, at: 900, cost: 10},
				// carried 10 × 500/1000 = 5, current 1.
				{at: 1500, allowed: true, estimate: Whole(6)},
			},
		},
		{
			name: "sliding-counter: two windows back is dropped", policy: SlidingCounter,
			p: Params{Limit: 10, WindowMs: W},
			steps: []absorbStep{
				{at: 2100, allowed: true, estimate: Whole(0)},
				{absorb: true, at: 900, cost: 10},
				{at: 2200, allowed: true, estimate: Whole(1)},
			},
		},
		{
			name: "sliding-counter: a report ahead shifts the windows", policy: SlidingCounter,
			p: Params{Limit: 10, WindowMs: W},
			steps: []absorbStep{
				{at: 100, cost: 5, allowed: true},
				{absorb: true, at: 1200, cost: 2},
				// Decided at 1200: carried 5 × 800/1000 = 4, current 2.
				{at: 1100, allowed: true, late: true, estimate: Whole(6)},
			},
		},
		{
			name: "sliding-counter exact: current past the limit refuses", policy: SlidingCounter,
			p: Params{Limit: 4, WindowMs: W, Arithmetic: Exact},
			steps: []absorbStep{
				{absorb: true, at: 0, cost: 4},
				{absorb: true, at: 10, cost: 4},
				// The next window carries 8 × (1000-e)/1000, under 3 from e = 625.
				{at: 20, retry: 1605, estimate: Whole(8)},
			},
		},
		{
			name: "sliding-buckets: an absorbed request counts in its bucket", policy: SlidingBuckets,
			p: Params{Limit: 4, WindowMs: W, Buckets: 4},
			steps: []absorbStep{
				{absorb: true, at: 100, cost: 3},
				{at: 200, allowed: true, estimate: Whole(3)},
				{at: 240, estimate: Whole(4)},
			},
		},
		{
			// Bucket 0 is the oldest slot when bucket 4 is the newest.
			name: "sliding-buckets: a late report into the oldest slot weighs as it", policy: SlidingBuckets,
			p: Params{Limit: 4, WindowMs: W, Buckets: 4},
			steps: []absorbStep{
				{at: 1125, allowed: true, estimate: Whole(0)},
				{absorb: true, at: 100, cost: 4},
				// rest 1, oldest 4 × 50/250.
				{at: 1200, allowed: true, estimate: frac(9, 5)},
			},
		},
		{
			name: "sliding-buckets: a bucket that left the ring is dropped", policy: SlidingBuckets,
			p: Params{Limit: 4, WindowMs: W, Buckets: 4},
			steps: []absorbStep{
				{at: 1300, allowed: true},
				{absorb: true, at: 100, cost: 4},
				{at: 1310, allowed: true, estimate: Whole(1)},
			},
		},
		{
			name: "token-bucket: absorbed permits take tokens", policy: TokenBucket,
			p: Params{Limit: 10, WindowMs: W},
			steps: []absorbStep{
				{absorb: true, at: 0, cost: 10},
				{at: 0, retry: 100, estimate: Whole(10)},
			},
		},
		{
			name: "token-bucket: below empty waits for the refill", policy: TokenBucket,
			p: Params{Limit: 10, WindowMs: W},
			steps: []absorbStep{
				{absorb: true, at: 0, cost: 10},
				{absorb: true, at: 0, cost: 10},
				{at: 0, retry: 1100, estimate: Whole(20)},
				{at: 1100, allowed: true, estimate: Whole(9)},
			},
		},
		{
			name: "token-bucket: a late report is charged at the latest instant", policy: TokenBucket,
			p: Params{Limit: 10, WindowMs: W},
			steps: []absorbStep{
				{at: 1000, allowed: true},
				{absorb: true, at: 500, cost: 5},
				{at: 1000, allowed: true, estimate: Whole(6)},
			},
		},
		{
			name: "gcra: absorbed permits move the TAT", policy: GCRA,
			p: Params{Limit: 10, WindowMs: W},
			steps: []absorbStep{
				{absorb: true, at: 0, cost: 10},
				{at: 0, retry: 100, estimate: Whole(10)},
			},
		},
		{
			name: "gcra: a late report adds its cost to a TAT ahead of it", policy: GCRA,
			p: Params{Limit: 10, WindowMs: W},
			steps: []absorbStep{
				{at: 1000, allowed: true},
				{absorb: true, at: 500, cost: 5},
				{at: 1000, allowed: true, estimate: Whole(6)},
				{absorb: true, at: 5000, cost: 11}, // above burst: ignored
				{at: 5000, allowed: true, estimate: Whole(0)},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runAbsorb(t, mustNew(t, tt.policy, tt.p), tt.steps)
		})
	}
}

// TestPropertyAbsorbIsForcedAdmission: at or after the key's latest
// instant, Absorb changes the state exactly as a Decide that admits the same
// request does: the two copies then describe every instant alike and decide
// the next request alike.
func TestPropertyAbsorbIsForcedAdmission(t *testing.T) {
	r := rand.New(rand.NewPCG(propertySeed, 19))
	for _, name := range Names {
		checked := 0
		for scenario := range 100 {
			p := randomParams(r, name)
			pol := mustNew(t, name, p)
			latest := map[Key]int64{}
			for i, q := range traffic(r, p, 60, true) {
				if q.at >= latest[q.key] {
					decided := cloneOf(t, pol)
					if decided.Decide(q.key, q.at, q.cost).Allowed {
						absorbed := cloneOf(t, pol)
						absorbed.(Absorber).Absorb(q.key, q.at, q.cost)
						where := fmt.Sprintf("seed %d: %s %+v scenario %d step %d: Absorb(%d, %d, %d)",
							propertySeed, name, p, scenario, i, q.key, q.at, q.cost)
						sameFuture(t, where, decided, absorbed, q.key, q.at)
						checked++
					}
				}
				pol.Decide(q.key, q.at, q.cost)
				latest[q.key] = max(latest[q.key], q.at)
			}
		}
		if checked < 1000 {
			t.Errorf("%s: only %d admissions compared, want at least 1000", name, checked)
		}
	}
}

// sameFuture fails unless a and b describe key alike from at to two windows
// later and decide the next request alike.
func sameFuture(t *testing.T, where string, a, b Policy, key Key, at int64) {
	t.Helper()
	w := a.Params().WindowMs
	for _, now := range []int64{at, at + w/3, at + w, at + 2*w} {
		if sa, sb := a.Snapshot(key, now), b.Snapshot(key, now); !reflect.DeepEqual(sa, sb) {
			t.Fatalf("%s: snapshot at %d = %+v, want %+v as after the admitting Decide", where, now, sb, sa)
		}
	}
	if da, db := a.Decide(key, at+1, 1), b.Decide(key, at+1, 1); da != db {
		t.Fatalf("%s: next Decide = %+v, want %+v as after the admitting Decide", where, db, da)
	}
}

// TestPropertySlidingLogAbsorbExact holds the capped ring to a log that
// keeps every timestamp: interleaving decisions and absorbed requests (many
// of them late, many past the limit), both admit alike and give the same
// wait.
func TestPropertySlidingLogAbsorbExact(t *testing.T) {
	r := rand.New(rand.NewPCG(propertySeed, 20))
	for scenario := range 200 {
		p := randomParams(r, SlidingLog)
		pol := mustNew(t, SlidingLog, p)
		var log []int64 // every stamp, sorted
		var latest int64
		for i, q := range traffic(r, p, 80, true) {
			if q.cost > p.Limit {
				continue
			}
			if r.IntN(2) == 0 {
				pol.(Absorber).Absorb(q.key*0, q.at, q.cost) // one key: the model keeps one log
				latest = max(latest, q.at)
				if q.at > latest-p.WindowMs {
					for range q.cost {
						log = append(log, q.at)
					}
					slices.Sort(log)
				}
				continue
			}
			d := pol.Decide(0, q.at, q.cost)
			at := max(q.at, latest)
			latest = at
			inside := log[len(log)-countAfter(log, at-p.WindowMs):]
			want := int64(len(inside))+q.cost <= p.Limit
			where := fmt.Sprintf("seed %d: %+v scenario %d step %d: Decide(0, %d, %d)", propertySeed, p, scenario, i, q.at, q.cost)
			if d.Allowed != want {
				t.Fatalf("%s: allowed = %v, want %v (%d inside the window)", where, d.Allowed, want, len(inside))
			}
			if want {
				for range q.cost {
					log = append(log, at)
				}
				continue
			}
			leaving := inside[int64(len(inside))+q.cost-p.Limit-1]
			if retry := leaving + p.WindowMs - q.at; d.RetryAfterMs != retry {
				t.Fatalf("%s: retryAfterMs = %d, want %d", where, d.RetryAfterMs, retry)
			}
		}
	}
}

// countAfter is how many of the sorted stamps are after t.
func countAfter(sorted []int64, t int64) int {
	i, _ := slices.BinarySearch(sorted, t+1)
	return len(sorted) - i
}

// TestPropertyAbsorbOrder: reports that arrive out of order leave the
// policies that keep the instants apart exactly where reports in order
// would (policyCase.absorbsExactly), and the others at least as full (they
// charge a late report at the latest instant), so a late sync never lets
// more through than a prompt one.
func TestPropertyAbsorbOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(propertySeed, 21))
	for _, name := range Names {
		for scenario := range 150 {
			p := randomParams(r, name)
			reqs := traffic(r, p, 40, true)
			late, inOrder := mustNew(t, name, p), mustNew(t, name, p)
			for _, q := range reqs {
				late.(Absorber).Absorb(q.key, q.at, q.cost)
			}
			sorted := slices.Clone(reqs)
			slices.SortStableFunc(sorted, func(a, b request) int { return int(a.at - b.at) })
			var end int64
			for _, q := range sorted {
				inOrder.(Absorber).Absorb(q.key, q.at, q.cost)
				end = q.at
			}
			for key := range Key(3) {
				for _, now := range []int64{end, end + p.WindowMs/2, end + p.WindowMs} {
					a, b := late.Peek(key, now), inOrder.Peek(key, now)
					where := fmt.Sprintf("seed %d: %s %+v scenario %d: key %d at %d: estimate out of order %v, in order %v",
						propertySeed, name, p, scenario, key, now, a, b)
					if !caseOf(t, name).absorbsExactly {
						if a.Num*b.Den < b.Num*a.Den {
							t.Fatalf("%s: want at least the in-order estimate", where)
						}
					} else if !reflect.DeepEqual(late.Snapshot(key, now), inOrder.Snapshot(key, now)) {
						t.Fatalf("%s: snapshots differ, want equal", where)
					}
				}
			}
		}
	}
}

// TestAbsorbSaturates: absorbing far more than any limit at the largest
// parameters leaves every policy refusing, with a positive wait, and no
// arithmetic overflowing into an admission.
func TestAbsorbSaturates(t *testing.T) {
	for _, name := range Names {
		p := Params{Limit: MaxLimit, WindowMs: MaxWindowMs}
		info, _ := Lookup(name)
		for _, o := range info.Options {
			if o.Name == BucketsOptionName {
				o.Set(&p, o.Max) // the most buckets each policy's k allows
			}
		}
		pol := mustNew(t, name, p)
		for i := range int64(50) {
			pol.(Absorber).Absorb(7, MaxTime-10+i%10, MaxLimit)
		}
		for _, now := range []int64{MaxTime - 5, MaxTime - 1} { // MaxTime starts a window
			if d := pol.Decide(7, now, 1); d.Allowed || d.RetryAfterMs < 1 {
				t.Errorf("%s: Decide(7, %d, 1) after saturating = allowed %v, retryAfterMs %d; want refused with a wait",
					name, now, d.Allowed, d.RetryAfterMs)
			}
		}
	}
}

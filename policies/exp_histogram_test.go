package policies

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

func init() {
	var domain []Params
	for limit := int64(1); limit <= 3; limit++ {
		for _, w := range []int64{1, 3} {
			for _, k := range []int64{2, 3} {
				domain = append(domain, Params{Limit: limit, WindowMs: w, Buckets: k})
			}
		}
	}
	registerCase(ExpHistogram, policyCase{
		ruleDomain: domain,
		checkRule: func(t *testing.T, label string, p Params) int {
			r, err := NewExpHistogramRule(p)
			if err != nil {
				t.Fatal(err)
			}
			n := r.RingLen()
			ring := func(s expHistogramState) []int64 { return unsafe.Slice(s.ring, n) }
			return checkRuleCopies(t, label, p, ruleCase[expHistogramState, *ExpHistogramRule]{
				build: NewExpHistogramRule,
				copy: func(s expHistogramState) expHistogramState {
					s.ring = &slices.Clone(ring(s))[0]
					return s
				},
				view: func(s expHistogramState) any { return histView{s.latest, histRingView(ring(s))} },
				ring: ring,
			})
		},
	})
}

// histView is an exp-histogram state, comparable with ==: the domain's
// rings hold at most 21 slots.
type histView struct {
	latest int64
	ring   [21]int64
}

func histRingView(ring []int64) (v [21]int64) {
	if copy(v[:], ring) != len(ring) {
		panic(fmt.Sprintf("a ring of %d is beyond the test's domain", len(ring)))
	}
	return v
}

func TestExpHistogram(t *testing.T) {
	tests := []struct {
		name  string
		p     Params
		steps []step
	}{
		{
			// k = 2, limit 6, a 10 s look-back: ones arrive; the third of a
			// size merges the two oldest.
			name: "buckets merge in pairs and the oldest counts half",
			p:    Params{Limit: 6, WindowMs: 10_000, Buckets: 2},
			steps: []step{
				{at: 0, allowed: true, estimate: Whole(0)},    // [1@0]
				{at: 1000, allowed: true, estimate: Whole(1)}, // [1@0 1@1000]
				// a third 1 merges the oldest two into 2@1000: [2@1000 1@2000]
				{at: 2000, allowed: true, estimate: Whole(2)},
				// estimate: 1 in full + 2 at half = 2; now [2@1000 1@2000 1@3000]
				{at: 3000, allowed: true, estimate: Whole(2)},
				// 1 + 1 + 2/2 = 3; a fourth 1 merges: [2@1000 2@3000 1@4000]
				{at: 4000, allowed: true, estimate: Whole(3)},
				// 1 + 2 + 2/2 = 4, and cost 2 fits the limit of 6. Its two
				// ones at 5000 make L0 [1@4000 1@5000 1@5000]: 4000 and
				// 5000 merge into 2@5000, which makes L1 three, so 2@1000
				// and 2@3000 merge into 4@3000: [4@3000 2@5000 1@5000].
				{at: 5000, cost: 2, allowed: true, estimate: Whole(4)},
				// 1 + 2 + 4/2 = 5 (the truth is 7, within 7/2); cost 3
				// fits once 4@3000 leaves at 13000: 1 + 2/2 = 2.
				{at: 6000, cost: 3, allowed: false, retry: 7000, estimate: Whole(5)},
			},
		},
		{
			name: "a bucket leaves whole when its newest permit leaves",
			p:    Params{Limit: 2, WindowMs: 1000, Buckets: 2},
			steps: []step{
				{at: 0, cost: 2, allowed: true, estimate: Whole(0)},
				{at: 500, allowed: false, retry: 500, estimate: Whole(2)},
				{at: 999, allowed: false, retry: 1, estimate: Whole(2)},
				{at: 1000, cost: 2, allowed: true, estimate: Whole(0)},
			},
		},
		{
			name: "cost above the limit is never admitted and does not wedge the key",
			p:    Params{Limit: 2, WindowMs: 1000, Buckets: 2},
			steps: []step{
				{at: 0, cost: 3, never: true},
				{at: 1, cost: 2, allowed: true, estimate: Whole(0)},
			},
		},
		{
			name: "late request is decided at the latest instant",
			p:    Params{Limit: 1, WindowMs: 1000, Buckets: 2},
			steps: []step{
				{at: 500, allowed: true},
				{at: 100, allowed: false, late: true, retry: 1400, estimate: Whole(1)},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { run(t, mustNew(t, ExpHistogram, tt.p), tt.steps) })
	}
}

// histTraffic is one seeded scenario for the property tests: requests of
// one key in time order (late ones aside), in one of several shapes,
// adversarial ones among them.
func histTraffic(rng *rand.Rand, p Params) []request {
	n := 20 + rng.IntN(120)
	w := p.WindowMs
	var out []request
	at := int64(0)
	shape := rng.IntN(6)
	for i := range n {
		cost := int64(1)
		if rng.IntN(4) == 0 {
			cost = 1 + rng.Int64N(max(1, p.Limit/2))
		}
		switch shape {
		case 0: // uniform gaps
			at += rng.Int64N(max(1, 2*w/p.Limit+1))
		case 1: // front-loaded: bursts at the start of each window
			if i%(int(p.Limit)+1) == 0 {
				at = (at/w + 1) * w
			}
		case 2: // end-loaded: bursts on the last millisecond of windows
			if i%(int(p.Limit)+1) == 0 {
				at = (at/w+1)*w + w - 1
			}
		case 3: // bursts either side of an edge
			at = (int64(i/4) + 1) * w
			if i%2 == 0 {
				at--
			}
		case 4: // a trickle, then a flood, then idle
			if i == n/2 {
				at += 3 * w
			}
			at += rng.Int64N(3)
		default: // retry as told, more or less
			at += rng.Int64N(w/4 + 1)
		}
		out = append(out, request{key: 1, at: at, cost: cost})
	}
	if rng.IntN(3) == 0 { // a few late requests
		for range 3 {
			i := rng.IntN(len(out))
			out[i].at = max(0, out[i].at-rng.Int64N(w))
		}
	}
	return out
}

// TestExpHistogramErrorBound holds the guarantee the rule's doc states:
// at every decision the estimate E is within T/k of T, the permits the
// histogram admitted in the look-back, counted exactly as a sliding log
// would; and the histogram holds at most k buckets of each size, sizes
// powers of two, never shrinking from newest to oldest. Over 10,000
// seeded scenarios of every shape histTraffic draws.
func TestExpHistogramErrorBound(t *testing.T) {
	scenarios := 10_000
	if testing.Short() {
		scenarios = 1_000
	}
	for seed := range scenarios {
		rng := rand.New(rand.NewPCG(uint64(seed), 33))
		p := Params{Limit: 1 + rng.Int64N(200), WindowMs: []int64{1, 10, 1000, 30_000}[rng.IntN(4)], Buckets: 2 + rng.Int64N(7)}
		r, err := NewExpHistogramRule(p)
		if err != nil {
			t.Fatal(err)
		}
		st := r.Fresh(make([]int64, r.RingLen()))
		var admitted []request // every permit the histogram let in, by instant
		for i, q := range histTraffic(rng, p) {
			d := r.Decide(&st, q.at, q.cost)
			truth := int64(0)
			for _, a := range admitted {
				if a.at > d.At-p.WindowMs {
					truth += a.cost
				}
			}
			est := d.Estimate.Num / d.Estimate.Den
			if diff := est - truth; p.Buckets*max(diff, -diff) > truth {
				t.Fatalf("seed %d %+v, step %d (%d, cost %d): estimate %d, true count %d: off by more than 1/%d",
					seed, p, i, q.at, q.cost, est, truth, p.Buckets)
			}
			if d.Allowed {
				admitted = append(admitted, request{at: d.At, cost: q.cost})
			}
			checkHistogramShape(t, r, r.ring(&st), fmt.Sprintf("seed %d %+v, step %d", seed, p, i))
		}
	}
}

// checkHistogramShape fails unless every level i holds at most k buckets of
// size 2^i, stamps never decreasing from the oldest bucket to the newest.
func checkHistogramShape(t *testing.T, r *ExpHistogramRule, ring []int64, label string) {
	t.Helper()
	prev := int64(-1)
	for i := r.levels - 1; i >= 0; i-- {
		n, pairs := r.level(ring, i)
		if n > r.k {
			t.Fatalf("%s: level %d holds %d buckets, more than k = %d", label, i, n, r.k)
		}
		for j := range n {
			at, size := pairs[2*j], pairs[2*j+1]
			if size != 1<<i {
				t.Fatalf("%s: level %d holds a bucket of %d", label, i, size)
			}
			if at < prev {
				t.Fatalf("%s: a bucket stamped %d is newer than the next older one (%d)", label, at, prev)
			}
			prev = at
		}
	}
}

// TestExpHistogramRetryAfter: after every refusal in the seeded scenarios,
// a request of the same cost waiting exactly RetryAfterMs is admitted and
// one waiting a millisecond less is not (the estimate falls only when a
// bucket leaves, so the retry is exact).
func TestExpHistogramRetryAfter(t *testing.T) {
	for seed := range 2_000 {
		rng := rand.New(rand.NewPCG(uint64(seed), 34))
		p := Params{Limit: 1 + rng.Int64N(50), WindowMs: []int64{10, 1000}[rng.IntN(2)], Buckets: 2 + rng.Int64N(4)}
		r, err := NewExpHistogramRule(p)
		if err != nil {
			t.Fatal(err)
		}
		st := r.Fresh(make([]int64, r.RingLen()))
		for i, q := range histTraffic(rng, p) {
			d := r.Decide(&st, q.at, q.cost)
			if d.Allowed || d.Never {
				continue
			}
			then := q.at + d.RetryAfterMs
			try := func(at int64) bool {
				c := r.Clone(&st, make([]int64, r.RingLen()))
				return r.Decide(&c, at, q.cost).Allowed
			}
			if !try(then) {
				t.Fatalf("seed %d %+v, step %d: refused at %d with retry %d, and refused again at %d", seed, p, i, q.at, d.RetryAfterMs, then)
			}
			if then-1 >= d.At && try(then-1) {
				t.Fatalf("seed %d %+v, step %d: refused at %d with retry %d, but admitted a millisecond earlier", seed, p, i, q.at, d.RetryAfterMs)
			}
		}
	}
}

// A key's memory is k buckets per size up to twice the limit: it grows with
// the log of the limit, where the sliding log's grows with the limit.
func TestExpHistogramMemoryGrowsWithTheLogOfTheLimit(t *testing.T) {
	for _, tt := range []struct {
		limit, k, ring int64
	}{
		{5, 2, 4 * 5},            // sizes 1, 2, 4, 8: (1 + 2·2) words each
		{1 << 20, 2, 22 * 5},     // sizes up to 2^21
		{1000, 8, 11 * (1 + 16)}, // sizes up to 2^10
	} {
		r, err := NewExpHistogramRule(Params{Limit: tt.limit, WindowMs: 1000, Buckets: tt.k})
		if err != nil {
			t.Fatal(err)
		}
		if got := r.RingLen(); got != tt.ring {
			t.Errorf("limit %d, k %d: %d words per key, want %d", tt.limit, tt.k, got, tt.ring)
		}
	}
}

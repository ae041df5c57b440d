package policies

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

func init() {
	var domain []Params
	for limit := int64(1); limit <= 3; limit++ {
		for _, kw := range [][2]int64{{1, 3}, {2, 4}, {3, 3}} {
			domain = append(domain, Params{Limit: limit, WindowMs: kw[1], Buckets: kw[0]})
		}
	}
	registerCase(SlidingBuckets, policyCase{
		ruleDomain: domain, absorbsExactly: true,
		checkRule: func(t *testing.T, label string, p Params) int {
			n := p.Buckets + 1
			ring := func(s slidingBucketsState) []int64 { return unsafe.Slice(s.ring, n) }
			return checkRuleCopies(t, label, p, ruleCase[slidingBucketsState, *SlidingBucketsRule]{
				build: NewSlidingBucketsRule,
				copy: func(s slidingBucketsState) slidingBucketsState {
					s.ring = &slices.Clone(ring(s))[0]
					return s
				},
				view: func(s slidingBucketsState) any { return bucketsView{s.newest, s.total, ringView(ring(s))} },
				ring: ring,
			})
		},
	})
}

// seedRing builds the seed's SlidingCounter::new(nSlots, bucketNs) as
// sliding-buckets: k = nSlots-1 buckets of bucketNs, so windowMs =
// (nSlots-1)*bucketNs. The seed's ns are this package's ms.
func seedRing(t *testing.T, nSlots, bucket, limit int64) *bucketsPolicy {
	t.Helper()
	return mustNew(t, SlidingBuckets, Params{Limit: limit, WindowMs: (nSlots - 1) * bucket, Buckets: nSlots - 1}).(*bucketsPolicy)
}

// bucketsPolicy is the policy New builds for sliding-buckets.
type bucketsPolicy = slidingBucketsPolicy

// record is the rule's record (the seed's raw add) on key's state.
func record(pol *bucketsPolicy, key Key, at, count int64) {
	pol.r.record(pol.add(key), at, count)
}

// TestSlidingBucketsSeedAsserts is the seed's main(), assert by assert: add
// is record (no limit), estimate is Peek, allow is Decide with cost 1.
func TestSlidingBucketsSeedAsserts(t *testing.T) {
	const key = 1
	estimate := func(t *testing.T, c *bucketsPolicy, at int64, want Fraction) {
		t.Helper()
		if got := c.Peek(key, at); !sameFraction(got, want) {
			t.Errorf("estimate(%d) = %v, want %v", at, got, want)
		}
	}

	t.Run("exact weighting", func(t *testing.T) {
		// 4 buckets of 10, 8 events in each.
		c := seedRing(t, 4, 10, 1000)
		for _, at := range []int64{5, 15, 25, 35} {
			record(c, key, at, 8)
		}
		estimate(t, c, 35, frac(24*2+8, 2)) // oldest bucket half expired: 24 + 8*0.5
		estimate(t, c, 40, Whole(24))       // bucket 0 gone, bucket 1 fully in
		estimate(t, c, 1000, Whole(0))      // idle longer than the window
	})

	t.Run("two buckets are previous plus current", func(t *testing.T) {
		// Limit 10 per 1000.
		l := seedRing(t, 2, 1000, 10)
		run(t, l, []step{
			{at: 999, allowed: true}, {at: 999, allowed: true}, {at: 999, allowed: true},
			{at: 999, allowed: true}, {at: 999, allowed: true}, {at: 999, allowed: true},
			{at: 999, allowed: true}, {at: 999, allowed: true}, {at: 999, allowed: true},
			{at: 999, allowed: true},
			{at: 1000, allowed: false},                    // a fixed window would reset here and admit 10 more
			{at: 1500, allowed: true, estimate: Whole(5)}, // previous bucket weighs 0.5
			{at: 1500, allowed: true}, {at: 1500, allowed: true}, {at: 1500, allowed: true},
			{at: 1500, allowed: true},
			{at: 1500, allowed: false},
		})
	})

	t.Run("late event goes to its own bucket, too old is dropped", func(t *testing.T) {
		c := seedRing(t, 3, 10, 1000)
		record(c, key, 25, 1)
		record(c, key, 15, 1)
		record(c, key, 5, 1) // bucket 0 is still in the ring
		estimate(t, c, 25, frac(2*2+1, 2))
		record(c, key, 35, 1)
		record(c, key, 5, 1)               // bucket 0 is gone: dropped
		estimate(t, c, 35, frac(2*2+1, 2)) // buckets 3, 2 + half of 1
	})
}

func TestSlidingBuckets(t *testing.T) {
	tests := []struct {
		name  string
		p     Params
		steps []step
	}{
		{
			// k = 3, b = 10: the oldest bucket's weight falls by a tenth a ms.
			name: "retry walks the buckets",
			p:    Params{Limit: 4, WindowMs: 30, Buckets: 3},
			steps: []step{
				{at: 0, cost: 2, allowed: true},
				{at: 15, cost: 2, allowed: true, estimate: Whole(2)},
				// At 31 (bucket 3, elapsed 1): oldest bucket 0 = 2 weighs
				// 9/10, rest = 2: 2*9/10 + 2 + 1 > 4. Bucket 3 admits once
				// 2*(10-e) <= (4-2-1)*10, e >= 5: at 35.
				{at: 31, allowed: false, retry: 4, estimate: frac(2*10+2*9, 10)},
				{at: 34, allowed: false, retry: 1},
				{at: 35, allowed: true, estimate: frac(2*10+2*5, 10)},
				// Now rest = 3 (buckets 1, 3), oldest = 2 at elapsed 6:
				// bucket 3 cannot fit 1 more (3+1 = 4 needs oldest 0 there:
				// e >= 10); bucket 4: oldest is bucket 1 (2), rest = 1 (bucket
				// 3): 2*(10-e) <= (4-1-1)*10 from e = 0: at 40.
				{at: 36, allowed: false, retry: 4},
				{at: 40, allowed: true, estimate: Whole(3)},
			},
		},
		{
			name: "cost above limit never; ties pass",
			p:    Params{Limit: 3, WindowMs: 100, Buckets: 4},
			steps: []step{
				{at: 0, cost: 4, never: true},
				{at: 0, cost: 3, allowed: true, estimate: Whole(0)},
				{at: 1, cost: 4, never: true},
			},
		},
		{
			// The late rule: k = 2, b = 10. Latest bucket 2 (t = 25).
			name: "late requests",
			p:    Params{Limit: 10, WindowMs: 20, Buckets: 2},
			steps: []step{
				{at: 25, allowed: true},
				// Bucket 1 still counts in full: admitted, estimated at 20.
				{at: 15, allowed: true, late: true, estimate: Whole(1)},
				// Bucket 0 is the oldest slot, weighted: refused; at 10
				// (bucket 1, late but counted in full) the same request passes.
				{at: 5, allowed: false, late: true, retry: 5, estimate: Whole(2)},
				{at: 9, allowed: false, late: true, retry: 1},
				{at: 20, allowed: true, estimate: Whole(2)},
				// Bucket 0 has left the ring entirely: refused.
				// At 45 the oldest slot is bucket 2 (25 and 20) at 5/10.
				{at: 45, allowed: true, estimate: Whole(1)},
				// From bucket 4, the oldest bucket in full is 3: at 30.
				{at: 5, allowed: false, late: true, retry: 25},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run(t, mustNew(t, SlidingBuckets, tt.p), tt.steps)
		})
	}
}

func TestSlidingBucketsSnapshotAndStats(t *testing.T) {
	pol := mustNew(t, SlidingBuckets, Params{Limit: 100, WindowMs: 30, Buckets: 3}).(*bucketsPolicy)
	for _, at := range []int64{5, 15, 25, 35} {
		record(pol, 1, at, 8)
	}
	got := pol.Snapshot(1, 37)
	want := []Slot{
		{Start: 0, Count: 8, Weight: frac(3, 10)},
		{Start: 10, Count: 8, Weight: Whole(1)},
		{Start: 20, Count: 8, Weight: Whole(1)},
		{Start: 30, Count: 8, Weight: Whole(1)},
	}
	if !slices.Equal(got.Held.(SlidingBucketsHeld).Slots, want) {
		t.Errorf("Snapshot(1, 37).Held.(SlidingBucketsHeld).Slots = %+v, want %+v", got.Held.(SlidingBucketsHeld).Slots, want)
	}
	if !sameFraction(got.Estimate, frac(24*10+8*3, 10)) {
		t.Errorf("Snapshot(1, 37).Estimate = %v, want 26.4", got.Estimate)
	}
	// Later, without deciding: buckets above the newest are empty.
	got = pol.Snapshot(1, 52)
	want = []Slot{
		{Start: 20, Count: 8, Weight: frac(8, 10)},
		{Start: 30, Count: 8, Weight: Whole(1)},
		{Start: 40, Count: 0, Weight: Whole(1)},
		{Start: 50, Count: 0, Weight: Whole(1)},
	}
	if !slices.Equal(got.Held.(SlidingBucketsHeld).Slots, want) {
		t.Errorf("Snapshot(1, 52).Held.(SlidingBucketsHeld).Slots = %+v, want %+v", got.Held.(SlidingBucketsHeld).Slots, want)
	}
	if got, want := stateStats(pol), (Stats{Keys: 1, Entries: 6, BytesPerKey: 4*8 + 40}); got != want {
		t.Errorf("Stats() = %+v, want %+v", got, want)
	}
}

// TestSlidingBucketsRingTotal checks, after every decision and raw add of
// random traffic (late requests and long idle gaps included), the number a
// decision trusts instead of summing the ring: the running total. Decide,
// Allow and record all change it, so all three are driven.
func TestSlidingBucketsRingTotal(t *testing.T) {
	r := rand.New(rand.NewPCG(propertySeed, 43))
	for scenario := range 200 {
		p := randomParams(r, SlidingBuckets)
		pol := mustNew(t, SlidingBuckets, p).(*bucketsPolicy)
		for i, q := range traffic(r, p, 120, true) {
			switch i % 3 {
			case 0:
				pol.Decide(q.key, q.at, q.cost)
			case 1:
				pol.Allow(q.key, q.at, q.cost)
			default:
				record(pol, q.key, q.at, q.cost)
			}
			st := pol.keys.find(q.key)
			if st == nil {
				continue // a first request that could never pass adds no key
			}
			ring := pol.r.ringOf(st)
			var sum int64
			for _, c := range ring {
				sum += c
			}
			if st.total != sum {
				t.Fatalf("scenario %d %+v step %d: total = %d, want the ring's sum %d (ring %v)", scenario, p, i, st.total, sum, ring)
			}
		}
	}
}

package policies

import (
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// TestBackAndForthTimes feeds 1000 requests whose times alternate t0+10s,
// t0+5s, t0+10s, … for a limit of 10 per 1000 ms. Time never runs backwards
// in a policy: fixed-window, sliding-log, sliding-counter and token-bucket
// decide every t0+5s request at t0+10s, sliding-buckets refuses it (its
// bucket left the ring 5 s ago), and gcra decides it at t0+5s against a TAT
// that has only moved forward, so it finds even less room; each admits
// exactly its limit, 10.
//
// For comparison, golang.org/x/time/rate with 1 token per second and a burst
// of 10, asked with the same times, admits all 1000: stepping back to t0+5s
// moves its clock back, and stepping forward again refills 5 tokens.
func TestBackAndForthTimes(t *testing.T) {
	const t0 = int64(1_700_000_000_000) // a fixed instant, in ms
	at := func(i int) int64 {
		if i%2 == 0 {
			return t0 + 10_000
		}
		return t0 + 5_000
	}
	configs := []struct {
		name string
		p    Params
	}{
		{FixedWindow, Params{}},
		{SlidingLog, Params{}},
		{SlidingCounter, Params{Arithmetic: Floor}},
		{SlidingCounter, Params{Arithmetic: Exact}},
		{SlidingBuckets, Params{Buckets: 1}},
		{SlidingBuckets, Params{Buckets: 10}},
		{TokenBucket, Params{}},
		{GCRA, Params{}},
	}
	for _, c := range configs {
		c.p.Limit, c.p.WindowMs = 10, 1000
		pol := mustNew(t, c.name, c.p)
		admitted := 0
		for i := range 1000 {
			d := pol.Decide(1, at(i), 1)
			if d.Allowed {
				admitted++
			}
			// gcra keeps no latest instant, so it cannot tell a late request.
			if wantLate := i%2 == 1 && c.name != GCRA; d.Late != wantLate {
				t.Fatalf("%s %+v step %d: Decide(1, %d, 1).Late = %v, want %v", c.name, c.p, i, at(i), d.Late, wantLate)
			}
		}
		if admitted != 10 {
			t.Errorf("%s %+v: admitted %d of 1000 back-and-forth requests, want 10", c.name, c.p, admitted)
		}
	}

	base := time.Date(2023, 11, 14, 22, 13, 20, 0, time.UTC) // t0
	lim := rate.NewLimiter(1, 10)
	admitted := 0
	for i := range 1000 {
		if lim.AllowN(base.Add(time.Duration(at(i)-t0)*time.Millisecond), 1) {
			admitted++
		}
	}
	if admitted != 1000 {
		t.Errorf("x/time/rate admitted %d of 1000 back-and-forth requests, want 1000 (the comparison this test documents)", admitted)
	}
}

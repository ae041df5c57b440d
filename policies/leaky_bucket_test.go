package policies

import (
	"strings"
	"testing"
)

func init() {
	var domain []Params
	for limit := int64(1); limit <= 4; limit++ {
		for _, w := range []int64{1, 3, 4} {
			for _, bd := range [][2]int64{{1, 0}, {2, 1}, {2, NoDelay}, {NoQueue, 0}} {
				domain = append(domain, Params{Limit: limit, WindowMs: w, Burst: bd[0], Delay: bd[1]})
			}
		}
	}
	registerCase(LeakyBucket, policyCase{
		ruleDomain: domain,
		checkRule: func(t *testing.T, label string, p Params) int {
			return checkRuleCopies(t, label, p, flatCase(NewLeakyBucketRule))
		},
	})
}

func TestLeakyBucketParams(t *testing.T) {
	tests := []struct {
		in       Params
		burst    int64
		delay    int64
		errAbout string
	}{
		{in: Params{Limit: 5, WindowMs: 1000}, burst: 5, delay: 0},
		{in: Params{Limit: 5, WindowMs: 1000, Burst: 3, Delay: NoDelay}, burst: 3, delay: 3},
		{in: Params{Limit: 5, WindowMs: 1000, Delay: NoDelay}, burst: 5, delay: 5},
		{in: Params{Limit: 5, WindowMs: 1000, Burst: 3, Delay: 2}, burst: 3, delay: 2},
		{in: Params{Limit: 5, WindowMs: 1000, Burst: 3, Delay: 4}, errAbout: "delay 4 is out of range [0, burst 3]"},
		{in: Params{Limit: 5, WindowMs: 1000, Delay: -2}, errAbout: "delay -2"},
		{in: Params{Limit: 5, WindowMs: 1000, Burst: -2}, errAbout: "burst -2"},
		// NoQueue stays itself (0 would read back as the limit), and the
		// delay is bounded by the queue it stands for, 0.
		{in: Params{Limit: 5, WindowMs: 1000, Burst: NoQueue}, burst: NoQueue, delay: 0},
		{in: Params{Limit: 5, WindowMs: 1000, Burst: NoQueue, Delay: NoDelay}, burst: NoQueue, delay: 0},
		{in: Params{Limit: 5, WindowMs: 1000, Burst: NoQueue, Delay: 1}, errAbout: "delay 1 is out of range [0, burst 0]"},
		{in: Params{Limit: 5, WindowMs: 1000, Burst: MaxLimit + 1}, errAbout: "burst 1048577"},
	}
	for i, tt := range tests {
		pol, err := New(LeakyBucket, tt.in)
		if tt.errAbout != "" {
			if err == nil || !strings.Contains(err.Error(), tt.errAbout) || !strings.HasPrefix(err.Error(), "policies: leaky-bucket: ") {
				t.Errorf("step %d: New(%+v) error = %v, want one naming %q", i, tt.in, err, tt.errAbout)
			}
			continue
		}
		if err != nil {
			t.Errorf("step %d: New(%+v): %v", i, tt.in, err)
			continue
		}
		if p := pol.Params(); p.Burst != tt.burst || p.Delay != tt.delay {
			t.Errorf("step %d: New(%+v).Params() = burst %d delay %d, want burst %d delay %d", i, tt.in, p.Burst, p.Delay, tt.burst, tt.delay)
		}
	}
}

// TestLeakyBucketTerms: the explanation's numbers, for the working
// "excess 2.6 of 5 after draining 0.4 s; waits 2.6 s".
func TestLeakyBucketTerms(t *testing.T) {
	pol := mustNew(t, LeakyBucket, Params{Limit: 1, WindowMs: 1000, Burst: 5})
	for range 3 {
		pol.Decide(1, 0, 1) // excess 0, 1, 2: the bucket holds 3
	}
	d := pol.Decide(1, 400, 1)
	if terms := d.Terms.LeakyBucket(); terms.Elapsed != 400 || terms.Drained != frac(400, 1000) {
		t.Errorf("Terms = elapsed %d drained %v, want 400 ms and 400/1000", terms.Elapsed, terms.Drained)
	}
	if !d.Allowed || d.DelayMs != 2600 || d.Estimate != frac(2600, 1000) || d.Capacity != 6 {
		t.Errorf("Decide(1, 400, 1) = allowed %v delayMs %d estimate %v capacity %d, want queued for 2600 ms behind 2.6 of 6",
			d.Allowed, d.DelayMs, d.Estimate, d.Capacity)
	}
	// A refusal reports the drain it saw but leaves the key unchanged.
	for range 2 {
		pol.Decide(1, 400, 1)
	}
	before := pol.Snapshot(1, 900)
	if d := pol.Decide(1, 900, 1); d.Allowed || d.Terms.LeakyBucket().Elapsed != 500 || d.RetryAfterMs != 100 {
		t.Errorf("Decide(1, 900, 1) = allowed %v elapsed %d retry %d, want refused 500 ms after the last update, retry 100", d.Allowed, d.Terms.LeakyBucket().Elapsed, d.RetryAfterMs)
	}
	if after := pol.Snapshot(1, 900); after.Estimate != before.Estimate {
		t.Errorf("Snapshot after a refusal = %+v, want %+v", after, before)
	}
	if got, want := stateStats(pol), (Stats{Keys: 1, Entries: 2, BytesPerKey: 16}); got != want {
		t.Errorf("Stats() = %+v, want %+v", got, want)
	}
}

// TestLeakyBucketWithoutAQueue is nginx's limit_req without burst: one
// request per windowMs/limit (here 6 s) passes, at once, and any request
// sooner than that after the last one passed is refused, never queued.
func TestLeakyBucketWithoutAQueue(t *testing.T) {
	pol := mustNew(t, LeakyBucket, Params{Limit: 5, WindowMs: 30000, Burst: NoQueue})
	tests := []struct {
		at      int64
		allowed bool
		retry   int64
	}{
		{0, true, 0},
		{1, false, 5999},
		{5999, false, 1},
		{6000, true, 0},
		{6000, false, 6000},
		{20000, true, 0},
		{25999, false, 1},
	}
	for i, tt := range tests {
		d := pol.Decide(1, tt.at, 1)
		if d.Allowed != tt.allowed || d.RetryAfterMs != tt.retry || d.DelayMs != 0 || d.Capacity != 1 {
			t.Errorf("step %d at %d: allowed %v retry %d delay %d capacity %d, want allowed %v retry %d delay 0 capacity 1",
				i, tt.at, d.Allowed, d.RetryAfterMs, d.DelayMs, d.Capacity, tt.allowed, tt.retry)
		}
	}
	if !pol.Decide(2, 0, 2).Never {
		t.Errorf("a cost of 2 without a queue: Never = false, want true")
	}
}

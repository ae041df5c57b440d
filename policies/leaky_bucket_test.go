package policies

import (
	"strings"
	"testing"
)

func init() {
	var domain []Params
	for limit := int64(1); limit <= 4; limit++ {
		for _, w := range []int64{1, 3, 4} {
			for _, bd := range [][2]int64{{1, 0}, {2, 1}, {2, NoDelay}} {
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
		{in: Params{Limit: 5, WindowMs: 1000, Burst: -1}, errAbout: "burst -1"},
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

package policies

import (
	"errors"
	"fmt"
	"math/big"
	"testing"
)

// step is one request in a table test. Fields left at their zero value are
// not checked: retry 0 means "do not check" unless checkRetry is set, and a
// zero estimate (Den 0) is not compared.
type step struct {
	at, cost int64
	key      Key
	allowed  bool
	never    bool
	retry    int64    // checked when the request is refused and not never
	estimate Fraction // checked when Den != 0
	late     bool
}

// mustNew builds a policy or stops the test.
func mustNew(t testing.TB, name string, p Params) Policy {
	t.Helper()
	pol, err := New(name, p)
	if err != nil {
		t.Fatalf("New(%q, %+v): %v", name, p, err)
	}
	return pol
}

// sameFraction compares two fractions by value.
func sameFraction(a, b Fraction) bool {
	if a.Den == 0 || b.Den == 0 {
		return a.Den == b.Den && a.Num == b.Num
	}
	x := new(big.Int).Mul(big.NewInt(a.Num), big.NewInt(b.Den))
	y := new(big.Int).Mul(big.NewInt(b.Num), big.NewInt(a.Den))
	return x.Cmp(y) == 0
}

// run feeds the steps to pol in order and reports each mismatch as
// "step i: ...".
func run(t *testing.T, pol Policy, steps []step) {
	t.Helper()
	for i, s := range steps {
		cost := s.cost
		if cost == 0 && !s.never {
			cost = 1
		}
		d := pol.Decide(s.key, s.at, cost)
		call := fmt.Sprintf("step %d: %s.Decide(%d, %d, %d)", i, pol.Name(), s.key, s.at, cost)
		if d.Allowed != s.allowed {
			t.Errorf("%s: allowed = %v, want %v (estimate %v)", call, d.Allowed, s.allowed, d.Estimate)
		}
		if d.Never != s.never {
			t.Errorf("%s: never = %v, want %v", call, d.Never, s.never)
		}
		if d.Late != s.late {
			t.Errorf("%s: late = %v, want %v", call, d.Late, s.late)
		}
		if !s.allowed && !s.never && s.retry != 0 && d.RetryAfterMs != s.retry {
			t.Errorf("%s: retryAfterMs = %d, want %d", call, d.RetryAfterMs, s.retry)
		}
		if d.Allowed && d.RetryAfterMs != 0 {
			t.Errorf("%s: allowed with retryAfterMs = %d, want 0", call, d.RetryAfterMs)
		}
		if s.estimate.Den != 0 && !sameFraction(d.Estimate, s.estimate) {
			t.Errorf("%s: estimate = %v, want %v", call, d.Estimate, s.estimate)
		}
	}
}

// frac is a shorthand for Fraction{n, d}.
func frac(n, d int64) Fraction { return Fraction{n, d} }

func TestFractionReduced(t *testing.T) {
	tests := []struct {
		in, want Fraction
	}{
		{frac(135000, 30000), frac(9, 2)},
		{frac(0, 30000), frac(0, 1)},
		{frac(6, 3), frac(2, 1)},
		{frac(7, 0), frac(0, 1)},
	}
	for _, tt := range tests {
		if got := tt.in.Reduced(); got != tt.want {
			t.Errorf("%v.Reduced() = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestNewValidates(t *testing.T) {
	ok := Params{Limit: 10, WindowMs: 1000}
	tests := []struct {
		name string
		p    Params
		want string // "" for success
	}{
		{"no-such", ok, fmt.Sprintf(`policies: unknown policy "no-such" (want one of %v)`, Names)},
		{FixedWindow, Params{Limit: 0, WindowMs: 1000}, "policies: fixed-window: limit 0 is out of range [1, 1048576]"},
		{SlidingLog, Params{Limit: MaxLimit + 1, WindowMs: 1000}, "policies: sliding-log: limit 1048577 is out of range [1, 1048576]"},
		{FixedWindow, Params{Limit: 1, WindowMs: 0}, "policies: fixed-window: windowMs 0 is out of range [1, 1099511627776]"},
		{FixedWindow, Params{Limit: 1, WindowMs: MaxWindowMs + 1}, "policies: fixed-window: windowMs 1099511627777 is out of range [1, 1099511627776]"},
		{SlidingCounter, Params{Limit: 5, WindowMs: 30000, Arithmetic: "round"}, `policies: sliding-counter: arithmetic "round" is neither "floor" nor "exact"`},
		{SlidingCounter, Params{Limit: 5, WindowMs: 30000, Arithmetic: Exact}, ""},
		{FixedWindow, Params{Limit: 5, WindowMs: 30000, Arithmetic: "ignored"}, ""},
		{SlidingBuckets, Params{Limit: 10, WindowMs: 1000, Buckets: 3}, "policies: sliding-buckets: windowMs 1000 is not a multiple of buckets 3"},
		{SlidingBuckets, Params{Limit: 10, WindowMs: 1000, Buckets: 0}, "policies: sliding-buckets: buckets 0 is out of range [1, 1024]"},
		{SlidingBuckets, Params{Limit: 10, WindowMs: 2048, Buckets: 2048}, "policies: sliding-buckets: buckets 2048 is out of range [1, 1024]"},
		{SlidingBuckets, Params{Limit: 10, WindowMs: 1000, Buckets: 8}, ""},
		{TokenBucket, Params{Limit: 10, WindowMs: 1000, Burst: -1}, "policies: token-bucket: burst -1 is out of range [0, 1048576]"},
		{GCRA, Params{Limit: 10, WindowMs: 1000, Burst: MaxLimit + 1}, "policies: gcra: burst 1048577 is out of range [0, 1048576]"},
		{GCRA, Params{Limit: 10, WindowMs: 1000, Burst: 0}, ""},
		{LeakyBucket, Params{Limit: 10, WindowMs: 1000, Burst: 4, Delay: 5}, "policies: leaky-bucket: delay 5 is out of range [0, burst 4] (or nodelay)"},
		{LeakyBucket, Params{Limit: 10, WindowMs: 1000, Burst: -2}, "policies: leaky-bucket: burst -2 is out of range [0, 1048576]"},
		{TokenBucket, Params{Limit: 10, WindowMs: 1000, Burst: NoQueue}, "policies: token-bucket: burst -1 is out of range [0, 1048576]"},
		{LeakyBucket, Params{Limit: 10, WindowMs: 1000, Delay: NoDelay}, ""},
	}
	for _, tt := range tests {
		_, err := New(tt.name, tt.p)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("New(%q, %+v) error = %q, want %q", tt.name, tt.p, got, tt.want)
		}
	}
}

func TestParamsNormalised(t *testing.T) {
	if got := mustNew(t, SlidingCounter, Params{Limit: 5, WindowMs: 100}).Params().Arithmetic; got != Floor {
		t.Errorf("sliding-counter Params().Arithmetic = %q, want %q", got, Floor)
	}
	for _, name := range []string{TokenBucket, GCRA, LeakyBucket} {
		if got := mustNew(t, name, Params{Limit: 5, WindowMs: 100}).Params().Burst; got != 5 {
			t.Errorf("%s Params().Burst = %d, want 5", name, got)
		}
	}
}

// TestEveryPolicyRefusesBadCost: a cost below 1 or above capacity is refused
// with Never, creates no key, and never panics, even at absurd times.
func TestEveryPolicyRefusesBadCost(t *testing.T) {
	for _, name := range Names {
		pol := mustNew(t, name, Params{Limit: 4, WindowMs: 100, Buckets: 2})
		// One above the capacity: 5 (leaky-bucket's 6, a queue of 4 behind the one served).
		above := pol.Snapshot(7, 0).Capacity + 1
		for _, c := range []struct{ at, cost int64 }{{0, 0}, {5, -3}, {-50, above}, {1 << 62, 1 << 62}, {-1 << 63, 0}} {
			d := pol.Decide(7, c.at, c.cost)
			if d.Allowed || !d.Never {
				t.Errorf("%s.Decide(7, %d, %d) = allowed %v never %v, want refused and never", name, c.at, c.cost, d.Allowed, d.Never)
			}
			if v := pol.Allow(7, c.at, c.cost); v != (Verdict{Never: true}) {
				t.Errorf("%s.Allow(7, %d, %d) = %+v, want refused and never", name, c.at, c.cost, v)
			}
		}
		if n := pol.Stats().Keys; n != 0 {
			t.Errorf("%s: %d keys after never-admissible requests, want 0", name, n)
		}
		for i, at := range []int64{-1 << 63, -1, 1 << 62, 1<<63 - 1} {
			key := Key(100 + i)
			d := pol.Decide(key, at, 4)
			if !d.Allowed {
				t.Errorf("%s.Decide(%d, %d, 4) refused, want admitted (times clamp into [0, MaxTime])", name, key, at)
			}
			if d.At != clampTime(at) {
				t.Errorf("%s.Decide(%d, %d, 4).At = %d, want %d", name, key, at, d.At, clampTime(at))
			}
			if d := pol.Decide(key, at, 4); d.Allowed || d.RetryAfterMs < 1 {
				t.Errorf("%s.Decide(%d, %d, 4) again = allowed %v retry %d, want refused with a retry", name, key, at, d.Allowed, d.RetryAfterMs)
			}
			pol.Peek(key, at)
			pol.Snapshot(key, at)
		}
	}
}

// TestPeekAndSnapshotDoNotChangeState decides the same traffic twice, once
// with Peek and Snapshot calls in between (at later instants, too), and
// expects identical decisions.
func TestPeekAndSnapshotDoNotChangeState(t *testing.T) {
	for _, name := range Names {
		p := Params{Limit: 3, WindowMs: 100, Buckets: 4}
		quiet, noisy := mustNew(t, name, p), mustNew(t, name, p)
		for i, at := range []int64{0, 10, 20, 30, 95, 120, 150, 199, 200, 260, 410} {
			noisy.Peek(1, at+500)
			noisy.Snapshot(1, at+250)
			noisy.Peek(1, at)
			a, b := quiet.Decide(1, at, 1), noisy.Decide(1, at, 1)
			if a != b {
				t.Errorf("%s step %d: decision after Peek/Snapshot = %+v, want %+v", name, i, b, a)
			}
		}
	}
}

// TestDecideAllocatesNothing: once a key exists, deciding allocates nothing,
// admitted or refused.
func TestDecideAllocatesNothing(t *testing.T) {
	for _, name := range Names {
		pol := mustNew(t, name, Params{Limit: 3, WindowMs: 1200, Buckets: 6, Arithmetic: Exact})
		pol.Decide(1, 0, 1)
		now := int64(0)
		allocs := testing.AllocsPerRun(1000, func() {
			now += 7
			pol.Decide(1, now, 1)
			pol.Decide(1, now, 2)
			pol.Peek(1, now)
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per Decide, want 0", name, allocs)
		}
	}
}

// TestCloneIsIndependent: deciding on a copy leaves the original as it was,
// for every policy.
func TestCloneIsIndependent(t *testing.T) {
	for _, name := range Names {
		build := func() Policy {
			p := mustNew(t, name, Params{Limit: 2, WindowMs: 1000, Buckets: 2})
			p.Decide(1, 0, 1)
			return p
		}
		p, untouched := build(), build()
		c, ok := Clone(p)
		if !ok {
			t.Fatalf("%s: Clone refused a policy built by New", name)
		}
		c.Decide(1, 10, 1)
		c.Decide(2, 10, 1)
		if got, want := p.Peek(1, 10), untouched.Peek(1, 10); got != want {
			t.Errorf("%s: original's estimate after deciding on the copy = %v, want %v", name, got, want)
		}
		if got := p.Stats().Keys; got != 1 {
			t.Errorf("%s: original holds %d keys after the copy added one, want 1", name, got)
		}
		if got, was := c.Peek(1, 10), untouched.Peek(1, 10); got == was {
			t.Errorf("%s: copy's estimate %v did not change with its own decision", name, got)
		}
	}
}

// TestNewNamesTheRefusedField: a caller points at the field a refusal is
// about ("policies[0].buckets"), not only at the policy.
func TestNewNamesTheRefusedField(t *testing.T) {
	tests := []struct {
		name  string
		p     Params
		field string
	}{
		{FixedWindow, Params{Limit: 0, WindowMs: 1000}, "limit"},
		{FixedWindow, Params{Limit: 1, WindowMs: 0}, "windowMs"},
		{SlidingCounter, Params{Limit: 5, WindowMs: 30000, Arithmetic: "round"}, ArithmeticOptionName},
		{SlidingBuckets, Params{Limit: 10, WindowMs: 30000, Buckets: 7}, BucketsOptionName},
		{GCRA, Params{Limit: 10, WindowMs: 1000, Burst: -2}, BurstOptionName},
		{LeakyBucket, Params{Limit: 10, WindowMs: 1000, Burst: 4, Delay: 5}, DelayOptionName},
	}
	for i, tt := range tests {
		_, err := New(tt.name, tt.p)
		var pe *ParamError
		if !errors.As(err, &pe) {
			t.Errorf("case %d: New(%q, %+v) error = %v, want a *ParamError", i, tt.name, tt.p, err)
			continue
		}
		if pe.Field != tt.field || pe.Policy != tt.name {
			t.Errorf("case %d: field %q of %q, want %q of %q", i, pe.Field, pe.Policy, tt.field, tt.name)
		}
	}
}

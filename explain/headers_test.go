package explain

import (
	"context"
	"strconv"
	"testing"

	"github.com/windowlab/playground/internal/ratelimittest"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// TestHeadersFollowTheDraft runs scenarios through Run and reads every
// decision's fields back with a structured-field parser; the decision a
// case names has its fields spelled out, worked by hand from the policy's
// rule, and, on one server, its effective window checked against a replay:
// a request of r+1 permits is admitted t seconds on and refused a second
// before.
func TestHeadersFollowTheDraft(t *testing.T) {
	const w = 30_000
	at0 := func(n int64) scenario.Request { return scenario.Request{At: 0, Cost: 1, Count: n} }
	for _, tt := range []struct {
		name  string
		s     scenario.Scenario
		index int
		want  string // HeaderLines of decision index
	}{
		{"token bucket of burst 10 refuses the 11th", scenario.Scenario{Limit: 5, WindowMs: w,
			Policies: []scenario.PolicySpec{{Name: policies.TokenBucket, Burst: 10}}, Requests: []scenario.Request{at0(11)}}, 10,
			// One token comes back every 6 s; the whole 10 in 60 s.
			"HTTP/1.1 429 Too Many Requests\nRetry-After: 6\nRateLimit-Policy: \"token-bucket\";q=10;w=60\nRateLimit: \"token-bucket\";r=0;t=6"},
		{"token bucket of burst 10 after its first", scenario.Scenario{Limit: 5, WindowMs: w,
			Policies: []scenario.PolicySpec{{Name: policies.TokenBucket, Burst: 10}}, Requests: []scenario.Request{at0(1)}}, 0,
			"HTTP/1.1 200 OK\nRateLimit-Policy: \"token-bucket\";q=10;w=60\nRateLimit: \"token-bucket\";r=9;t=6"},
		{"gcra of burst 10 refuses the 11th", scenario.Scenario{Limit: 5, WindowMs: w,
			Policies: []scenario.PolicySpec{{Name: policies.GCRA, Burst: 10}}, Requests: []scenario.Request{at0(11)}}, 10,
			"HTTP/1.1 429 Too Many Requests\nRetry-After: 6\nRateLimit-Policy: \"gcra\";q=10;w=60\nRateLimit: \"gcra\";r=0;t=6"},
		{"leaky bucket queues the 4th", scenario.Scenario{Limit: 1, WindowMs: 1000,
			Policies: []scenario.PolicySpec{{Name: policies.LeakyBucket, Burst: 5}},
			Requests: []scenario.Request{at0(3), {At: 400, Cost: 1, Count: 1}}}, 3,
			// The queue holds 5 and the one served: 6 permits, drained in
			// 6 s; 3.6 in it after this one leaves 2 places, and the next
			// frees 0.6 s on.
			"HTTP/1.1 200 OK\nServer-Timing: queue;dur=2600;desc=\"waited in the queue\"\nRateLimit-Policy: \"leaky-bucket\";q=6;w=6\nRateLimit: \"leaky-bucket\";r=2;t=1"},
		{"leaky bucket refuses when full", scenario.Scenario{Limit: 1, WindowMs: 1000,
			Policies: []scenario.PolicySpec{{Name: policies.LeakyBucket, Burst: 5}},
			Requests: []scenario.Request{at0(3), {At: 400, Cost: 1, Count: 4}}}, 6,
			"HTTP/1.1 429 Too Many Requests\nRetry-After: 1\nRateLimit-Policy: \"leaky-bucket\";q=6;w=6\nRateLimit: \"leaky-bucket\";r=0;t=1"},
		{"fixed window refuses until its end", scenario.Scenario{Limit: 5, WindowMs: w,
			Policies: []scenario.PolicySpec{{Name: policies.FixedWindow}}, Requests: []scenario.Request{at0(5), {At: 10_000, Cost: 1, Count: 1}}}, 5,
			"HTTP/1.1 429 Too Many Requests\nRetry-After: 20\nRateLimit-Policy: \"fixed-window\";q=5;w=30\nRateLimit: \"fixed-window\";r=0;t=20"},
		{"sliding log frees its oldest first", scenario.Scenario{Limit: 5, WindowMs: w,
			Policies: []scenario.PolicySpec{{Name: policies.SlidingLog}},
			Requests: []scenario.Request{at0(1), {At: 10_000, Cost: 1, Count: 2}}}, 2,
			// 2 left; the request at 0 leaves the look-back at 30 s, 20 s on,
			// long before the log is empty (40 s).
			"HTTP/1.1 200 OK\nRateLimit-Policy: \"sliding-log\";q=5;w=30\nRateLimit: \"sliding-log\";r=2;t=20"},
		{"sliding counter refuses into the next window", scenario.Scenario{Limit: 5, WindowMs: w,
			Policies: []scenario.PolicySpec{{Name: policies.SlidingCounter}}, Requests: []scenario.Request{at0(5), {At: 1000, Cost: 1, Count: 1}}}, 5,
			// The previous window's 5 weigh 5 × (30 000 − e) div 30 000,
			// below 5 from 1 ms into the next window: 29.001 s on.
			"HTTP/1.1 429 Too Many Requests\nRetry-After: 30\nRateLimit-Policy: \"sliding-counter\";q=5;w=30\nRateLimit: \"sliding-counter\";r=0;t=30"},
		{"sliding buckets", scenario.Scenario{Limit: 5, WindowMs: w,
			Policies: []scenario.PolicySpec{{Name: policies.SlidingBuckets, Buckets: 6}}, Requests: []scenario.Request{at0(5), {At: 1000, Cost: 1, Count: 1}}}, 5, ""},
		{"a request above the capacity is never admitted", scenario.Scenario{Limit: 5, WindowMs: w,
			Policies: []scenario.PolicySpec{{Name: policies.FixedWindow}}, Requests: []scenario.Request{{At: 0, Cost: 6, Count: 1}}}, 0,
			// No Retry-After: no wait admits it; all 5 available, so no
			// effective window either.
			"HTTP/1.1 429 Too Many Requests\nRateLimit-Policy: \"fixed-window\";q=5;w=30\nRateLimit: \"fixed-window\";r=5"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Run(context.Background(), tt.s)
			if err != nil {
				t.Fatal(err)
			}
			spec := tt.s.Policies[0]
			for i, d := range res.Results[0].Decisions {
				ratelimittest.CheckConsistent(t, "request "+strconv.Itoa(i+1), d, spec.Name, ratelimittest.Parse(t, d.Headers))
			}
			d := res.Results[0].Decisions[tt.index]
			if got := HeaderLines(d.Headers); tt.want != "" && got != tt.want {
				t.Errorf("request %d's headers:\n%s\nwant\n%s", tt.index+1, got, tt.want)
			}
			p := ratelimittest.Parse(t, d.Headers)
			if !p.HasT || tt.index != len(res.Results[0].Decisions)-1 {
				return
			}
			more := scenario.Request{Key: d.Key, Cost: p.R + 1}
			more.At = d.At + p.T*1000
			if got, err := scenario.WhatIf(tt.s, spec, more); err != nil || !got.Allowed() {
				t.Errorf("r=%d;t=%d: %d permits at %d ms refused (%v), want admitted", p.R, p.T, more.Cost, more.At, err)
			}
			if more.At -= 1000; more.At > d.At {
				if got, err := scenario.WhatIf(tt.s, spec, more); err != nil || got.Allowed() {
					t.Errorf("r=%d;t=%d: %d permits at %d ms admitted (%v), want refused within the effective window", p.R, p.T, more.Cost, more.At, err)
				}
			}
		})
	}
}

// TestHeadersOnSeveralServersAreTheDecidingNodes: on two servers that do
// not share counts, the second request is the second node's first, and
// that node answers from its own count (4 left of 5), not the two the
// servers admitted between them.
func TestHeadersOnSeveralServersAreTheDecidingNodes(t *testing.T) {
	s := scenario.Scenario{Limit: 5, WindowMs: 30_000,
		Policies: []scenario.PolicySpec{{Name: policies.FixedWindow, Deployment: scenario.Deployment{Nodes: 2}}},
		Requests: []scenario.Request{{At: 0, Cost: 1, Count: 12}}}
	res, err := Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		node, r int64
		allowed bool
	}{{1, 4, true}, {2, 4, true}, {1, 3, true}, {2, 0, true}, {1, 0, false}, {2, 0, false}} {
		index := map[int]int{0: 0, 1: 1, 2: 2, 3: 9, 4: 10, 5: 11}[i]
		d := res.Results[0].Decisions[index]
		p := ratelimittest.Parse(t, d.Headers)
		ratelimittest.CheckConsistent(t, "request "+strconv.Itoa(index+1), d, policies.FixedWindow, p)
		if int64(d.Nodes.Node+1) != want.node || p.R != want.r || d.Detail.Allowed != want.allowed {
			t.Errorf("request %d: node %d, r=%d, allowed %v; want node %d, r=%d, allowed %v (%s)",
				index+1, d.Nodes.Node+1, p.R, d.Detail.Allowed, want.node, want.r, want.allowed, HeaderLines(d.Headers))
		}
	}
}

// TestHeadersStayWithinAStructuredInteger: a burst of 2^20 at 1 per 2^40
// ms refills in about 1.15e15 s, past the 15 digits an Integer holds; the
// field says the largest instead of failing to serialise.
func TestHeadersStayWithinAStructuredInteger(t *testing.T) {
	p := policies.Params{Limit: 1, WindowMs: policies.MaxWindowMs, Burst: policies.MaxLimit}
	pol, err := policies.New(policies.TokenBucket, p)
	if err != nil {
		t.Fatal(err)
	}
	det := pol.Decide(1, 0, 1)
	got := ratelimittest.Parse(t, Headers(Policy{Name: policies.TokenBucket, Params: pol.Params()}, det, pol, 1))
	if got.W != 999_999_999_999_999 || got.Q != policies.MaxLimit {
		t.Errorf("q=%d;w=%d, want q=%d and w the largest Integer", got.Q, got.W, policies.MaxLimit)
	}
}

// TestRetryAfterIsWholeSecondsRoundedUp: the one place a Retry-After is
// written rounds a wait up to whole seconds and never says 0.
func TestRetryAfterIsWholeSecondsRoundedUp(t *testing.T) {
	for _, tt := range []struct {
		ms   int64
		want string
	}{{-5, "1"}, {0, "1"}, {1, "1"}, {999, "1"}, {1000, "1"}, {1001, "2"}, {59_500, "60"}} {
		if got := RetryAfter(tt.ms); got != tt.want {
			t.Errorf("RetryAfter(%d) = %q, want %q", tt.ms, got, tt.want)
		}
	}
}

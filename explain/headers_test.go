package explain

import (
	"context"
	"strconv"
	"testing"

	"github.com/dunglas/httpsfv"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// Parsed is one response's header fields as a structured-field parser
// (RFC 9651) reads them back.
type Parsed struct {
	Status     string
	RetryAfter int64 // 0: none
	QueueMs    int64 // Server-Timing's queue dur; 0: none
	// RateLimit-Policy's and RateLimit's one item each.
	Policy, Limit string // the items' names
	Q, W, R, T    int64
	HasT          bool
}

// ParseHeaders reads hs as a client would, failing on anything the draft
// (draft-ietf-httpapi-ratelimit-headers-11) does not allow: each RateLimit
// field a List of one Item whose value is a String, its parameters Integers
// (q and w, r and t), nothing else; Retry-After delay-seconds. It is
// exported to the package's tests only, and the simulate command's and the
// API's tests do the same with their own copy of these rules.
func ParseHeaders(t *testing.T, hs []Header) Parsed {
	t.Helper()
	var p Parsed
	item := func(field, value string, allowed ...string) (httpsfv.Item, map[string]int64) {
		t.Helper()
		list, err := httpsfv.UnmarshalList([]string{value})
		if err != nil {
			t.Fatalf("%s: %q does not parse as a List: %v", field, value, err)
		}
		if len(list) != 1 {
			t.Fatalf("%s: %q has %d members, want one item", field, value, len(list))
		}
		it, ok := list[0].(httpsfv.Item)
		if !ok {
			t.Fatalf("%s: %q's member is an inner list, want an Item", field, value)
		}
		params := map[string]int64{}
		for _, name := range it.Params.Names() {
			v, _ := it.Params.Get(name)
			n, ok := v.(int64)
			if !ok {
				t.Errorf("%s: %q's parameter %s is %T, want an Integer", field, value, name, v)
			}
			params[name] = n
		}
		for name := range params {
			found := false
			for _, a := range allowed {
				found = found || a == name
			}
			if !found {
				t.Errorf("%s: %q has parameter %s, want only %v", field, value, name, allowed)
			}
		}
		return it, params
	}
	for _, h := range hs {
		switch h.Name {
		case "Status":
			p.Status = h.Value
		case "Retry-After":
			it, err := httpsfv.UnmarshalItem([]string{h.Value})
			n, ok := it.Value.(int64)
			if err != nil || !ok || n < 1 || len(it.Params.Names()) > 0 {
				t.Fatalf("Retry-After: %q, want whole seconds of at least 1", h.Value)
			}
			p.RetryAfter = n
		case "Server-Timing":
			list, err := httpsfv.UnmarshalList([]string{h.Value})
			if err != nil || len(list) != 1 {
				t.Fatalf("Server-Timing: %q does not parse as one metric: %v", h.Value, err)
			}
			it := list[0].(httpsfv.Item)
			dur, _ := it.Params.Get("dur")
			if it.Value != httpsfv.Token("queue") {
				t.Fatalf("Server-Timing: %q, want the queue metric", h.Value)
			}
			p.QueueMs, _ = dur.(int64)
		case "RateLimit-Policy":
			it, params := item(h.Name, h.Value, "q", "w")
			name, ok := it.Value.(string)
			if !ok {
				t.Fatalf("RateLimit-Policy: %q's item is %T, want a String", h.Value, it.Value)
			}
			q, hasQ := params["q"]
			if !hasQ || q < 0 || params["w"] < 1 {
				t.Fatalf("RateLimit-Policy: %q, want q >= 0 (required) and w >= 1", h.Value)
			}
			p.Policy, p.Q, p.W = name, q, params["w"]
		case "RateLimit":
			it, params := item(h.Name, h.Value, "r", "t")
			name, ok := it.Value.(string)
			if !ok {
				t.Fatalf("RateLimit: %q's item is %T, want a String", h.Value, it.Value)
			}
			r, hasR := params["r"]
			if !hasR || r < 0 || params["t"] < 0 {
				t.Fatalf("RateLimit: %q, want r >= 0 (required) and t >= 0", h.Value)
			}
			p.Limit, p.R = name, r
			p.T, p.HasT = params["t"]
		default:
			t.Fatalf("unexpected header %s: %s", h.Name, h.Value)
		}
	}
	return p
}

// CheckConsistent checks what holds of every decision's fields: both name
// the policy, nothing is available beyond the quota, a refusal's
// Retry-After is no earlier than the end of the effective window (the
// draft's section 6) and an admission has none.
func CheckConsistent(t *testing.T, what string, d scenario.Decision, policy string, p Parsed) {
	t.Helper()
	if p.Policy != policy || p.Limit != policy {
		t.Errorf("%s: RateLimit-Policy names %q and RateLimit %q, want %q", what, p.Policy, p.Limit, policy)
	}
	if p.R > p.Q {
		t.Errorf("%s: r=%d above q=%d", what, p.R, p.Q)
	}
	switch {
	case d.Detail.Allowed && p.RetryAfter != 0:
		t.Errorf("%s: admitted with Retry-After %d", what, p.RetryAfter)
	case !d.Detail.Allowed && !d.Detail.Never && (p.RetryAfter == 0 || p.HasT && p.RetryAfter < p.T):
		t.Errorf("%s: refused with Retry-After %d and t=%d, want Retry-After >= t", what, p.RetryAfter, p.T)
	}
	if want := map[bool]string{true: "200 OK", false: "429 Too Many Requests"}[d.Detail.Allowed]; p.Status != want {
		t.Errorf("%s: status %q, want %q", what, p.Status, want)
	}
}

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
				CheckConsistent(t, "request "+strconv.Itoa(i+1), d, spec.Name, ParseHeaders(t, d.Headers))
			}
			d := res.Results[0].Decisions[tt.index]
			if got := HeaderLines(d.Headers); tt.want != "" && got != tt.want {
				t.Errorf("request %d's headers:\n%s\nwant\n%s", tt.index+1, got, tt.want)
			}
			p := ParseHeaders(t, d.Headers)
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
		p := ParseHeaders(t, d.Headers)
		CheckConsistent(t, "request "+strconv.Itoa(index+1), d, policies.FixedWindow, p)
		if int64(d.Nodes.Node+1) != want.node || p.R != want.r || d.Detail.Allowed != want.allowed {
			t.Errorf("request %d: node %d, r=%d, allowed %v; want node %d, r=%d, allowed %v (%s)",
				index+1, d.Nodes.Node+1, p.R, d.Detail.Allowed, want.node, want.r, want.allowed, HeaderLines(d.Headers))
		}
	}
}

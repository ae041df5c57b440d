// Package ratelimittest reads response header fields back as a client
// would, with a structured-field parser (RFC 9651), for the tests of every
// place that gives them: explain, the simulate command and /api/simulate.
package ratelimittest

import (
	"testing"

	"github.com/dunglas/httpsfv"

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

// Parse reads hs as a client would, failing on anything the draft
// (draft-ietf-httpapi-ratelimit-headers-11) does not allow: each RateLimit
// field a List of one Item whose value is a String, its parameters Integers
// (q and w, r and t), nothing else; Retry-After delay-seconds; Server-Timing
// one queue metric.
func Parse(t testing.TB, hs []scenario.Header) Parsed {
	t.Helper()
	var p Parsed
	// Both RateLimit fields are one Item: the policy's name, a String, with
	// Integer parameters of the names allowed.
	policyItem := func(field, value string, allowed ...string) (string, map[string]int64) {
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
		name, ok := it.Value.(string)
		if !ok {
			t.Fatalf("%s: %q's item is %T, want a String", field, value, it.Value)
		}
		return name, params
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
			name, params := policyItem(h.Name, h.Value, "q", "w")
			q, hasQ := params["q"]
			if !hasQ || q < 0 || params["w"] < 1 {
				t.Fatalf("RateLimit-Policy: %q, want q >= 0 (required) and w >= 1", h.Value)
			}
			p.Policy, p.Q, p.W = name, q, params["w"]
		case "RateLimit":
			name, params := policyItem(h.Name, h.Value, "r", "t")
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
	if p.Status == "" || p.Policy == "" || p.Limit == "" {
		t.Fatalf("%v: want the status line and both RateLimit fields", hs)
	}
	return p
}

// CheckConsistent checks what holds of every decision's fields: both name
// the policy, nothing is available beyond the quota, a refusal's
// Retry-After is no earlier than the end of the effective window (the
// draft's section 6) and an admission has none.
func CheckConsistent(t testing.TB, what string, d scenario.Decision, policy string, p Parsed) {
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

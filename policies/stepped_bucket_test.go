package policies

import "testing"

func init() {
	var domain []Params
	for limit := int64(1); limit <= 4; limit++ {
		for _, w := range []int64{1, 3, 4} {
			for _, burst := range []int64{0, 1, limit + 2} {
				domain = append(domain, Params{Limit: limit, WindowMs: w, Burst: burst})
			}
		}
	}
	registerCase(SteppedBucket, policyCase{
		ruleDomain: domain,
		checkRule: func(t *testing.T, label string, p Params) int {
			return checkRuleCopies(t, label, p, flatCase(NewSteppedBucketRule))
		},
	})
}

func TestSteppedBucket(t *testing.T) {
	tests := []struct {
		name  string
		p     Params
		steps []step
	}{
		{
			// 2 tokens every 1000 ms, at most 3: nothing arrives between
			// edges, and a fill never passes the burst.
			name: "whole tokens at each edge, capped at the burst",
			p:    Params{Limit: 2, WindowMs: 1000, Burst: 3},
			steps: []step{
				{at: 0, cost: 3, allowed: true, estimate: Whole(0)},
				{at: 999, allowed: false, retry: 1, estimate: Whole(3)},
				{at: 1000, cost: 2, allowed: true, estimate: Whole(1)},
				{at: 1000, allowed: false, retry: 1000, estimate: Whole(3)},
				{at: 9000, cost: 3, allowed: true, estimate: Whole(0)},
			},
		},
		{
			name: "a cost needing several fills waits for the last of them",
			p:    Params{Limit: 1, WindowMs: 100, Burst: 4},
			steps: []step{
				{at: 50, cost: 4, allowed: true},
				{at: 60, cost: 3, allowed: false, retry: 240, estimate: Whole(4)},
				{at: 299, cost: 3, allowed: false, retry: 1, estimate: Whole(2)},
				{at: 300, cost: 3, allowed: true, estimate: Whole(1)},
			},
		},
		{
			name: "cost above the burst is never admitted and does not wedge the key",
			p:    Params{Limit: 2, WindowMs: 1000},
			steps: []step{
				{at: 0, cost: 3, never: true},
				{at: 1, cost: 2, allowed: true, estimate: Whole(0)},
			},
		},
		{
			name: "late request is decided at the latest instant",
			p:    Params{Limit: 1, WindowMs: 1000},
			steps: []step{
				{at: 1500, allowed: true},
				{at: 900, allowed: false, late: true, retry: 1100},
				{at: 2000, allowed: true, estimate: Whole(0)},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run(t, mustNew(t, SteppedBucket, tt.p), tt.steps)
		})
	}
}

// TestSteppedBucketIsTokenBucketAtEdges: with a fill interval of 1 ms the
// steps are a token bucket's continuous refill, so the two decide alike.
func TestSteppedBucketIsTokenBucketAtEdges(t *testing.T) {
	for _, p := range []Params{{Limit: 1, WindowMs: 1}, {Limit: 3, WindowMs: 1, Burst: 7}} {
		stepped, token := mustNew(t, SteppedBucket, p), mustNew(t, TokenBucket, p)
		for now := int64(0); now < 40; now++ {
			for cost := int64(1); cost <= 3; cost++ {
				a, b := stepped.Allow(1, now, cost), token.Allow(1, now, cost)
				if a != b {
					t.Fatalf("%+v at %d cost %d: stepped-bucket %+v, token-bucket %+v", p, now, cost, a, b)
				}
			}
		}
	}
}

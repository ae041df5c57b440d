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
	registerCase(TokenBucket, policyCase{
		ruleDomain: domain,
		checkRule: func(t *testing.T, label string, p Params) int {
			return checkRuleCopies(t, label, p, flatCase(NewTokenBucketRule))
		},
	})
}

// bucketTests are shared by token-bucket and gcra, which must decide alike.
type bucketTest struct {
	name  string
	p     Params
	steps []step
}

var bucketTests = []bucketTest{
	{
		// Capacity 2 (burst 0 means limit), 2 permits per 1000 ms: one
		// permit every 500 ms.
		name: "starts full and refills",
		p:    Params{Limit: 2, WindowMs: 1000},
		steps: []step{
			{at: 0, cost: 2, allowed: true, estimate: Whole(0)},
			{at: 0, allowed: false, retry: 500, estimate: Whole(2)},
			{at: 499, allowed: false, retry: 1, estimate: frac(1002, 1000)},
			{at: 500, allowed: true, estimate: Whole(1)},
			{at: 1500, cost: 2, allowed: true, estimate: Whole(0)},
		},
	},
	{
		// 3 per 1000 ms: a permit every 333⅓ ms, rounded up to 334.
		name: "retry is the ceiling of an exact refill",
		p:    Params{Limit: 3, WindowMs: 1000, Burst: 1},
		steps: []step{
			{at: 0, allowed: true},
			{at: 0, allowed: false, retry: 334},
			{at: 333, allowed: false, retry: 1, estimate: frac(1, 1000)},
			{at: 334, allowed: true},
		},
	},
	{
		name: "burst above limit, cost above burst never",
		p:    Params{Limit: 1, WindowMs: 1000, Burst: 5},
		steps: []step{
			{at: 0, cost: 6, never: true},
			{at: 0, cost: 5, allowed: true},
			{at: 10, cost: 6, never: true},
			{at: 10, cost: 2, allowed: false, retry: 1990},
		},
	},
}

func TestTokenBucket(t *testing.T) {
	late := bucketTest{
		name: "late request is decided at the latest instant",
		p:    Params{Limit: 1, WindowMs: 1000},
		steps: []step{
			{at: 1000, allowed: true},
			{at: 500, allowed: false, late: true, retry: 1500},
			{at: 2000, allowed: true},
		},
	}
	for _, tt := range append(bucketTests, late) {
		t.Run(tt.name, func(t *testing.T) {
			run(t, mustNew(t, TokenBucket, tt.p), tt.steps)
		})
	}
}

func TestTokenBucketTokens(t *testing.T) {
	pol := mustNew(t, TokenBucket, Params{Limit: 4, WindowMs: 1000, Burst: 8})
	if d := pol.Decide(1, 100, 3); d.Terms.TokenBucket().Tokens != frac(8000, 1000) || d.Capacity != 8 {
		t.Errorf("first Decide: tokens %v capacity %d, want 8000/1000 and 8", d.Terms.TokenBucket().Tokens, d.Capacity)
	}
	s := pol.Snapshot(1, 350) // 5 tokens + 250 ms * 4/1000 = 6
	if s.Held.(TokenBucketHeld).Tokens != frac(6000, 1000) || s.Estimate != frac(2000, 1000) {
		t.Errorf("Snapshot(1, 350) = %+v, want tokens 6 and 2 in use", s)
	}
	if got, want := stateStats(pol), (Stats{Keys: 1, Entries: 2, BytesPerKey: 16}); got != want {
		t.Errorf("Stats() = %+v, want %+v", got, want)
	}
}

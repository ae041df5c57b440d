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
	registerCase(GCRA, policyCase{
		ruleDomain: domain,
		checkRule: func(t *testing.T, label string, p Params) int {
			return checkRuleCopies(t, label, p, flatCase(NewGCRARule))
		},
	})
}

func TestGCRA(t *testing.T) {
	// gcra decides a late request at its own instant: the TAT (2000 after
	// the first request) has not moved back, so at 500 the request needs
	// 3000 - 500 = 2500 > 1000 and must wait until 2000, like token-bucket,
	// but without being told it was late.
	late := bucketTest{
		name: "late request is decided at its own instant",
		p:    Params{Limit: 1, WindowMs: 1000},
		steps: []step{
			{at: 1000, allowed: true},
			{at: 500, allowed: false, retry: 1500},
			{at: 1999, allowed: false, retry: 1},
			{at: 2000, allowed: true},
		},
	}
	for _, tt := range append(bucketTests, late) {
		t.Run(tt.name, func(t *testing.T) {
			run(t, mustNew(t, GCRA, tt.p), tt.steps)
		})
	}
}

func TestGCRATAT(t *testing.T) {
	// 3 per 1000 ms: the emission interval is 333⅓ ms, kept exact as
	// 1000 units of 1/3 ms.
	pol := mustNew(t, GCRA, Params{Limit: 3, WindowMs: 1000})
	d := pol.Decide(1, 100, 1)
	if d.Terms.GCRA().TAT != frac(300, 3) {
		t.Errorf("first Decide: TAT = %v, want 300/3 (= now, 100 ms)", d.Terms.GCRA().TAT)
	}
	d = pol.Decide(1, 100, 1)
	if d.Terms.GCRA().TAT != frac(1300, 3) {
		t.Errorf("second Decide: TAT = %v, want 1300/3 (100 + 333⅓ ms)", d.Terms.GCRA().TAT)
	}
	s := pol.Snapshot(1, 200)
	if s.Held.(GCRAHeld).TAT != frac(2300, 3) || s.Estimate != frac(2300-600, 1000) {
		t.Errorf("Snapshot(1, 200) = %+v, want TAT 2300/3 and 1700/1000 in use", s)
	}
	if got, want := stateStats(pol), (Stats{Keys: 1, Entries: 1, BytesPerKey: 8}); got != want {
		t.Errorf("Stats() = %+v, want %+v", got, want)
	}
}

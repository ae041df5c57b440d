package policies

import (
	"math/rand/v2"
	"testing"

	"github.com/windowlab/playground/internal/benchload"
)

// TestMapFixedWindowAgreesWithPolicy keeps the baseline (benchload.MapFixedWindow) honest: on forward
// traffic it must decide exactly as the fixed-window policy does, or the
// benchmarks would compare different work.
func TestMapFixedWindowAgreesWithPolicy(t *testing.T) {
	r := rand.New(rand.NewPCG(propertySeed, 11))
	p := Params{Limit: 5, WindowMs: 1000}
	pol := mustNew(t, FixedWindow, p)
	base := benchload.NewMapFixedWindow(p.Limit, p.WindowMs)
	now := int64(0)
	for i := range 20000 {
		now += r.Int64N(300)
		key, cost := Key(r.IntN(8)), 1+r.Int64N(p.Limit)
		d := pol.Decide(key, now, cost)
		allowed, retry, count := base.Allow(key, now, cost)
		if allowed != d.Allowed || retry != d.RetryAfterMs || count != d.Estimate.Num {
			t.Fatalf("step %d: key %d at %d cost %d: baseline (allowed %v, retry %d, count %d), policy (allowed %v, retry %d, count %d)",
				i, key, now, cost, allowed, retry, count, d.Allowed, d.RetryAfterMs, d.Estimate.Num)
		}
	}
}

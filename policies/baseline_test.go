package policies

import (
	"math/rand/v2"
	"testing"
)

// mapFixedWindow is the limiter a Go engineer would write without this
// package: a fixed window in a plain map, one entry per key holding the
// window's start and its count. The benchmarks time every policy beside it
// in the same binary, so "faster than the obvious code" is measured, not
// claimed. It takes the same uint64 keys as the policies (a string-keyed map
// would also have to hash and compare the string, which only makes it
// slower).
type mapFixedWindow struct {
	limit, windowMs int64
	keys            map[Key]mapFixedWindowEntry
}

type mapFixedWindowEntry struct {
	count, start int64
}

func newMapFixedWindow(limit, windowMs int64) *mapFixedWindow {
	return &mapFixedWindow{limit: limit, windowMs: windowMs, keys: map[Key]mapFixedWindowEntry{}}
}

// Allow admits a request of cost at now (never earlier than the key's last
// now) and, when it refuses, says how long until the window turns. count is
// the key's count before the request, which the dependent benchmarks chain
// on.
func (m *mapFixedWindow) Allow(key Key, now, cost int64) (allowed bool, retryAfterMs, count int64) {
	start := now - now%m.windowMs
	e := m.keys[key]
	if e.start != start {
		e = mapFixedWindowEntry{start: start}
	}
	if e.count+cost > m.limit {
		return false, start + m.windowMs - now, e.count
	}
	count = e.count
	e.count += cost
	m.keys[key] = e
	return true, 0, count
}

// TestMapFixedWindowAgreesWithPolicy keeps the baseline honest: on forward
// traffic it must decide exactly as the fixed-window policy does, or the
// benchmarks would compare different work.
func TestMapFixedWindowAgreesWithPolicy(t *testing.T) {
	r := rand.New(rand.NewPCG(propertySeed, 11))
	p := Params{Limit: 5, WindowMs: 1000}
	pol := mustNew(t, FixedWindow, p)
	base := newMapFixedWindow(p.Limit, p.WindowMs)
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

package scenario

import (
	"fmt"

	"github.com/windowlab/playground/policies"
)

// CacheLineBytes is the size of the cache line a ring's state should fit,
// as on x86-64 and most ARM64 processors.
const CacheLineBytes = 64

// BytesPerKey is the memory one key's state takes under the policy,
// counted the way the lessons teach it: every number the policy tracks for
// the key (Stats.Entries) at 8 bytes each. It asks the real policy, built
// with the limit and window given, after one decision for one key.
func BytesPerKey(spec PolicySpec, limit, windowMs int64) (int64, error) {
	s := Scenario{Limit: limit, WindowMs: windowMs}
	p, err := policies.New(spec.Name, spec.Params(s))
	if err != nil {
		return 0, err
	}
	p.Decide(1, 0, 1)
	return p.Stats().Entries * 8, nil
}

// CacheLineBuckets is the largest k whose sub-buckets divide the window
// into whole milliseconds and whose ring, with its bookkeeping, fits one
// cache line per key. The state grows with k, so the search stops at the
// first k that no longer fits; fit reports each k tried, with its bytes,
// for a caller that explains the answer (nil for none).
func CacheLineBuckets(windowMs int64, fit func(k, bytes int64)) (int64, error) {
	best := int64(0)
	for k := int64(1); k <= windowMs; k++ {
		per, err := BytesPerKey(PolicySpec{Name: policies.SlidingBuckets, Buckets: k}, 1, windowMs-windowMs%k)
		if err != nil {
			return 0, err
		}
		if fit != nil {
			fit(k, per)
		}
		if per > CacheLineBytes {
			break
		}
		if windowMs%k == 0 {
			best = k
		}
	}
	if best == 0 {
		return 0, fmt.Errorf("no ring fits %d bytes", CacheLineBytes)
	}
	return best, nil
}

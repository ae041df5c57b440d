package policies

import "fmt"

// MaxBuckets bounds Params.Buckets for sliding-buckets: each key holds
// Buckets+1 slots, and a refused request's retryAfter walks them once.
const MaxBuckets = 1024

// newPolicy validates p for the named policy and builds it. Parameters a
// policy does not use are not checked. The policy's Params() reports the
// normalised values: Arithmetic "" becomes Floor, Burst 0 becomes Limit.
func newPolicy(name string, p Params) (Policy, error) {
	switch name {
	case FixedWindow, SlidingLog, SlidingCounter, SlidingBuckets, TokenBucket, GCRA:
	default:
		return nil, fmt.Errorf("policies: unknown policy %q (want one of %v)", name, Names)
	}
	if p.Limit < 1 || p.Limit > MaxLimit {
		return nil, fmt.Errorf("policies: %s: limit %d is out of range [1, %d]", name, p.Limit, MaxLimit)
	}
	if p.WindowMs < 1 || p.WindowMs > MaxWindowMs {
		return nil, fmt.Errorf("policies: %s: windowMs %d is out of range [1, %d]", name, p.WindowMs, int64(MaxWindowMs))
	}
	switch name {
	case FixedWindow:
		return newFixedWindow(p), nil
	case SlidingLog:
		return newSlidingLog(p), nil
	case SlidingCounter:
		switch p.Arithmetic {
		case "":
			p.Arithmetic = Floor
		case Floor, Exact:
		default:
			return nil, fmt.Errorf("policies: %s: arithmetic %q is neither %q nor %q", name, p.Arithmetic, Floor, Exact)
		}
		return newSlidingCounter(p), nil
	case SlidingBuckets:
		if p.Buckets < 1 || p.Buckets > MaxBuckets {
			return nil, fmt.Errorf("policies: %s: buckets %d is out of range [1, %d]", name, p.Buckets, MaxBuckets)
		}
		if p.WindowMs%p.Buckets != 0 {
			return nil, fmt.Errorf("policies: %s: windowMs %d is not a multiple of buckets %d", name, p.WindowMs, p.Buckets)
		}
		return newSlidingBuckets(p), nil
	default: // TokenBucket, GCRA
		if p.Burst < 0 || p.Burst > MaxLimit {
			return nil, fmt.Errorf("policies: %s: burst %d is out of range [0, %d]", name, p.Burst, MaxLimit)
		}
		if p.Burst == 0 {
			p.Burst = p.Limit
		}
		if name == TokenBucket {
			return newTokenBucket(p), nil
		}
		return newGCRA(p), nil
	}
}

package policies

import "fmt"

// MaxBuckets bounds Params.Buckets for sliding-buckets: each key holds
// Buckets+1 slots, and a refused request's retryAfter walks them once.
const MaxBuckets = 1024

// newPolicy validates p for the named policy and builds it. Parameters a
// policy does not use are not checked. The policy's Params() reports the
// normalised values: Arithmetic "" becomes Floor, Burst 0 becomes Limit.
func newPolicy(name string, p Params) (Policy, error) {
	info, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("policies: unknown policy %q (want one of %v)", name, Names)
	}
	if p.Limit < 1 || p.Limit > MaxLimit {
		return nil, fmt.Errorf("policies: %s: limit %d is out of range [1, %d]", name, p.Limit, MaxLimit)
	}
	if p.WindowMs < 1 || p.WindowMs > MaxWindowMs {
		return nil, fmt.Errorf("policies: %s: windowMs %d is out of range [1, %d]", name, p.WindowMs, int64(MaxWindowMs))
	}
	for _, o := range info.Options {
		if err := o.normalise(name, &p); err != nil {
			return nil, err
		}
	}
	return info.make(p), nil
}

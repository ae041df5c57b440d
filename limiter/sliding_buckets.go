package limiter

import "github.com/windowlab/playground/policies"

// The forms of sliding-buckets as a service runs them, both registered
// below: its concurrent form is a slot table of its rule's state; its Redis
// form, its script, redis/sliding_buckets.lua, keeps the ring of sub-bucket
// counts.
var slidingBucketsRedis = redisForm{
	name:       policies.SlidingBuckets,
	args:       func(p policies.Params) []any { return []any{p.Buckets} },
	estDen:     func(p policies.Params) int64 { return p.WindowMs / p.Buckets },
	multiplies: true,
}

func init() {
	registerRedis(slidingBucketsRedis)
	registerSlots(policies.SlidingBuckets, policies.NewSlidingBucketsRule)
}

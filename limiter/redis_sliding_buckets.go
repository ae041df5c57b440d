package limiter

import "github.com/windowlab/playground/policies"

// The Redis form of sliding-buckets: its script, redis/sliding_buckets.lua, keeps
// the ring of sub-bucket counts.
var slidingBucketsRedis = redisForm{
	name:       policies.SlidingBuckets,
	args:       func(p policies.Params) []any { return []any{p.Buckets} },
	estDen:     func(p policies.Params) int64 { return p.WindowMs / p.Buckets },
	multiplies: true,
}

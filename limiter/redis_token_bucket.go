package limiter

import "github.com/windowlab/playground/policies"

// The Redis form of token-bucket: its script, redis/token_bucket.lua, keeps
// the tokens and the instant they were counted.
var tokenBucketRedis = redisForm{
	name:       policies.TokenBucket,
	args:       func(p policies.Params) []any { return []any{p.Burst} },
	capacity:   func(p policies.Params) int64 { return p.Burst },
	estDen:     func(p policies.Params) int64 { return p.WindowMs },
	multiplies: true,
}

package limiter

import "github.com/windowlab/playground/policies"

// The forms of token-bucket as a service runs them, both registered below:
// its concurrent form is a slot table of its rule's state; its Redis form,
// its script, redis/token_bucket.lua, keeps the tokens and the instant they
// were counted.
var tokenBucketRedis = redisForm{
	name:       policies.TokenBucket,
	args:       func(p policies.Params) []any { return []any{p.Burst} },
	capacity:   func(p policies.Params) int64 { return p.Burst },
	estDen:     func(p policies.Params) int64 { return p.WindowMs },
	multiplies: true,
}

func init() {
	registerRedis(tokenBucketRedis)
	registerSlots(policies.TokenBucket, policies.NewTokenBucketRule)
}

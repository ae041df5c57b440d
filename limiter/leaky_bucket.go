package limiter

import "github.com/windowlab/playground/policies"

// The forms of leaky-bucket as a service runs them, both registered below:
// its concurrent form is a slot table of its rule's state; its Redis form,
// its script, redis/leaky_bucket.lua, keeps the level and the instant it
// was computed at, as the Go policy does, and replies with the admitted
// request's wait in the queue.
var leakyBucketRedis = redisForm{
	name:       policies.LeakyBucket,
	args:       func(p policies.Params) []any { return []any{p.Queue(), p.Delay} },
	capacity:   func(p policies.Params) int64 { return p.Queue() + 1 },
	estDen:     func(p policies.Params) int64 { return p.WindowMs },
	multiplies: true,
	delays:     true,
}

func init() {
	registerRedis(leakyBucketRedis)
	registerSlots(policies.LeakyBucket, policies.NewLeakyBucketRule)
}

package limiter

import "github.com/windowlab/playground/policies"

// The forms of stepped-bucket as a service runs them, both registered
// below: its concurrent form is a slot table of its rule's state; its Redis
// form, its script, redis/stepped_bucket.lua, keeps the tokens in use and
// the instant they were counted.
var steppedBucketRedis = redisForm{
	name:     policies.SteppedBucket,
	args:     func(p policies.Params) []any { return []any{p.Burst} },
	capacity: func(p policies.Params) int64 { return p.Burst },
}

func init() {
	registerRedis(steppedBucketRedis)
	registerSlots(policies.SteppedBucket, policies.NewSteppedBucketRule)
}

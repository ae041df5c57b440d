package limiter

import "github.com/windowlab/playground/policies"

// The forms of sliding-log as a service runs them, both registered below:
// its concurrent form is a slot table of its rule's state; its Redis form,
// its script, redis/sliding_log.lua, keeps the log of admitted instants.
var slidingLogRedis = redisForm{name: policies.SlidingLog}

func init() {
	registerRedis(slidingLogRedis)
	registerSlots(policies.SlidingLog, policies.NewSlidingLogRule)
}

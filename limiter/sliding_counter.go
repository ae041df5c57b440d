package limiter

import "github.com/windowlab/playground/policies"

// The forms of sliding-counter as a service runs them, both registered
// below: its concurrent form is a slot table of its rule's state; its Redis
// form, its script, redis/sliding_counter.lua, keeps the two windows'
// counts, floor or exact.
var slidingCounterRedis = redisForm{
	name: policies.SlidingCounter,
	args: func(p policies.Params) []any { return []any{string(p.Arithmetic)} },
	estDen: func(p policies.Params) int64 {
		if p.Arithmetic == policies.Exact {
			return p.WindowMs
		}
		return 1
	},
	multiplies: true,
}

func init() {
	registerRedis(slidingCounterRedis)
	registerSlots(policies.SlidingCounter, policies.NewSlidingCounterRule)
}

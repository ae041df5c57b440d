package limiter

import "github.com/windowlab/playground/policies"

// The forms of fixed-window as a service runs them, both registered below:
// its concurrent form is a slot table of its rule's state; its Redis form,
// its script, redis/fixed_window.lua, keeps a count per window.
var fixedWindowRedis = redisForm{name: policies.FixedWindow}

func init() {
	registerRedis(fixedWindowRedis)
	registerSlots(policies.FixedWindow, policies.NewFixedWindowRule)
}

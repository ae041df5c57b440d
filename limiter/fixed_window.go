package limiter

import "github.com/windowlab/playground/policies"

// The forms of fixed-window as a service runs them: its concurrent form is
// a slot table of its rule's state (registered below); its Redis form, its
// script, redis/fixed_window.lua, keeps a count per window.
var fixedWindowRedis = redisForm{name: policies.FixedWindow}

func init() { registerSlots(policies.FixedWindow, (*policies.FixedWindowRule)(nil)) }

package limiter

import "github.com/windowlab/playground/policies"

// The Redis form of fixed-window: its script, redis/fixed_window.lua, keeps
// a count per window.
var fixedWindowRedis = redisForm{name: policies.FixedWindow}

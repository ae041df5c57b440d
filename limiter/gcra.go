package limiter

import "github.com/windowlab/playground/policies"

// The forms of gcra as a service runs them, both registered below: its
// concurrent form is a slot table of its rule's state; its Redis form, its
// script, redis/gcra.lua, keeps the theoretical arrival time, as whole ms
// and a remainder.
var gcraRedis = redisForm{
	name:       policies.GCRA,
	args:       func(p policies.Params) []any { return []any{p.Burst} },
	capacity:   func(p policies.Params) int64 { return p.Burst },
	estDen:     func(p policies.Params) int64 { return p.WindowMs },
	multiplies: true,
	wholeMs:    true,
}

func init() {
	registerRedis(gcraRedis)
	registerSlots(policies.GCRA, policies.NewGCRARule)
}

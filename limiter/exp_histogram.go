package limiter

import "github.com/windowlab/playground/policies"

// The forms of exp-histogram as a service runs them, both registered below:
// its concurrent form is a slot table of its rule's state; its Redis form,
// its script, redis/exp_histogram.lua, keeps the buckets level by level.
var expHistogramRedis = redisForm{
	name: policies.ExpHistogram,
	args: func(p policies.Params) []any { return []any{p.Buckets} },
}

func init() {
	registerRedis(expHistogramRedis)
	registerSlots(policies.ExpHistogram, policies.NewExpHistogramRule)
}

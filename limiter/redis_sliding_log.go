package limiter

import "github.com/windowlab/playground/policies"

// The Redis form of sliding-log: its script, redis/sliding_log.lua, keeps
// the log of admitted instants.
var slidingLogRedis = redisForm{name: policies.SlidingLog}

-- leaky-bucket: the value is "latest level", the level in 1/windowMs of a
-- permit, the one being served counted (nginx's excess + 1); ARGV[4]
-- limit, ARGV[5] windowMs, ARGV[6] burst, ARGV[7] delay (NoDelay already
-- made the burst). The reply carries the admitted request's wait sixth.
local limit, w, burst, delay = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local capacity = (burst + 1) * w
local latest, level = pair()
local at = max(now, latest)
-- The drain limit*(at-latest) may pass 2^53; compare the elapsed time
-- with the time to drain instead, as token-bucket does.
if at - latest >= math.ceil(level / limit) then level = 0 else level = level - limit * (at - latest) end
if cost < 1 or cost > burst + 1 then return {2, now, at, 0, level, 0} end
local after = level + cost * w
-- A refusal leaves the bucket as it was, so nothing is written.
if after > capacity then return {0, now, at, at + math.ceil((after - capacity) / limit) - now, level, 0} end
local wait = 0
local over = after - (delay + 1) * w
if over > 0 then wait = math.ceil(over / limit) end
-- The state matters until the bucket has drained.
redis.call('SET', key, string.format('%d %d', at, after), 'PX', math.ceil(after / limit) + pad)
return {1, now, at, 0, level, wait}

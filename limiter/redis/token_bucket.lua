-- token-bucket: the value is "latest used", used in 1/windowMs of a permit;
-- ARGV[4] limit, ARGV[5] windowMs, ARGV[6] burst.
local limit, w, burst = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local capacity = burst * w
local latest, used = pair()
local at = max(now, latest)
-- The refill limit*(at-latest) may pass 2^53; compare the elapsed time
-- with the time to drain instead.
if at - latest >= math.ceil(used / limit) then used = 0 else used = used - limit * (at - latest) end
if cost < 1 or cost > burst then return {2, now, at, 0, used} end
local code, retry, after = 0, 0, used
local missing = used + cost * w - capacity
if missing <= 0 then
  code, after = 1, used + cost * w
else
  retry = at + math.ceil(missing / limit) - now
end
-- The state matters until the bucket is full again.
redis.call('SET', key, string.format('%d %d', at, after), 'PX', math.ceil(after / limit) + pad)
return {code, now, at, retry, used}

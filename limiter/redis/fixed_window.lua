-- fixed-window: the value is "latest count"; ARGV[4] limit, ARGV[5] windowMs.
local limit, w = tonumber(ARGV[4]), tonumber(ARGV[5])
local latest, count = pair()
local at = max(now, latest)
local start = at - at % w
if latest < start then count = 0 end
if cost < 1 or cost > limit then return {2, now, at, 0, count} end
local code, retry, after = 0, start + w - now, count
if count + cost <= limit then code, retry, after = 1, 0, count + cost end
-- The count matters until its window ends.
redis.call('SET', key, string.format('%d %d', at, after), 'PX', start + w - at + pad)
return {code, now, at, retry, count}

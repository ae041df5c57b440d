-- stepped-bucket: the value is "latest used", used in whole tokens;
-- ARGV[4] limit (tokens per fill), ARGV[5] windowMs (the fill interval),
-- ARGV[6] burst (max tokens). A fill of limit tokens arrives at each
-- multiple of windowMs.
local limit, w, burst = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local latest, used = pair()
local at = max(now, latest)
local start = at - at % w
local fills = (start - (latest - latest % w)) / w
-- fills*limit may pass 2^53; compare the fills with those that empty the
-- deficit instead.
if fills >= math.ceil(used / limit) then used = 0 else used = used - limit * fills end
if cost < 1 or cost > burst then return {2, now, at, 0, used} end
local code, retry, after = 0, 0, used
if used + cost <= burst then
  code, after = 1, used + cost
else
  retry = start + math.ceil((used + cost - burst) / limit) * w - now
end
-- The state matters until the fill that makes the bucket full again.
redis.call('SET', key, string.format('%d %d', at, after), 'PX', start + math.ceil(after / limit) * w - at + pad)
return {code, now, at, retry, used}

-- sliding-counter: the value is "latest previous current"; ARGV[4] limit,
-- ARGV[5] windowMs, ARGV[6] 'exact' or 'floor'.
local limit, w, exact = tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6] == 'exact'
local latest, prev, cur = 0, 0, 0
local v = redis.call('GET', key)
if v then
  local a, b, c = string.match(v, '^(%d+) (%d+) (%d+)$')
  latest, prev, cur = tonumber(a), tonumber(b), tonumber(c)
end
local at = max(now, latest)
local start = at - at % w
if latest < start - w then prev, cur = 0, 0
elseif latest < start then prev, cur = cur, 0 end
local e = at - start
local est = prev * (w - e) + cur * w
if not exact then est = floor(prev * (w - e) / w) + cur end
if cost < 1 or cost > limit then return {2, now, at, 0, est} end
-- first is the smallest elapsed at which p*(w-elapsed), weighted, fits in
-- room, or w+1 when nothing does.
local function first(p, room)
  if room < 0 then return w + 1 end
  if p == 0 then return 0 end
  local bound = room * w
  if not exact then bound = (room + 1) * w - 1 end
  return max(0, w - floor(bound / p))
end
local code, retry = 0, 0
local f = first(prev, limit - cur - cost)
if f <= e then
  code, cur = 1, cur + cost
else
  local at2 = start + f
  if f >= w then
    at2 = start + 2 * w
    local f2 = first(cur, limit - cost)
    if f2 < w then at2 = start + w + f2 end
  end
  retry = at2 - now
end
-- The current count still weighs in the next window.
redis.call('SET', key, string.format('%d %d %d', at, prev, cur), 'PX', start + 2 * w - at + pad)
return {code, now, at, retry, est}

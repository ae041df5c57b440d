-- sliding-buckets: a hash of the newest bucket 'n', the running total 't'
-- and the nonzero slots, field i for ring position i (bucket x is at
-- x mod k+1); ARGV[4] limit, ARGV[5] windowMs, ARGV[6] k.
local limit, k = tonumber(ARGV[4]), tonumber(ARGV[6])
local width, n = tonumber(ARGV[5]) / k, k + 1
local h = redis.call('HMGET', key, 'n', 't')
local newest, total = tonumber(h[1]) or 0, tonumber(h[2]) or 0
local own = floor(now / width)
local function slot(x) return tonumber(redis.call('HGET', key, x % n)) or 0 end
if cost < 1 or cost > limit then
  -- Estimated where the request would be, changing nothing.
  local b, e = own, now % width
  if b < newest then b, e = newest, 0 end
  local rest, oldest = total, 0
  for x = newest - k, min(b - k, newest) do rest = rest - slot(x) end
  if b - k <= newest then oldest = slot(b - k) end
  return {2, now, b * width + e, 0, rest * width + oldest * (width - e)}
end
-- Move the ring to the request's bucket, dropping the buckets that left.
if own - newest >= n then
  redis.call('DEL', key)
  newest, total = own, 0
elseif own > newest then
  for x = newest + 1, own do
    total = total - slot(x)
    redis.call('HDEL', key, x % n)
  end
  newest = own
end
local b, e = newest, 0
if own == b then e = now % width end
local oldest = slot(b - k)
local rest = total - oldest
-- first is the smallest elapsed in a bucket at which the oldest slot p,
-- weighted, fits in room, or width+1 when nothing does.
local function first(p, room)
  if room < 0 then return width + 1 end
  if p == 0 then return 0 end
  return max(0, width - floor(room * width / p))
end
local code, retry = 0, 0
local est = rest * width + oldest * (width - e)
local fits = first(oldest, limit - rest - cost) <= e
if fits and own > b - k then
  code, total = 1, total + cost
  redis.call('HINCRBY', key, own % n, cost)
elseif fits then
  -- Its own bucket no longer counts in full; the first that does admits.
  retry = (b - k + 1) * width - now
else
  -- Walk the buckets b … b+k with nothing else arriving.
  local at2 = (b + k + 1) * width
  local o, r = oldest, rest
  for j = 0, k do
    local f = first(o, limit - r - cost)
    if f < width then
      if j == 0 then f = max(f, e) end
      at2 = (b + j) * width + f
      break
    end
    if j < k then
      o = slot(b - k + j + 1)
      r = r - o
    end
  end
  retry = at2 - now
end
redis.call('HSET', key, 'n', newest, 't', total)
-- The newest bucket leaves the ring k+1 buckets after it began.
redis.call('PEXPIRE', key, (newest + n) * width - (b * width + e) + pad)
return {code, now, b * width + e, retry, est}

-- sliding-log: a list of the admitted permits' instants, oldest first, one
-- entry per permit, then the key's latest instant as its last element;
-- ARGV[4] limit, ARGV[5] windowMs.
local limit, w = tonumber(ARGV[4]), tonumber(ARGV[5])
local n = redis.call('LLEN', key)
local latest = 0
if n > 0 then latest = tonumber(redis.call('LINDEX', key, -1)) end
local at = max(now, latest)
local count = max(n - 1, 0)
local cutoff = at - w
local function entry(i) return tonumber(redis.call('LINDEX', key, i)) end
-- gone is how many of the oldest entries have left (at or before cutoff):
-- none or all cost one read each, the rest a binary search.
local gone = 0
if count > 0 and entry(0) <= cutoff then
  if entry(count - 1) <= cutoff then
    gone = count
  else
    local lo, hi = 1, count - 1 -- entry(lo-1) has left, entry(hi) has not
    while lo < hi do
      local mid = floor((lo + hi) / 2)
      if entry(mid) <= cutoff then lo = mid + 1 else hi = mid end
    end
    gone = lo
  end
end
count = count - gone
-- A cost that can never fit changes nothing, not even the entries that left:
-- a later request may come before this one's instant and still see them.
if cost < 1 or cost > limit then return {2, now, at, 0, count} end
if gone > 0 then redis.call('LPOP', key, gone) end
if count + cost <= limit then
  local stamps = cost
  if n > 0 then redis.call('LSET', key, -1, at) else stamps = cost + 1 end
  local batch = {}
  for i = 1, min(stamps, 1000) do batch[i] = at end
  while stamps > 0 do
    redis.call('RPUSH', key, unpack(batch, 1, min(stamps, 1000)))
    stamps = stamps - 1000
  end
  -- Every entry leaves within a window.
  redis.call('PEXPIRE', key, w + pad)
  return {1, now, at, 0, count}
end
local retry = entry(count + cost - limit - 1) + w - now
redis.call('LSET', key, -1, at)
-- The newest entry is the last to leave.
redis.call('PEXPIRE', key, entry(count - 1) + w - at + pad)
return {0, now, at, retry, count}

-- exp-histogram: the value is "latest", then for each level from the
-- largest size down, its bucket count and each bucket's "stamp size",
-- oldest first (as the Go rule's ring); ARGV[4] limit, ARGV[5] windowMs,
-- ARGV[6] k, the most buckets of one size.
local limit, w, k = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local levels, x = 0, 2 * limit
while x > 0 do levels, x = levels + 1, floor(x / 2) end
local lv = {} -- lv[i] = {{at, size}, ...}, i = 0 for size 1
for i = 0, levels - 1 do lv[i] = {} end
local latest = 0
local v = redis.call('GET', key)
if v then
  local nums, j = {}, 1
  for d in string.gmatch(v, '%d+') do nums[#nums + 1] = tonumber(d) end
  latest, j = nums[1], 2
  for i = levels - 1, 0, -1 do
    local n = nums[j]; j = j + 1
    for _ = 1, n do lv[i][#lv[i] + 1] = {nums[j], nums[j + 1]}; j = j + 2 end
  end
end
local at = max(now, latest)
local cutoff = at - w
-- The look-back's buckets, oldest first: the largest sizes are the oldest.
local function each(f)
  for i = levels - 1, 0, -1 do
    for _, b in ipairs(lv[i]) do
      if b[1] > cutoff and not f(b) then return end
    end
  end
end
local total, oldest, n = 0, nil, 0
each(function(b) if not oldest then oldest = b end; total = total + b[2]; n = n + 1; return true end)
local est = 0
if oldest then est = total - oldest[2] + floor((oldest[2] + 1) / 2) end
if cost < 1 or cost > limit then return {2, now, at, 0, est} end
-- Drop the buckets that left: the front of the largest levels.
for i = levels - 1, 0, -1 do
  while #lv[i] > 0 and lv[i][1][1] <= cutoff do table.remove(lv[i], 1) end
  if #lv[i] > 0 then break end
end
local code, retry = 0, 0
if est + cost <= limit then
  code = 1
  -- As cost ones arriving one at a time: a (k+1)-th bucket of a size
  -- merges the two oldest into one of the next size. New buckets of a
  -- level share the stamp at, so they are carried as a count.
  local up, carry = {}, cost
  for i = 0, levels - 1 do
    if carry == 0 and #up == 0 then break end
    local size = 2 ^ i
    local seq = {}
    for _, b in ipairs(lv[i]) do seq[#seq + 1] = b end
    for _, b in ipairs(up) do seq[#seq + 1] = b end
    local explicit = #seq
    local tot = explicit + carry
    local function el(j) if j <= explicit then return seq[j] end return {at, size} end
    if i == levels - 1 and tot > k then
      -- More than the top level was sized for (reports beyond the limit):
      -- the carried make one bucket, the oldest merge until k are left.
      if carry > 0 then seq[#seq + 1] = {at, carry * size} end
      while #seq > k do seq[2] = {seq[2][1], seq[1][2] + seq[2][2]}; table.remove(seq, 1) end
      lv[i] = seq
      break
    end
    if tot <= k then
      local keep = {}
      for j = 1, tot do keep[j] = el(j) end
      lv[i] = keep
      break
    end
    local m = floor((tot - (k - 1)) / 2)
    local nextUp, nextCarry = {}, 0
    for p = 0, m - 1 do
      local older, newer = el(2 * p + 1), el(2 * p + 2)
      if 2 * p + 2 <= explicit then
        nextUp[#nextUp + 1] = {newer[1], older[2] + newer[2]}
      else
        nextCarry = nextCarry + 1
      end
    end
    local keep = {}
    for j = 2 * m + 1, min(tot, explicit) do keep[#keep + 1] = el(j) end
    for _ = 1, tot - max(2 * m, explicit) do keep[#keep + 1] = {at, size} end
    lv[i] = keep
    up, carry = nextUp, nextCarry
  end
else
  -- The estimate falls only as buckets leave: the first bucket after
  -- whose leaving the estimate plus cost fits gives the retry.
  local left, leaving, when = 0, nil, nil
  each(function(b)
    if leaving and total - left - b[2] + floor((b[2] + 1) / 2) + cost <= limit then
      when = leaving[1] + w
      return false
    end
    leaving, left = b, left + b[2]
    return true
  end)
  if not when then when = leaving[1] + w end
  retry = when - now
end
local parts, newest = {string.format('%d', at)}, nil
for i = levels - 1, 0, -1 do
  parts[#parts + 1] = string.format('%d', #lv[i])
  for _, b in ipairs(lv[i]) do
    parts[#parts + 1] = string.format('%d %d', b[1], b[2])
    newest = b[1]
  end
end
if newest then
  -- The state matters until its newest bucket leaves.
  redis.call('SET', key, table.concat(parts, ' '), 'PX', max(newest + w - at, 1) + pad)
else
  redis.call('DEL', key)
end
return {code, now, at, retry, est}

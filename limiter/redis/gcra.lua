-- gcra: the value is "q r", the TAT q*limit + r in 1/limit ms (0 <= r <
-- limit), so that now*limit, which may pass 2^53, is never formed; ARGV[4]
-- limit, ARGV[5] windowMs, ARGV[6] burst. The estimate is returned as r and
-- q-now for Go to join, since it may pass 2^53 when now is far behind.
local limit, w, burst = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local capacity = burst * w
local q, r = pair()
if q < now then q, r = now, 0 end -- TAT = max(TAT, now*limit)
local dq, r0 = q - now, r
if cost < 1 or cost > burst then return {2, now, now, 0, r0, dq} end
-- dq*limit is formed only where it is small; beyond, the TAT alone is
-- past the tolerance.
if dq <= capacity / limit + 1 and dq * limit + r + cost * w <= capacity then
  r = r + cost * w
  q, r = q + floor(r / limit), r % limit
  local ttl = q - now
  if r > 0 then ttl = ttl + 1 end
  -- The TAT matters until it is behind the clock.
  redis.call('SET', key, string.format('%d %d', q, r), 'PX', ttl + pad)
  return {1, now, now, 0, r0, dq}
end
-- A refusal leaves the TAT as it was, so nothing is written.
return {0, now, now, q + math.ceil((r + cost * w - capacity) / limit) - now, r0, dq}

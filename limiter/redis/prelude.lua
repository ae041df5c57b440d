-- Shared opening of every policy's script (limiter/redis.go prepends it).
-- KEYS[1] is the client's one key. ARGV[1] is now in ms, or '' to read Redis
-- TIME; ARGV[2] the cost; ARGV[3] ms added to every TTL; the policy's own
-- settings follow. Lua numbers are doubles: NewRedis refuses settings whose
-- products could pass 2^53, so every number here is an exact integer and
-- math.floor of a quotient is the integer quotient.
local key = KEYS[1]
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local cost = tonumber(ARGV[2])
local pad = tonumber(ARGV[3])
local floor, max, min = math.floor, math.max, math.min
-- Every reply is {code, now, at, retryAfterMs, estimate...}; code 1 admits,
-- 0 refuses, 2 refuses a cost that can never fit.
--
-- The small states are strings of integers, written with %d (Lua's own
-- number format would print past 14 digits with an exponent) and read with
-- one string.match. pair reads the two-integer state "a b" that
-- fixed-window, token-bucket, gcra and leaky-bucket keep: a and b, or 0, 0
-- for a key not held.
local function pair()
  local v = redis.call('GET', key)
  if not v then return 0, 0 end
  local a, b = string.match(v, '^(%d+) (%d+)$')
  return tonumber(a), tonumber(b)
end

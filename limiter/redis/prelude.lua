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
-- The small states are strings of integers, written with %d (Lua's own
-- number format would print past 14 digits with an exponent) and read with
-- one string.match.
--
-- Every reply is {code, now, at, retryAfterMs, estimate...}; code 1 admits,
-- 0 refuses, 2 refuses a cost that can never fit.

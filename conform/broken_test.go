package conform_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/windowlab/playground/conform"
	"github.com/windowlab/playground/internal/redistest"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// bucket is a token bucket as a user might write one, taking the time as
// an argument, with switches for the bugs production limiters have
// shipped. Without any it is correct: it keeps what is in use in units of
// 1/windowMs of a permit, as the registry's token-bucket does.
type bucket struct {
	limit, windowMs, burst int64
	unitMs                 int64 // 1000: Retry-After in whole seconds, rounded up
	bugs                   bugs
	keys                   map[string]*bucketKey
}

type bugs struct {
	retryRoundedDown bool // Retry-After in whole seconds, rounded down
	refusedCounted   bool // a refused request still takes its permits
	floatTruncated   bool // the refill is a float truncated to whole permits
	burstOffByOne    bool // one permit more than the burst fits
	stepBackRefills  bool // a clock stepping back moves the bucket's instant back
}

type bucketKey struct {
	latest int64 // ms
	used   int64 // units of 1/windowMs permit
	tokens float64
}

func (b *bucket) decide(r conform.Request, at time.Time) conform.Answer {
	now := at.Sub(conform.T0).Milliseconds()
	k := b.keys[r.Key]
	if k == nil {
		k = &bucketKey{latest: now, tokens: float64(b.burst)}
		b.keys[r.Key] = k
	}
	capacity := b.burst * b.windowMs
	if b.bugs.burstOffByOne {
		capacity += b.windowMs
	}
	if b.bugs.floatTruncated {
		// Refill whole permits only, and forget the fraction.
		rate := float64(b.limit) / float64(b.windowMs)
		k.tokens = math.Min(float64(b.burst), k.tokens+math.Trunc(float64(max(now-k.latest, 0))*rate))
		k.latest = max(now, k.latest)
		if k.tokens >= float64(r.Cost) {
			k.tokens -= float64(r.Cost)
			return conform.Answer{Allowed: true}
		}
		return conform.Answer{RetryAfterMs: int64(math.Ceil((float64(r.Cost) - k.tokens) / rate))}
	}
	at2 := max(now, k.latest)
	if b.bugs.stepBackRefills {
		at2 = now
	}
	k.used = max(0, k.used-b.limit*max(at2-k.latest, 0))
	k.latest = at2
	need := k.used + r.Cost*b.windowMs
	if need <= capacity {
		k.used = need
		return conform.Answer{Allowed: true}
	}
	missing := need - capacity
	retry := at2 + (missing+b.limit-1)/b.limit - now
	if b.bugs.refusedCounted {
		k.used = need
	}
	if b.bugs.retryRoundedDown {
		retry = retry / 1000 * 1000
	} else if b.unitMs > 1 {
		retry = (retry + b.unitMs - 1) / b.unitMs * b.unitMs
	}
	return conform.Answer{RetryAfterMs: retry}
}

func bucketTarget(name string, unitMs int64, b bugs) conform.Target {
	return conform.Virtual(name, conform.RetryAfter, unitMs, func(p policies.Params) (conform.DecideFunc, error) {
		bk := &bucket{limit: p.Limit, windowMs: p.WindowMs, burst: p.Burst, unitMs: unitMs, bugs: b, keys: map[string]*bucketKey{}}
		return bk.decide, nil
	})
}

// maxCounterexample is the bound on a counterexample's size.
const maxCounterexample = 6

func TestCorrectBucketAgrees(t *testing.T) {
	for _, p := range []policies.Params{{Limit: 5, WindowMs: 1000}, {Limit: 3, WindowMs: 1000, Burst: 6}, {Limit: 7, WindowMs: 30_000, Burst: 2}} {
		conform.Check(t, bucketTarget("a correct token bucket", 1, bugs{}), policies.TokenBucket, p)
		conform.Check(t, bucketTarget("a correct token bucket in whole seconds", 1000, bugs{}), policies.TokenBucket, p)
	}
}

// TestBrokenAdaptersAreCaught: each bug class users met in production is
// found, shrunk to at most maxCounterexample requests.
func TestBrokenAdaptersAreCaught(t *testing.T) {
	p := policies.Params{Limit: 3, WindowMs: 1000}
	for _, tt := range []struct {
		name   string
		unitMs int64
		bugs   bugs
		field  string
	}{
		{"Retry-After rounded down", 1000, bugs{retryRoundedDown: true}, "retry-after"},
		{"refused requests counted", 1, bugs{refusedCounted: true}, ""},
		{"a float truncated", 1, bugs{floatTruncated: true}, ""},
		{"burst off by one", 1, bugs{burstOffByOne: true}, "allowed"},
		{"clock step back refilling twice", 1, bugs{stepBackRefills: true}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := conform.Run(context.Background(), bucketTarget(tt.name, tt.unitMs, tt.bugs), policies.TokenBucket, p)
			if err != nil {
				t.Fatal(err)
			}
			assertCaught(t, rep, tt.field)
		})
	}
}

// assertCaught checks that rep holds a counterexample of at most
// maxCounterexample requests whose last request differs in field, and
// logs it (the report lists the sizes).
func assertCaught(t *testing.T, rep conform.Report, field string) {
	t.Helper()
	c := rep.Counterexample
	if c == nil {
		t.Fatalf("%s: no difference found in %d scenarios", rep.Target, rep.Scenarios)
	}
	t.Logf("%s", rep.Text())
	if n := len(c.Steps); n > maxCounterexample {
		t.Errorf("counterexample of %d requests, want at most %d", n, maxCounterexample)
	}
	last := c.Steps[len(c.Steps)-1]
	found := false
	for _, d := range last.Diffs {
		found = found || strings.HasPrefix(d, field)
	}
	if !found || len(last.Diffs) == 0 {
		t.Errorf("the last request differs in %v, want %s", last.Diffs, field)
	}
	assertReplays(t, c)
}

// assertReplays checks that the counterexample's scenario JSON is one
// simulate accepts and that the policy decides it there as the kit said.
func assertReplays(t *testing.T, c *conform.Counterexample) {
	t.Helper()
	if c.StepsBack() {
		return // simulate refuses a clock that steps back, as Text says
	}
	s, err := scenario.ParseRun([]byte(c.Scenario()))
	if err != nil {
		t.Fatalf("the counterexample's scenario does not parse: %v\n%s", err, c.Scenario())
	}
	res, err := scenario.Run(s)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range res.Results[0].Decisions {
		want := c.Steps[i].Want.Decision
		if d.Detail.Allowed != want.Allowed || d.Detail.RetryAfterMs != want.RetryAfterMs {
			t.Errorf("simulate's step %d: allowed %t, retry-after %d ms; the kit's policy said %t, %d ms", i+1, d.Detail.Allowed, d.Detail.RetryAfterMs, want.Allowed, want.RetryAfterMs)
		}
	}
}

// A fixed window in Lua that keeps its count with the instant it expires
// (on the virtual clock, as Redis's own TTL would on the real one).
// Correct, the expiry is the end of the epoch-aligned window; broken, it
// is set again on every hit, so that a client that keeps knocking never
// sees its window end (apache/shenyu #6649).
const fixedWindowLua = `
local now, cost, limit, w = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local v = redis.call('GET', KEYS[1])
local count, expires = 0, 0
if v then count, expires = string.match(v, '^(%d+) (%d+)$'); count, expires = tonumber(count), tonumber(expires) end
if now >= expires then count = 0; expires = (math.floor(now / w) + 1) * w end
RESET_EVERY_HIT
if count + cost > limit then
  redis.call('SET', KEYS[1], string.format('%d %d', count, expires), 'PX', w)
  return {0, expires - now, limit - count}
end
count = count + cost
redis.call('SET', KEYS[1], string.format('%d %d', count, expires), 'PX', w)
return {1, 0, limit - count}
`

func TestRedisScriptTTLResetOnEveryHitIsCaught(t *testing.T) {
	srv := redistest.Start(t)
	rdb := srv.Client(t)
	p := policies.Params{Limit: 3, WindowMs: 1000}
	correct := conform.RedisScript("a fixed window in Lua", rdb, replace(fixedWindowLua, "RESET_EVERY_HIT", ""), conform.RetryAfter|conform.Remaining)
	conform.Check(t, correct, policies.FixedWindow, p)

	broken := conform.RedisScript("a fixed window whose TTL is set on every hit", rdb, replace(fixedWindowLua, "RESET_EVERY_HIT", "expires = now + w"), conform.RetryAfter|conform.Remaining)
	rep, err := conform.Run(context.Background(), broken, policies.FixedWindow, p)
	if err != nil {
		t.Fatal(err)
	}
	assertCaught(t, rep, "")
}

func replace(s, old, with string) string { return strings.Replace(s, old, with, 1) }

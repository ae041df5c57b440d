package limiter_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/windowlab/playground/internal/redistest"
	"github.com/windowlab/playground/limiter"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// redisClock is a clock a test sets.
type redisClock struct {
	mu  sync.Mutex
	now int64
}

func (c *redisClock) Now() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *redisClock) Set(t int64) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

func newRedisForm(t *testing.T, rdb redis.UniversalClient, name string, p policies.Params, opts limiter.RedisOptions) *limiter.Redis {
	t.Helper()
	r, err := limiter.NewRedis(rdb, name, p, opts)
	if err != nil {
		t.Fatalf("NewRedis(%s, %+v): %v", name, p, err)
	}
	return r
}

// TestRedisTTLIsThePolicys checks the TTL each write sets, on the caller's
// clock: the rest of the window (fixed-window), a window after the newest
// entry (sliding-log), the rest of two windows (sliding-counter), until the
// newest bucket leaves the ring (sliding-buckets), the time to drain
// (token-bucket, gcra, rounded up to a whole ms), each plus TTLPadMs.
func TestRedisTTLIsThePolicys(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	ctx := context.Background()
	p := policies.Params{Limit: 5, WindowMs: 1000}
	tests := []struct {
		name  string
		p     policies.Params
		steps [][2]int64 // at, cost
		pad   int64
		want  int64 // ms
	}{
		{policies.FixedWindow, p, [][2]int64{{10_300, 1}}, 0, 700},
		{policies.FixedWindow, p, [][2]int64{{10_300, 1}}, 5000, 5700},
		{policies.SlidingLog, p, [][2]int64{{10_300, 1}}, 0, 1000},
		// A refusal keeps the key until its newest entry leaves.
		{policies.SlidingLog, policies.Params{Limit: 1, WindowMs: 1000}, [][2]int64{{10_000, 1}, {10_400, 1}}, 0, 600},
		{policies.SlidingCounter, p, [][2]int64{{10_300, 1}}, 0, 1700},
		{policies.SlidingBuckets, policies.Params{Limit: 5, WindowMs: 1000, Buckets: 4}, [][2]int64{{10_300, 1}}, 0, 1200},
		{policies.TokenBucket, p, [][2]int64{{10_300, 2}}, 0, 400},
		{policies.GCRA, p, [][2]int64{{10_300, 2}}, 0, 400},
		{policies.GCRA, policies.Params{Limit: 3, WindowMs: 1000}, [][2]int64{{10_300, 1}}, 0, 334},
		{policies.LeakyBucket, p, [][2]int64{{10_300, 2}}, 0, 400},
		{policies.LeakyBucket, policies.Params{Limit: 3, WindowMs: 1000, Delay: policies.NoDelay}, [][2]int64{{10_300, 1}}, 250, 584},
		// A refusal writes nothing: the TTL is still the first write's
		// 2 s, not the 1.6 s a write at the refusal would leave.
		{policies.LeakyBucket, policies.Params{Limit: 1, WindowMs: 1000, Burst: 1}, [][2]int64{{10_000, 2}, {10_400, 1}}, 0, 2000},
	}
	for i, tc := range tests {
		clock := &redisClock{}
		r := newRedisForm(t, rdb, tc.name, tc.p, limiter.RedisOptions{Now: clock.Now, TTLPadMs: tc.pad, Prefix: "ttl" + string(rune('a'+i)) + ":"})
		// The TTL may come from any step's write (a refusal writes
		// nothing), so it has run down at most since the first.
		start := time.Now()
		for _, s := range tc.steps {
			clock.Set(s[0])
			if _, err := r.Decide(ctx, "k", s[1]); err != nil {
				t.Fatal(err)
			}
		}
		got := rdb.PTTL(ctx, r.Key("k")).Val().Milliseconds()
		since := time.Since(start).Milliseconds() + 1 // the TTL ran down this long at most
		if got > tc.want || got < tc.want-since {
			t.Errorf("%d %s: PTTL = %d ms, want %d ms less at most the %d ms since", i, tc.name, got, tc.want, since)
		}
	}
}

// TestEveryPolicyHasARedisForm: a policy added to package policies
// without a script fails here rather than quietly missing from the
// replays, the bench and the lessons' table.
func TestEveryPolicyHasARedisForm(t *testing.T) {
	if !slices.Equal(limiter.RedisNames(), policies.Names) {
		t.Fatalf("RedisNames = %v, want every policy: %v", limiter.RedisNames(), policies.Names)
	}
}

// TestRedisKeyCarriesHashTag: the one key a decision touches is the
// client key in braces, so Redis Cluster puts it in the key's slot.
func TestRedisKeyCarriesHashTag(t *testing.T) {
	r := newRedisForm(t, redis.NewClient(&redis.Options{}), policies.GCRA, policies.Params{Limit: 1, WindowMs: 1000}, limiter.RedisOptions{})
	if got, want := r.Key("user:7"), "wl:gcra:{user:7}"; got != want {
		t.Fatalf("Key = %q, want %q", got, want)
	}
}

func TestNewRedisRefusesBadSettings(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{})
	tests := []struct {
		name string
		p    policies.Params
		opts limiter.RedisOptions
		want string
	}{
		{policies.FixedWindow, policies.Params{Limit: 0, WindowMs: 1000}, limiter.RedisOptions{}, "limit 0 is out of range"},
		{"no-such-policy", policies.Params{Limit: 1, WindowMs: 1000}, limiter.RedisOptions{}, "unknown policy"},
		// The burst, not the limit, passes the bound: the message says
		// which product it measured.
		{policies.LeakyBucket, policies.Params{Limit: 1, WindowMs: 1 << 40, Burst: 1 << 12}, limiter.RedisOptions{}, "(max(limit, burst)+1) × windowMs = 4504699138998272 is above 2^51"},
		{policies.GCRA, policies.Params{Limit: 1 << 20, WindowMs: 1 << 40}, limiter.RedisOptions{}, "above 2^51"},
		{policies.FixedWindow, policies.Params{Limit: 1, WindowMs: 1000}, limiter.RedisOptions{TTLPadMs: -1}, "TTLPadMs -1 is negative"},
	}
	for i, tc := range tests {
		_, err := limiter.NewRedis(rdb, tc.name, tc.p, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%d: err = %v, want one containing %q", i, err, tc.want)
		}
	}
	// Sliding log and fixed window multiply nothing by a time, so any
	// settings policies.New takes are exact.
	if _, err := limiter.NewRedis(rdb, policies.SlidingLog, policies.Params{Limit: 1 << 20, WindowMs: 1 << 40}, limiter.RedisOptions{}); err != nil {
		t.Errorf("sliding-log at the policies' bounds: %v", err)
	}
}

// TestRedisServerTime decides on Redis's clock.
func TestRedisServerTime(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	ctx := context.Background()
	r := newRedisForm(t, rdb, policies.FixedWindow, policies.Params{Limit: 1, WindowMs: 60_000},
		limiter.RedisOptions{ServerTime: true, Now: func() int64 { panic("ServerTime read the caller's clock") }})
	before := time.Now().UnixMilli()
	d, err := r.Decide(ctx, "k", 1)
	if err != nil {
		t.Fatal(err)
	}
	after := time.Now().UnixMilli()
	if !d.Allowed || d.At < before-1000 || d.At > after+1000 {
		t.Fatalf("first: %+v, want allowed at Redis's now, near [%d, %d]", d, before, after)
	}
	v, err := r.Allow(ctx, "k", 1)
	if err != nil {
		t.Fatal(err)
	}
	if v.Allowed || v.RetryAfterMs < 1 || v.RetryAfterMs > 60_000 {
		t.Fatalf("second: %+v, want refused with a retry in (0, 60 s]", v)
	}
}

// TestRedisScriptFlushMidRun: after SCRIPT FLUSH the next decision, one at
// a time or in a batch, still works (EVALSHA's NOSCRIPT, then EVAL) and
// still agrees with Go.
func TestRedisScriptFlushMidRun(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	ctx := context.Background()
	for _, name := range limiter.RedisNames() {
		p := policies.Params{Limit: 3, WindowMs: 1000, Buckets: 4}
		pol, _ := policies.New(name, p)
		clock := &redisClock{}
		r := newRedisForm(t, rdb, name, p, limiter.RedisOptions{Now: clock.Now, TTLPadMs: replayPad})
		check := func(step int, got policies.Decision, at int64) {
			t.Helper()
			want := pol.Decide(scenario.KeyOf("k"), at, 1)
			want.Terms = policies.Terms{}
			if got != want {
				t.Fatalf("%s step %d: redis %+v, go %+v", name, step, got, want)
			}
		}
		for step := range 12 {
			if step%4 == 2 {
				if err := rdb.ScriptFlush(ctx).Err(); err != nil {
					t.Fatal(err)
				}
			}
			at := int64(step) * 150
			if step%2 == 0 {
				clock.Set(at)
				d, err := r.Decide(ctx, "k", 1)
				if err != nil {
					t.Fatalf("%s step %d: %v", name, step, err)
				}
				check(step, d, at)
			} else {
				ds, err := r.Batch(ctx, []limiter.RedisRequest{{Key: "k", At: at, Cost: 1}})
				if err != nil {
					t.Fatalf("%s step %d: %v", name, step, err)
				}
				check(step, ds[0], at)
			}
		}
	}
}

// TestRedisServerGoneIsAnError: with the server stopped, every call
// returns an error and a zero verdict, never a decision Redis did not make.
func TestRedisServerGoneIsAnError(t *testing.T) {
	srv := redistest.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, MaxRetries: -1, DialerRetries: 1, DialerRetryTimeout: time.Millisecond})
	t.Cleanup(func() { _ = rdb.Close() })
	ctx := context.Background()
	for _, name := range limiter.RedisNames() {
		r := newRedisForm(t, rdb, name, policies.Params{Limit: 3, WindowMs: 1000, Buckets: 2}, limiter.RedisOptions{})
		if v, err := r.Allow(ctx, "k", 1); err != nil || !v.Allowed {
			t.Fatalf("%s before the stop: %+v, %v; want allowed", name, v, err)
		}
	}
	srv.Stop()
	for _, name := range limiter.RedisNames() {
		r := newRedisForm(t, rdb, name, policies.Params{Limit: 3, WindowMs: 1000, Buckets: 2}, limiter.RedisOptions{})
		v, err := r.Allow(ctx, "k", 1)
		if err == nil || v != (policies.Verdict{}) {
			t.Errorf("%s Allow: %+v, %v; want an error and a zero verdict", name, v, err)
		}
		if d, err := r.Decide(ctx, "k", 1); err == nil || d != (policies.Decision{}) {
			t.Errorf("%s Decide: %+v, %v; want an error and a zero decision", name, d, err)
		}
		if ds, err := r.Batch(ctx, []limiter.RedisRequest{{Key: "k", At: 5, Cost: 1}}); err == nil || ds != nil {
			t.Errorf("%s Batch: %v, %v; want an error and no decisions", name, ds, err)
		}
	}
}

// TestRedisDeadlineIsAnError: on a client that lets the context bound a
// call (go-redis's ContextTimeoutEnabled, which docs/redis.md tells a
// service to set), a Redis that does not answer within the deadline is an
// error and a zero verdict, not a wait for the decision.
//
// Redis is kept from answering by CLIENT PAUSE, whose OK says the pause is
// in force, for thirty times the deadline; the test then waits on Redis
// itself for the pause to end. (A busy Lua script, as before, ran as long
// as the machine's load made it: past the helper client's read timeout,
// whose retry Redis refused with BUSY. CLIENT UNPAUSE is no way out early:
// on Redis 7.0 it was at times held behind the pause it would end.)
func TestRedisDeadlineIsAnError(t *testing.T) {
	const deadline, pause = 100 * time.Millisecond, 3 * time.Second
	srv := redistest.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, ContextTimeoutEnabled: true, MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	r := newRedisForm(t, rdb, policies.GCRA, policies.Params{Limit: 10, WindowMs: 60_000}, limiter.RedisOptions{})
	if v, err := r.Allow(context.Background(), "k", 1); err != nil || !v.Allowed {
		t.Fatalf("before: %+v, %v; want allowed", v, err)
	}
	if err := srv.Client(t).Do(context.Background(), "CLIENT", "PAUSE", pause.Milliseconds(), "ALL").Err(); err != nil {
		t.Fatalf("CLIENT PAUSE: %v", err)
	}
	paused := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	v, err := r.Allow(ctx, "k", 1)
	if waited := time.Since(paused); waited >= pause {
		t.Fatalf("Allow returned %v after the pause began, when the pause had ended; the deadline was not what stopped it", waited)
	}
	if err == nil || v != (policies.Verdict{}) {
		t.Fatalf("Allow past its deadline while Redis is paused: %+v, %v; want an error and a zero verdict", v, err)
	}
	// The same form answers again once Redis does: the deadline cost one
	// call, not the form. Its context outlasts the pause by far.
	ctx, cancel = context.WithTimeout(context.Background(), 10*pause)
	defer cancel()
	if v, err := r.Allow(ctx, "k", 1); err != nil || !v.Allowed {
		t.Fatalf("after the pause: %+v, %v; want allowed (2 of a limit of 10)", v, err)
	}
}

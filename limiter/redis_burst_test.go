package limiter_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/windowlab/playground/internal/redistest"
	"github.com/windowlab/playground/limiter"
	"github.com/windowlab/playground/policies"
)

// TestGCRABurstIsRedisRates: an engineer moving from go-redis/redis_rate
// keeps its numbers. Limit{Rate, Burst, Period} and Params{Limit, Burst,
// WindowMs} mean the same thing, Burst permits at one instant and then
// one every Period/Rate, so the same requests, both on Redis TIME, are
// admitted and refused alike with the same retry. The one difference the
// docs name: a cost above the burst, which no wait admits, is Never here
// where redis_rate answers with a retry.
func TestGCRABurstIsRedisRates(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	ctx := context.Background()
	rl := redis_rate.NewLimiter(rdb)
	// Six seconds a permit: however slowly the steps of one case run on a
	// busy machine, they stay within one instant as far as refilling goes.
	const rate, windowMs = 10, 60_000
	tests := []struct {
		name  string
		burst int64
		costs []int64
	}{
		{"burst is the limit", 10, []int64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
		{"burst below the limit", 3, []int64{1, 1, 1, 1, 2}},
		{"burst above the limit", 25, []int64{10, 10, 5, 1}},
		{"costs", 5, []int64{4, 2, 1, 3}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			form := newRedisForm(t, rdb, policies.GCRA, policies.Params{Limit: rate, WindowMs: windowMs, Burst: tc.burst},
				limiter.RedisOptions{ServerTime: true, Prefix: "burst:"})
			theirs := redis_rate.Limit{Rate: rate, Burst: int(tc.burst), Period: windowMs * time.Millisecond}
			key := "k" + string(rune('a'+i))
			for step, cost := range tc.costs {
				v, err := form.Allow(ctx, key, cost)
				if err != nil {
					t.Fatalf("step %d: %v", step, err)
				}
				r, err := rl.AllowN(ctx, key, theirs, int(cost))
				if err != nil {
					t.Fatalf("step %d: redis_rate: %v", step, err)
				}
				if want := r.Allowed > 0; v.Allowed != want {
					t.Fatalf("step %d (cost %d): allowed = %v, redis_rate %v", step, cost, v.Allowed, want)
				}
				if !v.Allowed {
					// Both read TIME, a few ms apart, and round differently.
					if d := v.RetryAfterMs - r.RetryAfter.Milliseconds(); d < -1000 || d > 1000 {
						t.Fatalf("step %d (cost %d): retry %d ms, redis_rate %v", step, cost, v.RetryAfterMs, r.RetryAfter)
					}
				}
			}
		})
	}
	t.Run("cost above the burst", func(t *testing.T) {
		form := newRedisForm(t, rdb, policies.GCRA, policies.Params{Limit: rate, WindowMs: windowMs, Burst: 3},
			limiter.RedisOptions{ServerTime: true, Prefix: "burst:"})
		d, err := form.Decide(ctx, "never", 4)
		if err != nil {
			t.Fatal(err)
		}
		if d.Allowed || !d.Never || d.RetryAfterMs != 0 {
			t.Fatalf("cost 4 of burst 3: %+v, want Never with no retry", d)
		}
		r, err := rl.AllowN(ctx, "never", redis_rate.Limit{Rate: rate, Burst: 3, Period: windowMs * time.Millisecond}, 4)
		if err != nil {
			t.Fatal(err)
		}
		if r.Allowed != 0 || r.RetryAfter <= 0 {
			t.Fatalf("redis_rate, cost 4 of burst 3: %+v, want refused with a retry (the difference the docs name)", r)
		}
	})
}

package limiter_test

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/windowlab/playground/internal/redistest"
	"github.com/windowlab/playground/limiter"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// replayPad keeps every key of a replay for an hour: the replay's virtual
// clock runs far faster than Redis's, so the policies' own TTLs (measured on
// the virtual clock) would let Redis forget keys the replay still needs.
const replayPad = 3600_000

// form is one policy with its settings, as a lane of the differential test.
type form struct {
	name string
	p    policies.Params
}

func (f form) String() string {
	return fmt.Sprintf("%s%+v", f.name, f.p)
}

// replayBatch bounds one pipeline of a replay; the order of a key's requests
// is kept within and across batches, which is all a replay needs.
const replayBatch = 512

// agreeOnRedis replays reqs through f's Go policy and its Redis form (under
// prefix) and fails at the first decision that differs.
func agreeOnRedis(t *testing.T, rdb redis.UniversalClient, f form, prefix string, reqs []limiter.RedisRequest) {
	t.Helper()
	pol, err := policies.New(f.name, f.p)
	if err != nil {
		t.Fatalf("%v: policies.New: %v", f, err)
	}
	red, err := limiter.NewRedis(rdb, f.name, f.p, limiter.RedisOptions{Prefix: prefix, TTLPadMs: replayPad})
	if err != nil {
		t.Fatalf("%v: NewRedis: %v", f, err)
	}
	ctx := context.Background()
	for lo := 0; lo < len(reqs); lo += replayBatch {
		chunk := reqs[lo:min(lo+replayBatch, len(reqs))]
		got, err := red.Batch(ctx, chunk)
		if err != nil {
			t.Fatalf("%v: Batch: %v", f, err)
		}
		for i, q := range chunk {
			want := pol.Decide(scenario.KeyOf(q.Key), q.At, q.Cost)
			want.Terms = policies.Terms{}
			if got[i] != want {
				t.Fatalf("%v: request %d (key %q at %d cost %d):\nredis %+v\ngo    %+v", f, lo+i, q.Key, q.At, q.Cost, got[i], want)
			}
		}
	}
}

// TestRedisAgreesOnLessons replays every lesson scenario (the car park
// among them) through each of its lanes in Go and in Redis, on a plain
// server and through a Cluster client (which routes each request by its
// key's slot and would see Redis refuse a script whose keys span slots).
func TestRedisAgreesOnLessons(t *testing.T) {
	plain := redistest.Start(t).Client(t)
	cluster := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{redistest.StartCluster(t).Addr}})
	t.Cleanup(func() { _ = cluster.Close() })
	for name, rdb := range map[string]redis.UniversalClient{"plain": plain, "cluster": cluster} {
		agreeOnLessons(t, name, rdb)
	}
}

func agreeOnLessons(t *testing.T, name string, rdb redis.UniversalClient) {
	t.Helper()
	files, err := filepath.Glob("../lessons/scenarios/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no lesson scenarios found: %v", err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		s, err := scenario.Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		var reqs []limiter.RedisRequest
		for _, r := range s.Requests {
			for range r.Count {
				if !r.Probe {
					reqs = append(reqs, limiter.RedisRequest{Key: r.KeyName(), At: r.At, Cost: r.Cost})
				}
			}
		}
		for lane, spec := range s.Specs() {
			f := form{spec.Name, spec.Params(s)}
			agreeOnRedis(t, rdb, f, fmt.Sprintf("%s:%s:%d:", name, filepath.Base(file), lane), reqs)
		}
	}
}

// randomRedisForms is one of each Redis form for a random limit and window:
// both arithmetics, a bucket count that divides the window, a burst, and
// a leaky bucket whose excess all waits beside one where some or all of it
// passes at once (a delay, or nodelay).
func randomRedisForms(rng *rand.Rand, big bool) []form {
	limit := 1 + rng.Int64N(12)
	switch {
	case big: // costs past the 1,000 stamps sliding-log pushes at once
		limit = 1000 + rng.Int64N(4000)
	case rng.IntN(4) == 0:
		limit = 1 + rng.Int64N(200)
	}
	k := []int64{1, 2, 3, 4, 6, 10}[rng.IntN(6)]
	window := k * (1 + rng.Int64N(300))
	if rng.IntN(3) == 0 {
		window = k * 1000 * (1 + rng.Int64N(60))
	}
	burst := int64(0)
	if rng.IntN(2) == 0 {
		burst = 1 + rng.Int64N(2*limit)
	}
	// The delay is bounded by the burst the policy runs with (0: the limit).
	delay := int64(policies.NoDelay)
	if queue := cmp.Or(burst, limit); rng.IntN(3) > 0 {
		delay = rng.Int64N(queue + 1)
	}
	p := policies.Params{Limit: limit, WindowMs: window}
	return []form{
		{policies.FixedWindow, p},
		{policies.SlidingLog, p},
		{policies.SlidingCounter, policies.Params{Limit: limit, WindowMs: window, Arithmetic: policies.Floor}},
		{policies.SlidingCounter, policies.Params{Limit: limit, WindowMs: window, Arithmetic: policies.Exact}},
		{policies.SlidingBuckets, policies.Params{Limit: limit, WindowMs: window, Buckets: k}},
		{policies.TokenBucket, policies.Params{Limit: limit, WindowMs: window, Burst: burst}},
		{policies.GCRA, policies.Params{Limit: limit, WindowMs: window, Burst: burst}},
		{policies.LeakyBucket, policies.Params{Limit: limit, WindowMs: window, Burst: burst}},
		{policies.LeakyBucket, policies.Params{Limit: limit, WindowMs: window, Burst: burst, Delay: delay}},
		{policies.LeakyBucket, policies.Params{Limit: limit, WindowMs: window, Burst: policies.NoQueue}}, // limit_req without burst
	}
}

// randomRedisRequests is traffic on a few keys: bursts at one instant, quiet
// gaps of several windows, late requests a little or far behind, costs
// from 0 past the limit, and times near today's epoch milliseconds as well
// as near 0.
func randomRedisRequests(rng *rand.Rand, window, limit int64) []limiter.RedisRequest {
	now := int64(0)
	if rng.IntN(2) == 0 {
		now = 1_700_000_000_000 + rng.Int64N(1<<36)
	}
	keys := 1 + rng.IntN(4)
	reqs := make([]limiter.RedisRequest, 10+rng.IntN(50))
	for i := range reqs {
		switch r := rng.IntN(20); {
		case r < 6: // same instant
		case r < 14:
			now += rng.Int64N(window/2 + 1)
		case r < 16:
			now += rng.Int64N(3*window + 1)
		case r < 18:
			now -= rng.Int64N(window + 1) // late
		default:
			now += 1
		}
		now = max(now, 0)
		cost := int64(1)
		switch r := rng.IntN(10); {
		case r < 3:
			cost = 1 + rng.Int64N(limit)
		case r == 3:
			cost = []int64{0, -1, limit + 1, 3 * limit}[rng.IntN(4)]
		}
		reqs[i] = limiter.RedisRequest{Key: fmt.Sprintf("k%d", rng.IntN(keys)), At: now, Cost: cost}
	}
	return reqs
}

// TestRedisAgreesOnRandomScenarios replays 1,000 seeded random scenarios,
// and 20 more with limits in the thousands, through every Redis form and
// its Go policy.
func TestRedisAgreesOnRandomScenarios(t *testing.T) {
	srv := redistest.Start(t)
	rdb := srv.Client(t)
	// Four groups of seeds at once: each replay waits on its round trips,
	// and Redis can serve the others meanwhile.
	const groups = 4
	t.Run("seeds", func(t *testing.T) {
		for g := range uint64(groups) {
			t.Run(fmt.Sprint(g), func(t *testing.T) {
				t.Parallel()
				rdb := srv.Client(t)
				for seed := g; seed < 1020; seed += groups {
					rng := rand.New(rand.NewPCG(seed, 20))
					forms := randomRedisForms(rng, seed >= 1000)
					reqs := randomRedisRequests(rng, forms[0].p.WindowMs, forms[0].p.Limit)
					for i, f := range forms {
						agreeOnRedis(t, rdb, f, fmt.Sprintf("r%d:%d:", seed, i), reqs)
					}
				}
			})
		}
	})
	// Every key the replays wrote carries a TTL.
	ctx := context.Background()
	iter := rdb.Scan(ctx, 0, "r*", 1000).Iterator()
	n := 0
	for iter.Next(ctx) {
		n++
		if ttl := rdb.PTTL(ctx, iter.Val()).Val(); ttl <= 0 {
			t.Fatalf("key %q has PTTL %v, want a TTL", iter.Val(), ttl)
		}
	}
	if err := iter.Err(); err != nil || n == 0 {
		t.Fatalf("scanned %d keys: %v", n, err)
	}
}

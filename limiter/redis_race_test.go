package limiter_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/windowlab/playground/internal/redistest"
	"github.com/windowlab/playground/limiter"
	"github.com/windowlab/playground/policies"
)

// readThenWrite is the fixed window as a service writes it without a
// script: GET the count, decide in Go, SET the new count, two round trips
// with nothing holding the key between them. It is here to be measured
// against the script, never used.
func readThenWrite(ctx context.Context, rdb *redis.Client, key string, limit int64) (bool, error) {
	v, err := rdb.Get(ctx, key).Result()
	if err != nil && err != redis.Nil {
		return false, err
	}
	count, _ := strconv.ParseInt(v, 10, 64)
	if count+1 > limit {
		return false, nil
	}
	return true, rdb.Set(ctx, key, count+1, 0).Err()
}

// race sends attempts requests on one key from clients goroutines at once
// through decide and returns how many were admitted.
func race(clients, attempts int, decide func() (bool, error)) (int64, error) {
	var admitted atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range attempts {
				ok, err := decide()
				if err != nil {
					errs <- err
					return
				}
				if ok {
					admitted.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return admitted.Load(), <-errs
}

// overAdmission races clients on rounds keys of the given limit, each
// client trying twice the limit, through the read-then-write form and
// through the fixed-window script, and returns what each admitted.
func overAdmission(rdb *redis.Client, clients, rounds int, limit int64) (naive, script int64, err error) {
	ctx := context.Background()
	clock := func() int64 { return 5_000 } // one window throughout
	form, err := limiter.NewRedis(rdb, policies.FixedWindow, policies.Params{Limit: limit, WindowMs: 60_000},
		limiter.RedisOptions{Now: clock, Prefix: "race:script:", TTLPadMs: replayPad})
	if err != nil {
		return 0, 0, err
	}
	for round := range rounds {
		key := fmt.Sprintf("race:naive:%d", round)
		n, err := race(clients, int(2*limit), func() (bool, error) { return readThenWrite(ctx, rdb, key, limit) })
		if err != nil {
			return 0, 0, err
		}
		s, err := race(clients, int(2*limit), func() (bool, error) {
			v, err := form.Allow(ctx, strconv.Itoa(round), 1)
			return v.Allowed, err
		})
		if err != nil {
			return 0, 0, err
		}
		naive, script = naive+n, script+s
	}
	return naive, script, nil
}

// TestReadThenWriteOverAdmits: eight clients on one key, each trying twice
// the limit. The script admits exactly the limit every time; the form that
// reads, decides in Go and writes admits more, because two clients read
// the same count before either writes.
func TestReadThenWriteOverAdmits(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	const clients, rounds, limit = 8, 5, 50
	naive, script, err := overAdmission(rdb, clients, rounds, limit)
	if err != nil {
		t.Fatal(err)
	}
	if script != rounds*limit {
		t.Errorf("the script admitted %d over %d windows of limit %d, want exactly %d", script, rounds, limit, rounds*limit)
	}
	if naive <= rounds*limit {
		t.Errorf("read-then-write admitted %d over %d windows of limit %d, want more than %d", naive, rounds, limit, rounds*limit)
	}
	t.Logf("limit %d × %d windows, %d clients: read-then-write admitted %d, the script %d", limit, rounds, clients, naive, script)
}

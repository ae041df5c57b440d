package conform_test

import (
	"context"
	"testing"
	"time"

	"github.com/windowlab/playground/conform"
	"github.com/windowlab/playground/limiter"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// concurrentOnTheWallClock is the app's own concurrent token bucket reading
// the real clock, as a service runs it; extra is added to its burst, to
// break it.
func concurrentOnTheWallClock(extra int64) conform.Target {
	return conform.Wall("limiter.Concurrent on the wall clock", conform.RetryAfter, 1, 150, func(p policies.Params) (conform.DecideFunc, error) {
		p.Burst += extra
		lim, err := limiter.NewConcurrent(policies.TokenBucket, p, 1)
		if err != nil {
			return nil, err
		}
		return func(r conform.Request, at time.Time) conform.Answer {
			v := lim.Allow(scenario.KeyOf(r.Key), at.UnixMilli(), r.Cost)
			return conform.Answer{Allowed: v.Allowed, RetryAfterMs: v.RetryAfterMs}
		}, nil
	})
}

// The wall clock's runs wait on real time (the limiter reads its clock);
// a refill every 500 ms against a tolerance of 150 ms keeps most requests
// judgeable on a loaded machine.
var wallParams = policies.Params{Limit: 2, WindowMs: 1000, Burst: 2}

func TestWallClockLimiterAgrees(t *testing.T) {
	rep := conform.Check(t, concurrentOnTheWallClock(0), policies.TokenBucket, wallParams, conform.MaxRequests(40))
	if rep.Requests-rep.Unjudged < rep.Requests/2 {
		t.Errorf("%d of %d requests judged: the tolerance leaves too little to check", rep.Requests-rep.Unjudged, rep.Requests)
	}
}

func TestWallClockBurstOffByOneIsCaught(t *testing.T) {
	rep, err := conform.Run(context.Background(), concurrentOnTheWallClock(1), policies.TokenBucket, wallParams, conform.MaxRequests(40))
	if err != nil {
		t.Fatal(err)
	}
	assertCaught(t, rep, "allowed")
}

package limiter_test

import (
	"context"
	"fmt"
	"log"

	"github.com/redis/go-redis/v9"
	"github.com/windowlab/playground/limiter"
	"github.com/windowlab/playground/policies"
)

// A service admits a request through the gcra script, ten a minute with a
// burst of ten, on its own clock.
func ExampleNewRedis() {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	rl, err := limiter.NewRedis(rdb, policies.GCRA, policies.Params{Limit: 10, WindowMs: 60_000}, limiter.RedisOptions{})
	if err != nil {
		log.Fatal(err)
	}
	v, err := rl.Allow(context.Background(), "user:7", 1)
	switch {
	case err != nil:
		// Redis failed: v is not a decision. Failing open or closed is
		// the service's choice.
		log.Print(err)
	case !v.Allowed:
		fmt.Printf("429, Retry-After: %d ms\n", v.RetryAfterMs)
	}
}

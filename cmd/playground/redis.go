package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/windowlab/playground/limiter"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// redisTimeout bounds the whole Redis replay of one simulate run.
const redisTimeout = 30 * time.Second

// parseRedisURL reads -redis's URL, a usage error when it cannot be read.
func parseRedisURL(url string) (*redis.Options, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, usagef("-redis: %q is not a Redis URL (want redis://host:port/db): %v", url, err)
	}
	return opts, nil
}

// replayOnRedis decides every request of res again through each lane's
// Redis form and writes, per lane, whether Redis decided as Go did. Redis
// failing is reported in words, not as the command's error: the decisions
// above it stand without Redis. The keys it wrote are deleted afterwards.
func replayOnRedis(opts *redis.Options, s scenario.Scenario, res scenario.Result, w io.Writer) {
	ctx, cancel := context.WithTimeout(context.Background(), redisTimeout)
	defer cancel()
	opts.MaxRetries, opts.DialerRetries = -1, 1
	// go-redis logs a failed dial itself; this command says it once, below.
	redis.SetLogger(quiet{})
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	fmt.Fprintf(w, "\nRedis at %s, each lane decided again by its script:\n", opts.Addr)
	// One look first, so that a Redis that is not there is said at once
	// rather than after a dial timeout per lane.
	down := rdb.Ping(ctx).Err()
	run := time.Now().UnixNano()
	for lane, spec := range s.Specs() {
		pr := res.Results[lane]
		if down != nil {
			fmt.Fprintf(w, "  %s: Redis unavailable (%v)\n", pr.Label, down)
			continue
		}
		if spec.Several() && !spec.Central {
			// Redis is one store: it decides as a central store does,
			// not as servers counting on their own.
			fmt.Fprintf(w, "  %s: not compared (Redis is one shared store; give the lane \"central\": true to compare)\n", pr.Label)
			continue
		}
		prefix := fmt.Sprintf("wl:simulate:%d:%d:", run, lane)
		line, err := replayLane(ctx, rdb, spec.Name, spec.Params(s), prefix, pr)
		if err != nil {
			fmt.Fprintf(w, "  %s: Redis unavailable (%v)\n", pr.Label, err)
			continue
		}
		fmt.Fprintf(w, "  %s: %s\n", pr.Label, line)
	}
}

// quiet is a go-redis logger that logs nothing.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// replayLane replays one lane and words its agreement with Go's decisions.
func replayLane(ctx context.Context, rdb *redis.Client, name string, p policies.Params, prefix string, pr scenario.PolicyResult) (string, error) {
	// The replay's clock is virtual, far faster than Redis's: an hour on
	// every TTL keeps its keys until it is done, and they are deleted then.
	form, err := limiter.NewRedis(rdb, name, p, limiter.RedisOptions{Prefix: prefix, TTLPadMs: 3600_000})
	if err != nil {
		return fmt.Sprintf("no Redis form (%v)", err), nil
	}
	var reqs []limiter.RedisRequest
	var want []scenario.Decision
	seen := map[string]bool{}
	var keys []string
	for _, d := range pr.Decisions {
		if !d.Probe {
			reqs = append(reqs, limiter.RedisRequest{Key: d.Key, At: d.At, Cost: d.Cost})
			want = append(want, d)
			if k := form.Key(d.Key); !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	const chunk = 512
	differ, first := 0, ""
	for lo := 0; lo < len(reqs); lo += chunk {
		got, err := form.Batch(ctx, reqs[lo:min(lo+chunk, len(reqs))])
		if err != nil {
			return "", err
		}
		for i, g := range got {
			d := want[lo+i]
			w := d.Detail
			w.Terms = policies.Terms{}
			if g != w {
				if differ++; differ == 1 {
					first = fmt.Sprintf("; first, request %d (at %d ms, key %s): Redis %s, Go %s", d.Index, d.At, d.Key, verdict(g), verdict(w))
				}
			}
		}
	}
	if len(keys) > 0 {
		if err := rdb.Del(ctx, keys...).Err(); err != nil {
			return "", err
		}
	}
	if differ == 0 {
		return fmt.Sprintf("%d decisions, all as in Go", len(reqs)), nil
	}
	return fmt.Sprintf("%d of %d decisions differ from Go's%s", differ, len(reqs), first), nil
}

// verdict words a decision briefly, estimate included, for a disagreement.
func verdict(d policies.Decision) string {
	var b strings.Builder
	switch {
	case d.Allowed:
		b.WriteString("admitted")
	case d.Never:
		b.WriteString("refused for ever")
	default:
		fmt.Fprintf(&b, "refused, retry after %d ms", d.RetryAfterMs)
	}
	fmt.Fprintf(&b, " at estimate %s", d.Estimate.Reduced())
	return b.String()
}

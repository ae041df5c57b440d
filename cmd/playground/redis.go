package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/windowlab/playground/onredis"
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
// Redis form and writes, per lane, whether Redis decided as Go did. It
// returns an error (exit status 1, said last) when Redis could not be
// asked or any decision differs, so that a check in CI cannot pass while
// comparing nothing; the decisions above it stand either way. The keys it
// wrote are deleted afterwards.
func replayOnRedis(opts *redis.Options, s scenario.Scenario, res scenario.Result, w io.Writer) error {
	ctx, cancel := context.WithTimeout(context.Background(), redisTimeout)
	defer cancel()
	// go-redis logs a failed dial itself; this command says it once, below.
	redis.SetLogger(quiet{})
	// serve's client, so that a Redis that is not there costs one short
	// dial here too, not go-redis's retries per lane.
	rdb := onredis.NewClient(opts)
	defer rdb.Close()
	fmt.Fprintf(w, "\nRedis at %s, each lane decided again by its script:\n", opts.Addr)
	// One look first, so that a Redis that is not there is said at once
	// rather than after a dial timeout per lane.
	down := rdb.Ping(ctx).Err()
	run := time.Now().UnixNano()
	var unavailable, differing []string
	for lane := range s.Specs() {
		pr := res.Results[lane]
		if down != nil {
			fmt.Fprintf(w, "  %s: Redis unavailable (%v)\n", pr.Label, down)
			unavailable = append(unavailable, pr.Label)
			continue
		}
		line, differs, err := replayLane(ctx, rdb, s, lane, fmt.Sprintf("wl:simulate:%d:%d:", run, lane), pr)
		if err != nil {
			fmt.Fprintf(w, "  %s: Redis unavailable (%v)\n", pr.Label, err)
			unavailable = append(unavailable, pr.Label)
			continue
		}
		if differs {
			differing = append(differing, pr.Label)
		}
		fmt.Fprintf(w, "  %s: %s\n", pr.Label, line)
	}
	switch {
	case len(unavailable) > 0 && len(differing) > 0:
		return fmt.Errorf("-redis: Redis at %s was not asked for %s, and decided %s otherwise than Go", opts.Addr, joinLabels(unavailable), joinLabels(differing))
	case len(unavailable) > 0:
		return fmt.Errorf("-redis: Redis at %s was unavailable: %s not compared", opts.Addr, joinLabels(unavailable))
	case len(differing) > 0:
		return fmt.Errorf("-redis: Redis at %s decided %s otherwise than Go (see above)", opts.Addr, joinLabels(differing))
	}
	return nil
}

// joinLabels names lanes in a sentence: "fixed-window and gcra".
func joinLabels(labels []string) string {
	if len(labels) == 1 {
		return "lane " + labels[0]
	}
	return "lanes " + strings.Join(labels[:len(labels)-1], ", ") + " and " + labels[len(labels)-1]
}

// serveRedis is serve's Redis client. Redis need not answer now: the lanes
// say "Redis unavailable" until it does, so it is only looked at once, to
// tell whoever starts the server.
func serveRedis(ctx context.Context, opts *redis.Options, stderr io.Writer) *redis.Client {
	// go-redis logs every failed dial; the mirror logs a failure once.
	redis.SetLogger(quiet{})
	rdb := onredis.NewClient(opts)
	ctx, cancel := context.WithTimeout(ctx, onredis.IOTimeout)
	defer cancel()
	if err := rdb.Ping(ctx).Err(); err != nil {
		fmt.Fprintf(stderr, "Redis at %s does not answer (%v): each lane says \"Redis unavailable\" until it does\n", opts.Addr, err)
	} else {
		fmt.Fprintf(stderr, "Redis at %s: each playground lane is decided there too\n", opts.Addr)
	}
	return rdb
}

// quiet is a go-redis logger that logs nothing.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// replayLane replays one lane and words its agreement with Go's decisions,
// deleting the keys it wrote; differs is true when any decision differs.
func replayLane(ctx context.Context, rdb *redis.Client, s scenario.Scenario, lane int, prefix string, pr scenario.PolicyResult) (line string, differs bool, err error) {
	form, err := onredis.LaneForm(rdb, s, lane, prefix)
	var skipped onredis.Skipped
	if errors.As(err, &skipped) {
		return skipped.Reason, false, nil
	}
	c, err := onredis.Replay(ctx, form, pr.Decisions)
	if err != nil {
		return "", false, err
	}
	if len(c.Keys) > 0 {
		if err := rdb.Del(ctx, c.Keys...).Err(); err != nil {
			return "", false, err
		}
	}
	return c.Summary(), len(c.Differences) > 0, nil
}

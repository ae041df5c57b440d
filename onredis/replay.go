// Package onredis decides a scenario's requests again through each lane's
// Redis form (package limiter's scripts) and says where Redis and Go
// differ: once for `simulate -redis`, and live for the playground's
// sessions under `serve -redis` (Mirror).
package onredis

import (
	"context"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/windowlab/playground/explain"
	"github.com/windowlab/playground/limiter"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// PipelineSize bounds the decisions sent to Redis in one round trip: a
// replay of thousands of requests is several pipelines, so no reply that
// Redis or the client buffers grows with the scenario.
const PipelineSize = 512

// TTLPadMs is added to every key's TTL. A replay's clock is virtual, far
// from Redis's, and the TTLs the scripts set are measured on it: an hour
// more keeps every key for as long as a replay (or a session's
// continuation of it, see Mirror) may still need it.
const TTLPadMs = 3600_000

// Skipped is why a lane has no Redis decisions to compare: its policy has
// no Redis form (or not for these settings), or it runs on servers that
// count on their own, which one Redis cannot stand for.
type Skipped struct{ Reason string }

func (s Skipped) Error() string { return s.Reason }

// LaneForm is the Redis form of lane (an index into s.Specs()) with its
// keys under prefix, or a Skipped error saying why there is none.
func LaneForm(rdb redis.UniversalClient, s scenario.Scenario, lane int, prefix string) (*limiter.Redis, error) {
	spec := s.Specs()[lane]
	if spec.Several() && !spec.Central {
		// Redis is one store: it decides as a central store does, not
		// as servers counting on their own.
		return nil, Skipped{`not compared (Redis is one shared store; give the lane "central": true to compare)`}
	}
	form, err := limiter.NewRedis(rdb, spec.Name, spec.Params(s), limiter.RedisOptions{Prefix: prefix, TTLPadMs: TTLPadMs})
	if err != nil {
		return nil, Skipped{fmt.Sprintf("no Redis form (%s)", strings.TrimPrefix(err.Error(), "limiter: "))}
	}
	return form, nil
}

// Difference is one request that Redis decided otherwise than Go.
type Difference struct {
	Index int // position in the expanded request list
	At    int64
	Key   string
	// Redis and Go are the two decisions, Terms left out (Redis does not
	// return the arithmetic's inputs).
	Redis, Go policies.Decision
}

// Compared is a lane's requests decided on Redis beside Go's decisions.
type Compared struct {
	Decided     int          // requests Redis decided (probes are not decided)
	Differences []Difference // in request order
	// Keys are the Redis keys the decisions wrote, each once: what to
	// delete when the replay is done with.
	Keys []string
}

// Replay decides the requests of decisions (one lane's, as the Go policy
// decided them) again through form, in order, PipelineSize a round trip,
// and compares every decision with Go's. On an error Redis may have decided
// some of them; the Compared returned is then zero.
func Replay(ctx context.Context, form *limiter.Redis, decisions []scenario.Decision) (Compared, error) {
	var reqs []limiter.RedisRequest
	var want []scenario.Decision
	var c Compared
	seen := map[string]bool{}
	for _, d := range decisions {
		if d.Probe {
			continue
		}
		reqs = append(reqs, limiter.RedisRequest{Key: d.Key, At: d.At, Cost: d.Cost})
		want = append(want, d)
		if k := form.Key(d.Key); !seen[k] {
			seen[k] = true
			c.Keys = append(c.Keys, k)
		}
	}
	for lo := 0; lo < len(reqs); lo += PipelineSize {
		got, err := form.Batch(ctx, reqs[lo:min(lo+PipelineSize, len(reqs))])
		if err != nil {
			return Compared{}, err
		}
		for i, g := range got {
			d := want[lo+i]
			w := d.Detail
			w.Terms = policies.Terms{}
			if g != w {
				c.Differences = append(c.Differences, Difference{Index: d.Index, At: d.At, Key: d.Key, Redis: g, Go: w})
			}
		}
	}
	c.Decided = len(reqs)
	return c, nil
}

// Summary says in a line how Redis's decisions compare with Go's.
func (c Compared) Summary() string {
	if len(c.Differences) == 0 {
		return fmt.Sprintf("%d decisions, all as in Go", c.Decided)
	}
	d := c.Differences[0]
	return fmt.Sprintf("%d of %d decisions differ from Go's; first, %s", len(c.Differences), c.Decided, d.Describe())
}

// Describe words a difference: which request, and each side's decision.
func (d Difference) Describe() string {
	return fmt.Sprintf("request %d (at %s, key %s): Redis %s, Go %s", d.Index+1, scenario.FormatMs(d.At), d.Key, verdict(d.Redis), verdict(d.Go))
}

// verdict words a decision briefly, estimate included: two decisions that
// differ may differ there alone.
func verdict(d policies.Decision) string {
	return explain.Outcome(d) + " at estimate " + d.Estimate.Reduced().String()
}

package explain

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// leakyQueue is 1 per second with a queue of 5: three requests at 0, then
// four at 400 ms, of which the first finds 2.6 permits of excess after
// 0.4 s of draining and the fourth finds the queue full.
func leakyQueue(t *testing.T) (scenario.Scenario, scenario.PolicyResult) {
	t.Helper()
	s := scenario.Scenario{Limit: 1, WindowMs: 1000,
		Policies: []scenario.PolicySpec{{Name: policies.LeakyBucket, Burst: 5}},
		Requests: []scenario.Request{{At: 0, Cost: 1, Count: 3}, {At: 400, Cost: 1, Count: 4}}}
	res, err := Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	return s, res.Results[0]
}

// TestLeakyBucketStepsExplainItsQuota: the headers' q=6;w=36 beside the
// other lanes' q=5;w=30 is said in the working, from the same numbers the
// headers are computed with.
func TestLeakyBucketStepsExplainItsQuota(t *testing.T) {
	s := scenario.Scenario{Limit: 5, WindowMs: 30_000,
		Policies: []scenario.PolicySpec{{Name: policies.LeakyBucket}},
		Requests: []scenario.Request{{At: 0, Cost: 1, Count: 1}}}
	res, err := Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	d := res.Results[0].Decisions[0]
	steps := strings.Join(Steps(For(s, s.Policies[0]), d.Detail, policies.State{}), "\n")
	want := "Its RateLimit-Policy says q=6;w=36: q is what the bucket holds, burst 5 queued behind the one served, and w the seconds all 6 take to drain at 5 per 30 s (6 × 30 s ÷ 5, rounded up), not the limit's q=5;w=30."
	if !strings.Contains(steps, want) {
		t.Errorf("steps %q\nwant them to say %q", steps, want)
	}
	if h := d.Headers[len(d.Headers)-2]; h.Value != `"leaky-bucket";q=6;w=36` {
		t.Errorf("RateLimit-Policy %q, want the quota the steps explain", h.Value)
	}
}

func TestLeakyBucketWorking(t *testing.T) {
	s, res := leakyQueue(t)
	pol := For(s, s.Policies[0])
	for i, want := range map[int]string{
		0: "excess 0 of 5 after draining nothing; passes at once",
		2: "excess 2 of 5 after draining nothing; waits 2 s",
		3: "excess 2.6 of 5 after draining 0.4 in 400 ms; waits 2.6 s",
		6: "excess 5.6 of 5 after draining nothing; the queue is full",
	} {
		if got := Working(pol, res.Decisions[i]); got != want {
			t.Errorf("request %d: Working = %q, want %q", i+1, got, want)
		}
	}
	steps := strings.Join(Steps(pol, res.Decisions[3].Detail, policies.State{}), "\n")
	for _, want := range []string{"0.4 in 400 ms drained, leaving 13/5 ≈ 2.6", "excess = in the bucket + cost − the one served = 13/5 ≈ 2.6 ≤ burst 5: admitted",
		"The excess above delay 0 drains in 2.6 s (rounded up to the ms): it waits 2.6 s and leaves at 3 s."} {
		if !strings.Contains(steps, want) {
			t.Errorf("Steps of request 4 = %q, want it to say %q", steps, want)
		}
	}
	if got, want := Name(scenario.PolicySpec{Name: policies.LeakyBucket, Burst: 5, Delay: scenario.Delay(policies.NoDelay)}), "leaky bucket (burst 5, nodelay)"; got != want {
		t.Errorf("Name = %q, want %q", got, want)
	}
}

// TestLeakyBucketHeadersTellQueuedFromRefused: a queued request is a 200
// that says how long it waited (Server-Timing), a refused one a 429 with
// Retry-After, and neither carries the other's field.
func TestLeakyBucketHeadersTellQueuedFromRefused(t *testing.T) {
	_, res := leakyQueue(t)
	field := func(hs []Header, name string) (string, bool) {
		i := slices.IndexFunc(hs, func(h Header) bool { return h.Name == name })
		if i < 0 {
			return "", false
		}
		return hs[i].Value, true
	}
	queued := res.Decisions[3].Headers
	if st, _ := field(queued, "Status"); st != "200 OK" {
		t.Errorf("queued: status %q, want 200 OK", st)
	}
	if v, ok := field(queued, "Server-Timing"); !ok || !strings.HasPrefix(v, "queue;dur=2600;") {
		t.Errorf("queued: Server-Timing = %q (%v), want queue;dur=2600", v, ok)
	}
	if _, ok := field(queued, "Retry-After"); ok {
		t.Errorf("queued: has a Retry-After, want none")
	}
	refused := res.Decisions[6].Headers
	if st, _ := field(refused, "Status"); st != "429 Too Many Requests" {
		t.Errorf("refused: status %q, want 429", st)
	}
	if v, _ := field(refused, "Retry-After"); v != "1" {
		t.Errorf("refused: Retry-After = %q, want 1 (600 ms rounded up)", v)
	}
	if _, ok := field(refused, "Server-Timing"); ok {
		t.Errorf("refused: has a Server-Timing queue, want none")
	}
	if first, _ := field(res.Decisions[0].Headers, "Server-Timing"); first != "" {
		t.Errorf("served at once: Server-Timing = %q, want none", first)
	}
}

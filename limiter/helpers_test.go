package limiter

import (
	"math/rand/v2"
	"testing"

	"github.com/windowlab/playground/policies"
)

// propertySeed seeds every randomised test; failures print it so a run can
// be reproduced by setting it here.
const propertySeed = 20260101

// mustNew builds a single-goroutine policy, the reference every form here
// is held to, or stops the test.
func mustNew(t testing.TB, name string, p policies.Params) policies.Policy {
	t.Helper()
	pol, err := policies.New(name, p)
	if err != nil {
		t.Fatalf("policies.New(%q, %+v): %v", name, p, err)
	}
	return pol
}

type request struct {
	key      policies.Key
	at, cost int64
}

// traffic generates n requests for p, as policies' property tests do: a few
// keys, bursts at one instant, gaps of up to two windows and, when late is
// set, one request in eight earlier than the latest (by up to a window and
// a half). Costs run from 1 to limit+1, so some are never admissible.
func traffic(r *rand.Rand, p policies.Params, n int, late bool) []request {
	var reqs []request
	now := r.Int64N(3 * p.WindowMs)
	for range n {
		switch r.IntN(4) {
		case 0: // same instant
		case 1:
			now += r.Int64N(p.WindowMs/4 + 1)
		case 2:
			now += r.Int64N(p.WindowMs + 1)
		case 3:
			now += r.Int64N(2*p.WindowMs + 1)
		}
		at := now
		if late && r.IntN(8) == 0 {
			at = max(0, now-r.Int64N(p.WindowMs*3/2+1))
		}
		cost := int64(1)
		if r.IntN(3) == 0 {
			cost = 1 + r.Int64N(p.Limit+1)
		}
		reqs = append(reqs, request{key: policies.Key(r.IntN(3)), at: at, cost: cost})
	}
	return reqs
}

// randomParams picks small parameters so that edges are hit often.
func randomParams(r *rand.Rand, name string) policies.Params {
	p := policies.Params{Limit: 1 + r.Int64N(8), WindowMs: 1 + r.Int64N(120)}
	switch name {
	case policies.SlidingCounter:
		p.Arithmetic = []policies.Arithmetic{policies.Floor, policies.Exact}[r.IntN(2)]
	case policies.SlidingBuckets:
		p.Buckets = 1 + r.Int64N(6)
		p.WindowMs = p.Buckets * (1 + r.Int64N(30))
	case policies.TokenBucket, policies.GCRA:
		p.Burst = r.Int64N(10)
	case policies.LeakyBucket:
		// -1 is NoQueue, nginx's limit_req without burst.
		p.Burst = r.Int64N(11) - 1
		p.Delay = []int64{0, p.Queue() / 2, policies.NoDelay}[r.IntN(3)]
	}
	return p
}

package conform

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// Named is one scenario of a run: its requests and where they come from.
type Named struct {
	Name     string
	Requests []Request
}

// FromScenario takes a scenario's requests (counts expanded, probes left
// out), scaling their instants from its window to windowMs, so that a
// lesson's pattern (a burst at a window's edge) lands on the same place of
// the target's window.
func FromScenario(name string, s scenario.Scenario, windowMs int64) Named {
	out := Named{Name: name}
	for _, r := range s.Requests {
		if r.Probe {
			continue
		}
		at := r.At
		if s.WindowMs > 0 && windowMs > 0 {
			at = r.At * windowMs / s.WindowMs
		}
		for range r.Count {
			out.Requests = append(out.Requests, Request{At: at, Key: r.KeyName(), Cost: r.Cost})
		}
	}
	return out
}

// Random is n seeded random scenarios for p: a few keys, costs mostly 1
// and now and then up to the capacity, gaps that are bursts (0),
// short, at and around a window's edge, or long idles.
func Random(seed uint64, n int, p policies.Params, size int) []Named {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	capacity := max(p.Limit, p.Burst)
	var out []Named
	for i := range n {
		keys := 1 + rng.IntN(3)
		count := size/2 + rng.IntN(size/2+1)
		var reqs []Request
		at := int64(0)
		for range count {
			switch g := rng.IntN(10); {
			case g < 4: // a burst: the same instant
			case g < 7:
				at += 1 + rng.Int64N(max(p.WindowMs/max(p.Limit, 1), 1))
			case g < 9: // to a window's edge, or one ms either side
				edge := (at/p.WindowMs + 1) * p.WindowMs
				at = edge + rng.Int64N(3) - 1
			default: // a long idle
				at += p.WindowMs * (1 + rng.Int64N(3))
			}
			cost := int64(1)
			if rng.IntN(8) == 0 {
				cost = 1 + rng.Int64N(capacity+1)
			}
			reqs = append(reqs, Request{At: at, Key: fmt.Sprintf("k%d", rng.IntN(keys)), Cost: cost})
		}
		out = append(out, Named{Name: fmt.Sprintf("random %d (seed %d)", i, seed), Requests: reqs})
	}
	return out
}

// Adversarial is the scenarios known bugs fail on, for the policy
// and p: a burst on each side of a window's edge; waiting exactly the
// retry-after and one ms less; the clock stepping back; a cost above the
// capacity; a long idle; many keys.
func Adversarial(policy string, p policies.Params) []Named {
	l, w := p.Limit, p.WindowMs
	capacity := max(l, p.Burst)
	// idle is long enough for every policy to forget a key: two windows
	// and twice the time the whole capacity takes to come back.
	idle := max(3*w, 2*capacity*w/l)
	burst := func(at, n int64, key string) []Request {
		var out []Request
		for range n {
			out = append(out, Request{At: at, Key: key, Cost: 1})
		}
		return out
	}
	out := []Named{
		{"boundary burst", append(burst(w-1, capacity, "a"), burst(w, capacity, "a")...)},
		// A window counted from the key's first request, not the epoch,
		// ends later than the policy's: just past the edge they disagree.
		{"full mid-window, then past the edge", append(burst(w/2, capacity, "a"), Request{w + w/5, "a", 1})},
		{"full, then one more", burst(0, capacity+1, "a")},
		{"cost above the capacity", []Request{{0, "a", capacity + 1}, {0, "a", 1}}},
		{"long idle", append(append(burst(0, capacity, "a"), burst(idle, capacity+1, "a")...), Request{idle + 1, "a", 1})},
		{"clock steps back", append(append(burst(0, capacity, "a"), Request{w, "a", 1}), Request{w / 2, "a", 1}, Request{w, "a", 1}, Request{w, "a", 1})},
		{"clock steps back after a refusal", append(append(burst(w, capacity+1, "a"), Request{w / 2, "a", 1}), Request{w + 1, "a", 1})},
	}
	var many []Request
	for i := range int64(20) {
		many = append(many, burst(i, min(capacity+1, 3), fmt.Sprintf("key%d", i))...)
	}
	out = append(out, Named{"many keys", many})
	// Waiting as told: fill, be refused, then come back exactly when the
	// policy says and one ms before it; for several fills and costs.
	for _, cost := range []int64{1, min(2, capacity)} {
		for _, fill := range []int64{capacity, capacity - 1} {
			reqs := burst(0, fill, "a")
			reqs = append(reqs, Request{At: 1, Key: "a", Cost: cost})
			if ra, ok := retryAfter(policy, p, reqs); ok {
				out = append(out,
					Named{fmt.Sprintf("retry-after %d ms less one (fill %d, cost %d)", ra, fill, cost), append(slices.Clone(reqs), Request{At: 1 + ra - 1, Key: "a", Cost: cost})},
					Named{fmt.Sprintf("retry-after %d ms exactly (fill %d, cost %d)", ra, fill, cost), append(slices.Clone(reqs), Request{At: 1 + ra, Key: "a", Cost: cost})},
					Named{fmt.Sprintf("retry-after rounded up to a second (fill %d, cost %d)", fill, cost), append(slices.Clone(reqs), Request{At: 1 + ceilTo(ra, 1000), Key: "a", Cost: cost})},
				)
			}
		}
	}
	return out
}

// retryAfter is the policy's retry-after for the last of reqs, when it is
// refused and could pass later.
func retryAfter(policy string, p policies.Params, reqs []Request) (int64, bool) {
	pol, err := policies.New(policy, p)
	if err != nil {
		return 0, false
	}
	var d policies.Decision
	for _, r := range reqs {
		d = pol.Decide(scenario.KeyOf(r.Key), r.At, r.Cost)
	}
	return d.RetryAfterMs, !d.Allowed && !d.Never && d.RetryAfterMs > 0
}

// Lessons is every lesson scenario of lib's (sorted by name) on one
// server, scaled to windowMs.
func Lessons(scenarios map[string]scenario.Scenario, windowMs int64) []Named {
	names := make([]string, 0, len(scenarios))
	for name := range scenarios {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []Named
	for _, name := range names {
		s := scenarios[name]
		if slices.ContainsFunc(s.Specs(), func(p scenario.PolicySpec) bool { return p.Several() }) {
			continue // several servers: a pattern made for them, not for one limiter
		}
		out = append(out, FromScenario("lesson "+name, s, windowMs))
	}
	return out
}

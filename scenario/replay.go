package scenario

import (
	"context"

	"github.com/windowlab/playground/policies"
)

// checkEvery is how many decisions a replay makes between looks at its
// context. A decision usually takes tens of nanoseconds, but one that meets a
// new key may allocate its state (80 KB for a sliding log of limit 10,000),
// so a look every 64 keeps a cancelled run's tail to milliseconds, and a
// look (an atomic load) every 64 decisions costs nothing measurable.
const checkEvery = 64

// Hooks are what a caller sees of one lane's replay. Each is optional.
// Both get the lane's policy so that they can Peek or Snapshot it; they
// must not call Decide on it, which would change what the replay decides.
type Hooks struct {
	// Before is called just before the policy decides a request (or
	// peeks, for a probe): d holds the request, with no outcome yet.
	Before func(pol policies.Policy, d Decision)
	// After is called with the decision once it is made.
	After func(pol policies.Policy, d Decision) error
}

// ReplayLane replays the scenario through its policy at index lane, calling
// the hooks around every decision, and returns the policy as the replay
// leaves it (for its state at the end, or its Stats). This loop is the only
// one that turns a scenario into decisions: Run, the playground's lanes and
// everything built on them go through it.
func ReplayLane(ctx context.Context, s Scenario, lane int, h Hooks) (policies.Policy, error) {
	spec := s.Specs()[lane]
	pol, err := policies.New(spec.Name, spec.Params(s))
	if err != nil {
		return nil, err
	}
	idx := 0
	for entry, r := range s.Requests {
		name := r.KeyName()
		key := KeyOf(name)
		for range r.Count {
			if idx%checkEvery == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			d := Decision{Index: idx, Entry: entry, At: r.At, Key: name, Cost: r.Cost, Probe: r.Probe}
			if r.Probe {
				d.Cost = 0
			}
			if h.Before != nil {
				h.Before(pol, d)
			}
			if r.Probe {
				d.Estimate = pol.Peek(key, r.At)
			} else {
				d.Detail = pol.Decide(key, r.At, r.Cost)
				d.Estimate = d.Detail.Estimate
			}
			if h.After != nil {
				if err := h.After(pol, d); err != nil {
					return nil, err
				}
			}
			idx++
		}
	}
	return pol, nil
}

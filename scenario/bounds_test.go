package scenario

import (
	"testing"

	"github.com/windowlab/playground/policies"
)

// worstLaneBytes is the memory bound the Bounds comment (scenario.go)
// states for one scenario's one-server lanes, MaxPolicies of them, each
// holding MaxKeys keys of the largest state a lane may ask for.
const worstLaneBytes = 296_000_000

// TestWorstLaneMemory holds that comment to every registered policy: each
// built at MaxLimit with every number option at the most a scenario may
// give it, its per-key memory times MaxKeys × MaxPolicies stays within
// worstLaneBytes. A policy whose state grows (a new option, a larger
// bound) fails here until the comment says what it now costs.
func TestWorstLaneMemory(t *testing.T) {
	// A window every k up to MaxBuckets divides, so sliding-buckets takes
	// its largest k.
	const windowMs = policies.MaxBuckets * 1000
	worst, by := int64(0), ""
	for _, in := range policies.Registered() {
		p := policies.Params{Limit: MaxLimit, WindowMs: windowMs}
		for _, o := range in.Options {
			if o.Kind == policies.Number {
				o.Set(&p, min(o.Max, MaxLimit)) // a scenario's burst and delay stop at MaxLimit
			}
		}
		pol, err := policies.New(in.Name, p)
		if err != nil {
			t.Fatalf("%s at %+v: %v", in.Name, p, err)
		}
		pol.Allow(policies.Key(1), 0, 1)
		if b := pol.Stats().BytesPerKey; b > worst {
			worst, by = b, in.Name
		}
	}
	if got := worst * MaxKeys * MaxPolicies; got > worstLaneBytes {
		t.Fatalf("%s holds %d bytes per key at its largest, %d for a scenario's lanes; the bound stated is %d", by, worst, got, worstLaneBytes)
	}
	t.Logf("largest state: %s, %d bytes per key", by, worst)
}

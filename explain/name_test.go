package explain

import (
	"testing"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// TestNameSaysTheNumbersSet: a policy's name adds the number options its
// spec sets, in the words a lane's label uses, and nothing for those left
// out.
func TestNameSaysTheNumbersSet(t *testing.T) {
	for i, c := range []struct {
		spec scenario.PolicySpec
		want string
	}{
		{scenario.PolicySpec{Name: policies.TokenBucket}, "token bucket"},
		{scenario.PolicySpec{Name: policies.TokenBucket, Burst: 10}, "token bucket (burst 10)"},
		{scenario.PolicySpec{Name: policies.GCRA, Burst: 3}, "GCRA (burst 3)"},
		{scenario.PolicySpec{Name: policies.SteppedBucket, Burst: 4}, "stepped token bucket (burst 4)"},
		{scenario.PolicySpec{Name: policies.LeakyBucket, Burst: policies.NoQueue}, "leaky bucket (no queue)"},
		{scenario.PolicySpec{Name: policies.LeakyBucket, Delay: 2}, "leaky bucket (delay 2)"},
		{scenario.PolicySpec{Name: policies.LeakyBucket, Burst: 5, Delay: scenario.Delay(policies.NoDelay)}, "leaky bucket (burst 5, nodelay)"},
		{scenario.PolicySpec{Name: policies.ExpHistogram}, "exponential histogram"},
		{scenario.PolicySpec{Name: policies.ExpHistogram, Buckets: 6}, "exponential histogram (k=6)"},
	} {
		if got := Name(c.spec); got != c.want {
			t.Errorf("case %d: Name = %q, want %q", i+1, got, c.want)
		}
	}
}

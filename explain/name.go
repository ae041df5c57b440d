package explain

import (
	"fmt"
	"strings"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// Name names a policy as people read it, rather than by its id: "sliding
// counter (exact)" for sliding-counter with exact arithmetic, "ring of 6
// sub-buckets" for sliding-buckets with k = 6, "token bucket (burst 10)".
// Options the spec leaves to their defaults are not named.
func Name(spec scenario.PolicySpec) string {
	name := strings.ReplaceAll(spec.Name, "-", " ")
	switch spec.Name {
	case policies.SlidingCounter:
		if spec.Arithmetic != "" {
			name += " (" + string(spec.Arithmetic) + ")"
		}
	case policies.SlidingBuckets:
		switch spec.Buckets {
		case 0:
		case 1:
			name = "ring of 1 sub-bucket"
		default:
			name = fmt.Sprintf("ring of %d sub-buckets", spec.Buckets)
		}
	case policies.TokenBucket, policies.GCRA:
		if spec.Name == policies.GCRA {
			name = "GCRA"
		}
		if spec.Burst != 0 {
			name += fmt.Sprintf(" (burst %d)", spec.Burst)
		}
	}
	return name
}

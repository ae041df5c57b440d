package explain

import "github.com/windowlab/playground/scenario"

// Name names a policy as people read it, rather than by its id: "sliding
// counter (exact)" for sliding-counter with exact arithmetic, "ring of 6
// sub-buckets" for sliding-buckets with k = 6, "token bucket (burst 10)".
// Options the spec leaves to their defaults are not named.
func Name(spec scenario.PolicySpec) string {
	return wordingOf(spec.Name).name(humanName(spec.Name), spec)
}

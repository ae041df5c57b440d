package explain

import (
	"fmt"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// tokenBucket words token-bucket: tokens that refill continuously.
type tokenBucket struct{}

func init() { register(policies.TokenBucket, tokenBucket{}) }

func (tokenBucket) name(human string, spec scenario.PolicySpec) string {
	return withNumbers(human, spec)
}

func (tokenBucket) estimateWord() string { return "in use" }

func (tokenBucket) working(_ Policy, d scenario.Decision) string {
	return fmt.Sprintf("%s tokens of %d; needs %d", scenario.FormatFraction(d.Detail.Terms.TokenBucket().Tokens), d.Detail.Capacity, d.Cost)
}

func (tokenBucket) state(s policies.State) string {
	return fmt.Sprintf("tokens %s of %d", scenario.FormatFraction(tokens(s)), s.Capacity)
}

func (tokenBucket) status(s policies.State) string {
	return fmt.Sprintf(" (tokens %s)", Fraction(tokens(s)))
}

// tokens is what a state holds of the bucket (zero in a zero state).
func tokens(s policies.State) policies.Fraction {
	h, _ := s.Held.(policies.TokenBucketHeld)
	return h.Tokens
}

func (tokenBucket) legend() string {
	return "Line: permits in use (burst − tokens), draining as the bucket refills at limit per window."
}

func (tokenBucket) legendWhileAsked() string { return "" }

func (tokenBucket) stepsInSeconds() bool { return false }

func (tokenBucket) steps(st *stepper, _ Policy, det policies.Decision, after policies.State) {
	before := det.Terms.TokenBucket().Tokens
	st.add("Tokens before the request: %s of %d (it refills continuously at limit per window).", Fraction(before), st.capacity)
	if det.Allowed {
		st.add("cost %d ≤ tokens %s: %s, leaving %s.", det.Cost, Fraction(before), Admitted, Fraction(tokens(after)))
	} else {
		st.add("cost %d > tokens %s: %s.", det.Cost, Fraction(before), Refused)
	}
}

func (tokenBucket) toWorkOut(p policies.Params, window, when string) string {
	return fmt.Sprintf("count the tokens left after the last request and those refilled by %s.", when)
}

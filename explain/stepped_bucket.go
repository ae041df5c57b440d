package explain

import (
	"fmt"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// steppedBucket words stepped-bucket: whole tokens that arrive in a fill at
// each interval's edge, as Envoy's local rate limit adds them.
type steppedBucket struct{}

func init() { register(policies.SteppedBucket, steppedBucket{}) }

func (steppedBucket) name(human string, spec scenario.PolicySpec) string {
	return withNumbers(human, spec)
}

func (steppedBucket) estimateWord() string { return "in use" }

func (steppedBucket) working(_ Policy, d scenario.Decision) string {
	return fmt.Sprintf("%d tokens of %d; needs %d", d.Detail.Terms.SteppedBucket().Tokens, d.Detail.Capacity, d.Cost)
}

func (steppedBucket) state(s policies.State) string {
	h := steppedHeld(s)
	return fmt.Sprintf("tokens %d of %d, next fill at %s", h.Tokens, s.Capacity, scenario.FormatMs(h.NextFill))
}

func (steppedBucket) status(s policies.State) string {
	h := steppedHeld(s)
	return fmt.Sprintf(" (tokens %d, next fill %s)", h.Tokens, Instant(policies.Whole(h.NextFill)))
}

// steppedHeld is what a state holds of the bucket (zero in a zero state).
func steppedHeld(s policies.State) policies.SteppedBucketHeld {
	h, _ := s.Held.(policies.SteppedBucketHeld)
	return h
}

func (steppedBucket) legend() string {
	return "Line: tokens in use (burst − tokens), falling by limit at each window's edge, when a whole fill arrives."
}

func (steppedBucket) legendWhileAsked() string { return "" }

func (steppedBucket) stepsInSeconds() bool { return false }

func (steppedBucket) steps(st *stepper, pol Policy, det policies.Decision, after policies.State) {
	terms := det.Terms.SteppedBucket()
	st.add("Tokens before the request: %d of %d; the latest fill of %d arrived at %s, the next at %s.",
		terms.Tokens, st.capacity, pol.Params.Limit, Instant(policies.Whole(terms.FillStart)), Instant(policies.Whole(terms.FillStart+pol.Params.WindowMs)))
	if det.Allowed {
		st.add("cost %d ≤ tokens %d: %s, leaving %d.", det.Cost, terms.Tokens, Admitted, steppedHeld(after).Tokens)
	} else {
		st.add("cost %d > tokens %d: %s until enough fills have arrived.", det.Cost, terms.Tokens, Refused)
	}
}

func (steppedBucket) toWorkOut(p policies.Params, window, when string) string {
	return fmt.Sprintf("count the tokens left after the last request and the fills of %d that arrived at each %s edge up to %s.", p.Limit, window, when)
}

package explain

import (
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// Steps writes out one decision's arithmetic with its own numbers, step by
// step: what the policy held, the comparison with its capacity, and what a
// refused request is told. after is the policy's state after the decision.
func Steps(pol Policy, det policies.Decision, after policies.State) []string {
	w := wordingOf(pol.Name)
	st := &stepper{ms: scenario.FormatMs, capacity: det.Capacity}
	if w.stepsInSeconds() {
		st.ms = secs
	}
	if det.Late {
		st.add("The request is earlier than this client's latest one, so it is decided at %s.", st.ms(det.At))
	}
	w.steps(st, pol, det, after)
	switch {
	case det.Allowed:
	case det.Never:
		st.add("The cost is above the capacity: this request %s.", NeverPass)
	default:
		st.add("Retry after %s: waiting exactly that long, with nothing else arriving, admits it.", st.ms(det.RetryAfterMs))
	}
	return st.lines
}

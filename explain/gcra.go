package explain

import (
	"fmt"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// gcra words GCRA: a theoretical arrival time that moves on by one
// interval per permit.
type gcra struct{}

func init() { register(policies.GCRA, gcra{}) }

func (gcra) name(human string, spec scenario.PolicySpec) string { return withNumbers(human, spec) }
func (gcra) estimateWord() string                               { return "in use" }

func (gcra) working(_ Policy, d scenario.Decision) string {
	return fmt.Sprintf("TAT %s; %s of %d in use; + %d", Instant(d.Detail.Terms.GCRA().TAT), scenario.FormatFraction(d.Estimate), d.Detail.Capacity, d.Cost)
}

func (gcra) state(s policies.State) string {
	return fmt.Sprintf("TAT %s, in use %s", Instant(gcraTAT(s)), scenario.FormatFraction(s.Estimate))
}

func (gcra) status(s policies.State) string { return fmt.Sprintf(" (TAT %s)", Instant(gcraTAT(s))) }

// gcraTAT is the theoretical arrival time a state holds (zero in a zero
// state).
func gcraTAT(s policies.State) policies.Fraction {
	h, _ := s.Held.(policies.GCRAHeld)
	return h.TAT
}

func (gcra) legend() string {
	return "Line: permits in use, (TAT − now) ÷ interval. Dotted: the theoretical arrival time (TAT)."
}

func (gcra) legendWhileAsked() string { return "" }

func (gcra) stepsInSeconds() bool { return false }

func (gcra) steps(st *stepper, pol Policy, det policies.Decision, after policies.State) {
	st.add("Theoretical arrival time (TAT) before: %s; one permit is emitted every window ÷ limit = %s.", Instant(det.Terms.GCRA().TAT), Instant(policies.Fraction{Num: pol.Params.WindowMs, Den: pol.Params.Limit}))
	st.add("in use = (max(TAT, now) − now) ÷ interval = %s; in use + cost = %s", Fraction(det.Estimate), st.verdict(Fraction(plusCost(det)), det.Allowed))
	if det.Allowed {
		st.add("TAT moves on by cost × interval to %s.", Instant(gcraTAT(after)))
	}
}

func (gcra) toWorkOut(p policies.Params, window, when string) string {
	return fmt.Sprintf("compare %s with the theoretical arrival time less the burst's allowance.", when)
}

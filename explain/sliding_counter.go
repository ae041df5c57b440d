package explain

import (
	"fmt"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// slidingCounter words sliding-counter: the previous window's count,
// weighted, plus the current one's.
type slidingCounter struct{}

func init() { register(policies.SlidingCounter, slidingCounter{}) }

func (slidingCounter) name(human string, spec scenario.PolicySpec) string {
	if spec.Arithmetic != "" {
		return human + " (" + string(spec.Arithmetic) + ")"
	}
	return human
}

func (slidingCounter) estimateWord() string { return "estimate" }

func (slidingCounter) working(p Policy, d scenario.Decision) string {
	t, w := d.Detail.Terms.SlidingCounter(), p.Params.WindowMs
	weighted := Weighted(t.Previous, policies.Fraction{Num: w - t.Elapsed, Den: w})
	if p.Params.Arithmetic != policies.Exact {
		weighted = "⌊" + weighted + "⌋" // so that ⌊5 × 9/10⌋ = 4 does not read as a slip
	}
	return fmt.Sprintf("%s = %s carried + %d current = %s; + %d against %d",
		weighted, scenario.FormatFraction(t.Carried), t.Current, scenario.FormatFraction(d.Estimate), d.Cost, d.Detail.Capacity)
}

func (slidingCounter) state(s policies.State) string {
	h, _ := s.Held.(policies.SlidingCounterHeld)
	return fmt.Sprintf("window from %s, previous %d, current %d, estimate %s", scenario.FormatMs(h.WindowStart), h.Previous, h.Current, scenario.FormatFraction(s.Estimate))
}

func (slidingCounter) status(policies.State) string { return "" }

func (slidingCounter) legend() string {
	return "Line: the estimate, previous × (window − elapsed) ÷ window + current, falling as the window fills. Blocks: the windows and their counts. Shaded: the part of the previous window still counted, labelled its count × the weight it fades to."
}

func (slidingCounter) legendWhileAsked() string { return windowsWhileAsked }

func (slidingCounter) stepsInSeconds() bool { return true }

func (slidingCounter) steps(st *stepper, pol Policy, det policies.Decision, _ policies.State) {
	// Every duration here is in seconds, with the milliseconds as
	// decimals where there are any, so that a term never mixes units.
	p, w := det.Terms.SlidingCounter(), pol.Params.WindowMs
	st.add("Window starts at %s; elapsed = %s; previous window admitted %d, this one %d.", secs(p.WindowStart), secs(p.Elapsed), p.Previous, p.Current)
	if p.Carried.Den == 1 {
		st.add("carried = ⌊previous × (window − elapsed) ÷ window⌋ = ⌊%d × (%s − %s) ÷ %s⌋ = %d (floored)", p.Previous, secs(w), secs(p.Elapsed), secs(w), p.Carried.Num)
	} else {
		st.add("carried = previous × (window − elapsed) ÷ window = %d × (%s − %s) ÷ %s = %s (exact)", p.Previous, secs(w), secs(p.Elapsed), secs(w), Fraction(p.Carried))
	}
	st.add("carried + current + cost = %s + %d + %d = %s", Fraction(p.Carried), p.Current, det.Cost, st.verdict(Fraction(plusCost(det)), det.Allowed))
}

func (slidingCounter) toWorkOut(p policies.Params, window, when string) string {
	carried := "the previous window's count weighted by how much of it the last " + window + " still covers"
	if p.Arithmetic == policies.Floor {
		carried += ", rounded down,"
	}
	return fmt.Sprintf("at %s, add %s to the current window's count.", when, carried)
}

func (slidingCounter) carried(d policies.Decision) policies.Fraction {
	return d.Terms.SlidingCounter().Carried
}

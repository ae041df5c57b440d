package ask

import (
	"fmt"

	"github.com/windowlab/playground/explain"
	"github.com/windowlab/playground/scenario"
)

// Step is one line of working: a decision with its arithmetic.
type Step struct {
	// Lane is the index of the lane the step is about (0 for a question
	// about the scenario's own lanes, whose Policy names the lane).
	Lane   int
	Policy string
	At     int64
	// NoInstant marks a step about no moment (a ring's size), whose At
	// means nothing.
	NoInstant bool
	Outcome   string // explain.Outcome: "admitted", "refused, retry after 5 s", "refused, can never pass"
	Working   string
	Note      string // why this step is shown
	// Decision is the decision the step words; the zero Decision for a
	// step with no instant.
	Decision scenario.Decision
}

// When is the step's instant as the page writes it, "" for none.
func (s Step) When() string {
	if s.NoInstant {
		return ""
	}
	return scenario.FormatMs(s.At)
}

// Label names lane i of q the way the playground does ("sliding-log",
// "sliding-counter (exact)").
func (q Question) Label(i int) string { return q.Lanes[i].Spec.Label(q.Scenario) }

// Name names a lane as people read it (explain.Name): "sliding counter
// (exact)".
func Name(l Lane) string { return explain.Name(l.Spec) }

// RefName names a policy ref as people read it; a ref that does not
// parse is returned as it is.
func RefName(ref string) string {
	spec, err := scenario.ParsePolicyRef(ref)
	if err != nil {
		return ref
	}
	return explain.Name(spec)
}

// step words one decision of lane i.
func step(q Question, i int, d scenario.Decision, note string) Step {
	spec := q.Lanes[i].Spec
	p := scenario.PolicyResult{Policy: spec.Name, Label: spec.Label(q.Scenario), Params: spec.Out(q.Scenario)}
	st := stepFrom(p, d, note)
	st.Lane = i
	return st
}

func stepFrom(p scenario.PolicyResult, d scenario.Decision, note string) Step {
	return Step{Policy: p.Label, At: d.At, Outcome: explain.Outcome(d.Detail), Working: explain.Working(explain.ForResult(p), d), Note: note, Decision: d}
}

// stackStep words one request's way through a stack by the lane that
// settled it: the one that refused it, or the last when every lane admitted.
func stackStep(s scenario.Scenario, specs []scenario.PolicySpec, st scenario.StackStep) Step {
	i := len(st.Decisions) - 1
	spec := specs[i]
	note := "every lane admits it"
	if st.RefusedBy >= 0 {
		note = "the lanes before it admitted it"
		if i == 0 {
			note = "the first lane"
		}
		if i < len(specs)-1 {
			note += "; the lanes after it are not asked"
		}
	}
	p := scenario.PolicyResult{Policy: spec.Name, Label: fmt.Sprintf("lane %d: %s", i+1, spec.Label(s)), Params: spec.Out(s)}
	return stepFrom(p, st.Decisions[i], note)
}

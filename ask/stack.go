package ask

import (
	"fmt"

	"github.com/windowlab/playground/scenario"
)

// stack asks how many of the scenario's requests its own lanes admit when
// applied in turn, as a service stacks a per-second and a per-minute limit
// (scenario.StackedSteps, as a lesson's stacked lanes).
type stack struct{ whole }

func init() { register(stack{whole{more: "too many", fewer: "too few", what: "a count"}}) }

func (stack) Name() string  { return "stack" }
func (stack) About() string { return "the scenario's own lanes, in order" }

func (stack) notOnPlayground() {}

func (stack) Validate(q *Question) error {
	if len(q.Scenario.Policies) < 2 {
		return fmt.Errorf("a stack question needs a scenario listing at least two policies, in the order they are applied")
	}
	return nil
}

func (stack) Solve(q Question) (Solution, error) {
	steps, err := scenario.StackedSteps(q.Scenario)
	if err != nil {
		return Solution{}, err
	}
	sol := Solution{Kind: q.Kind}
	specs := q.Scenario.Specs()
	for _, st := range steps {
		if st.RefusedBy < 0 {
			sol.Count++
		}
		sol.Trace = append(sol.Trace, stackStep(q.Scenario, specs, st))
	}
	sol.Truth = []int64{int64(sol.Count)}
	return sol, nil
}

func (k stack) Grade(q Question, sol Solution, text string, choices []string) Feedback {
	return k.grade(k, q, sol, text, choices)
}

// Clue points at the request the count most likely went wrong at; a
// request passes only if every lane admits it.
func (stack) Clue(_ Question, sol Solution, a Answer) string {
	c := countClue(sol, 0, a.Count)
	if a.Count > sol.Count && c != "" {
		c += " A request passes only when every lane admits it."
	}
	return c
}

package ask

import (
	"fmt"
	"slices"
	"strings"

	"github.com/windowlab/playground/explain"
	"github.com/windowlab/playground/scenario"
)

// outcome asks whether the next request is admitted, in each lane asked
// about. Exercises call it "outcome" and rooms "admit": one kind under two
// names, so that neither file format nor stored room changes; only the
// room's is in the presenter's menu.
type outcome struct{ name, menu string }

func init() {
	register(outcome{name: "outcome"})
	register(outcome{name: "admit", menu: "Next request admitted?"})
}

func (k outcome) Menu() (string, int) { return k.menu, 1 }
func (outcome) Prompt() string        { return "" }

var (
	yesWords = []string{"yes", "y", "admitted", "admit", "admits", "accepted", "accept", "allowed", "allow", "passes", "pass", "true", "ok"}
	noWords  = []string{"no", "n", "refused", "refuse", "refuses", "rejected", "reject", "denied", "deny", "blocked", "limited", "false"}
)

func (k outcome) Name() string           { return k.name }
func (outcome) Instant() Instant         { return AtInstant }
func (outcome) Lanes() LaneRule          { return AnyLanes }
func (outcome) About() string            { return "" }
func (outcome) Choices(Question) []int64 { return []int64{1, 0} }

func (outcome) Validate(*Question) error { return nil }

func (outcome) Solve(q Question) (Solution, error) {
	sol, err := solveAdmits(q)
	if err != nil {
		return Solution{}, err
	}
	sol.Outcome = sol.Truth[0] == 1
	return sol, nil
}

func (outcome) Parse(_ Question, text string, _ []string) (Answer, error) {
	first := strings.FieldsFunc(normal(text), func(r rune) bool { return r == ' ' || r == ',' || r == '.' || r == '!' })
	if len(first) > 0 {
		switch {
		case slices.Contains(yesWords, first[0]):
			return Answer{Outcome: true}, nil
		case slices.Contains(noWords, first[0]):
			return Answer{Outcome: false}, nil
		}
	}
	return Answer{}, UnreadableError{Text: text, Want: "Answer yes or no (admitted or refused)."}
}

func (k outcome) Grade(q Question, sol Solution, text string, choices []string) Feedback {
	fb, ans, ok := read(k, q, sol, text, choices)
	if ok {
		fb.Correct = ans.Outcome == sol.Outcome
	}
	return fb
}

func (outcome) Text(_ Question, a Answer) string { return explain.Verdict(a.Outcome) }

func (outcome) Hint(_ Question, _ Solution, form Form) string {
	if form == ExercisePage {
		return "Yes or no (admitted or refused)."
	}
	return ""
}

func (outcome) Ask(q Question) string {
	r := q.request()
	return fmt.Sprintf("Will a request from %s (cost %d) at %s be admitted%s?", theClient(r), r.Cost, scenario.FormatMs(r.At), servers(q, "on"))
}

func (outcome) Value(q Question, lane int, text string) (int64, error) {
	return tapValue(q, lane, text)
}

func (outcome) Check(_ Question, _ int, v int64) string {
	if v != 0 && v != 1 {
		return fmt.Sprintf("%d is neither admitted (1) nor refused (0)", v)
	}
	return ""
}

func (outcome) Word(_ Question, v int64) string { return explain.Verdict(v == 1) }

// Clue says what to work out at the instant: any word of which way the
// answer goes would give a yes-or-no answer away.
func (outcome) Clue(q Question, _ Solution, _ Answer) string {
	if q.Request == nil || len(q.Lanes) == 0 {
		return ""
	}
	return "Work it again: " + whatDecides(q, 0, q.Request.At)
}

package exercises

import (
	"fmt"

	"github.com/windowlab/playground/ask"
	"github.com/windowlab/playground/scenario"
)

// Answer is a learner's answer, read.
type Answer = ask.Answer

// UnreadableError says an answer could not be read, and what would be.
type UnreadableError = ask.UnreadableError

// Feedback is the result of checking one answer.
type Feedback = ask.Feedback

// ParseAnswer reads text (and, for which-questions, the ticked choices) as
// an answer to a question of the kind about lanes (policy refs).
func ParseAnswer(kind, text string, choices, lanes []string) (Answer, error) {
	q := ask.Question{Kind: kind}
	for _, ref := range lanes {
		spec, _ := scenario.ParsePolicyRef(ref)
		q.Lanes = append(q.Lanes, ask.Lane{Spec: spec, Ref: ref})
	}
	k, err := ask.Of(q)
	if err != nil {
		return Answer{}, fmt.Errorf("unknown question kind %q", kind)
	}
	return k.Parse(q, text, choices)
}

// TimeExamples are the example times a hint or a message shows for a
// time question, none of them the answer (ask.TimeExamples).
func (in Instance) TimeExamples(sol Solution) []string { return ask.TimeExamples(sol) }

// TimeWant is the sentence a time question's hint and messages use.
func (in Instance) TimeWant(sol Solution) string { return ask.TimeWant(sol) }

// Check reads the answer and compares it with the computed one.
func (in Instance) Check(text string, choices []string) (Feedback, error) {
	sol, err := in.Solve()
	if err != nil {
		return Feedback{}, err
	}
	return ask.Check(in.Asked(), sol, text, choices)
}

// Hint says what kind of answer the exercise's field takes, in the words
// of the form asking.
func (in Instance) Hint(sol Solution, form ask.Form) string {
	return in.Exercise.Kind().Hint(in.Asked(), sol, form)
}

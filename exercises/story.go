package exercises

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/windowlab/playground/ask"
	"github.com/windowlab/playground/scenario"
)

// placeholders are what a question may hold in braces, each filled from
// the variant's own data, so that a number the story tells changes with
// the variant that changes it.
var placeholders = map[string]func(in Instance) string{
	"at":     func(in Instance) string { return scenario.FormatMs(in.At) },
	"limit":  func(in Instance) string { return strconv.FormatInt(in.Scenario.Limit, 10) },
	"window": func(in Instance) string { return scenario.FormatMs(in.Scenario.WindowMs) },
	// refill is one token's or one emission's worth of the window.
	"refill":   func(in Instance) string { return scenario.FormatMs(in.Scenario.WindowMs / max(in.Scenario.Limit, 1)) },
	"requests": func(in Instance) string { return joinAnd(in.RequestTexts()) },
	"last": func(in Instance) string {
		if n := len(in.Scenario.Requests); n > 0 {
			return scenario.FormatMs(in.Scenario.Requests[n-1].At)
		}
		return scenario.FormatMs(0)
	},
}

// placeholderNames lists the placeholders, braced, in a fixed order.
func placeholderNames() []string {
	var out []string
	for name := range placeholders {
		out = append(out, "{"+name+"}")
	}
	slices.Sort(out)
	return out
}

var braced = regexp.MustCompile(`\{[^{}]*\}`)

// unknownPlaceholders are the braced words of text that no placeholder
// fills: left in, they would reach the learner as "{bogus}".
func unknownPlaceholders(text string) []string {
	var out []string
	for _, m := range braced.FindAllString(text, -1) {
		if _, ok := placeholders[strings.Trim(m, "{}")]; !ok && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// RequestTexts words the variant's requests as the exercise page lists
// them and {requests} tells them: "5 s ×2", "40 s ×3 (cost 2)".
func (in Instance) RequestTexts() []string {
	var out []string
	for _, r := range in.Scenario.Requests {
		text := scenario.FormatMs(r.At)
		if r.Count > 1 {
			text += fmt.Sprintf(" ×%d", r.Count)
		}
		if r.Cost > 1 {
			text += fmt.Sprintf(" (cost %d)", r.Cost)
		}
		out = append(out, text)
	}
	return out
}

// joinAnd joins a list as a sentence does: "a, b and c".
func joinAnd(items []string) string {
	if n := len(items); n > 1 {
		return strings.Join(items[:n-1], ", ") + " and " + items[n-1]
	}
	return strings.Join(items, "")
}

// refusalWords and admissionWords are how a story states the outcome of
// the request at {at} rather than asking it.
var (
	refusalWords   = []string{"is refused", "is turned away", "turned away at", "is rejected", "refused at {at}"}
	admissionWords = []string{"is admitted", "is let in", "gets in at {at}", "let in at {at}"}
)

// claim is what a question's text states about the request at {at}: in
// a sentence that names {at} and is not itself the question (no "?"),
// that it is refused (-1) or admitted (+1); 0 for no claim.
func claim(question string) int {
	for _, sentence := range strings.SplitAfter(question, ". ") {
		if !strings.Contains(sentence, "{at}") || strings.Contains(sentence, "?") {
			continue
		}
		low := strings.ToLower(sentence)
		for _, w := range refusalWords {
			if strings.Contains(low, w) {
				return -1
			}
		}
		for _, w := range admissionWords {
			if strings.Contains(low, w) {
				return 1
			}
		}
	}
	return 0
}

// contradiction says how the variant's data contradict what its story
// states about the request at {at}, "" when they agree or it states
// nothing. sol is the variant's solution.
func (in Instance) contradiction(sol Solution) string {
	e := in.Exercise
	c := claim(e.Question)
	if c == 0 || e.WholeScenario() {
		return ""
	}
	q := in.Asked()
	q.Kind = AskOutcome
	decided, err := ask.Solve(q)
	if err != nil {
		return ""
	}
	for i, v := range decided.Truth {
		if admits := v == 1; admits != (c > 0) {
			verb := "refuses"
			if admits {
				verb = "admits"
			}
			said := "refused"
			if c > 0 {
				said = "admitted"
			}
			lane := "the " + ask.Name(q.Lanes[i])
			if strings.HasPrefix(q.Lanes[i].Ref, "#") {
				lane = "lane " + laneName(in.Scenario, q.Lanes[i].Ref)
			}
			return fmt.Sprintf("it says the request at {at} (%s) is %s, but %s %s it", scenario.FormatMs(in.At), said, lane, verb)
		}
	}
	return ""
}

// trivial reports whether a drawn variant asks what it answers: a first
// moment "at or after 67.5 s" that is 67.5 s itself.
func (in Instance) trivial(sol Solution) bool {
	return ask.AnswersInMoments(sol.Kind) && sol.Moment == in.At
}

// fieldWants says, for the fields whose JSON shape an author may get
// wrong, what the field takes.
var fieldWants = map[string]string{
	"vary":        `an object such as {"at": {"from": "31 s", "to": "59 s", "step": "1 s"}, "limit": [3, 8]}`,
	"vary.limit":  "a list of two whole numbers [from, to], such as [3, 8]",
	"vary.at":     `an object {"from": "31 s", "to": "59 s", "step": "1 s"}`,
	"vary.window": `an object {"from": "15 s", "to": "60 s", "step": "15 s"}`,
	"policies":    `a list of policies, such as ["sliding-log", "fixed-window"]`,
}

// decodeProblem words a decoding error by the field it is in, not by the
// Go type it would have filled.
func decodeProblem(err error) string {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr) && typeErr.Field != "":
		field := typeErr.Field
		want, ok := fieldWants[field]
		if !ok {
			for _, prefix := range []string{"vary.at.", "vary.window."} {
				if strings.HasPrefix(field, prefix) {
					want, ok = `a time in quotes, such as "31 s"`, true
				}
			}
		}
		if !ok {
			return fmt.Sprintf("%s: a JSON %s is not what this field takes (see exercises/README.md)", field, typeErr.Value)
		}
		return fmt.Sprintf("%s: a JSON %s, where the field takes %s", field, typeErr.Value, want)
	case errors.As(err, &syntaxErr):
		return fmt.Sprintf("not JSON: %v (at byte %d)", syntaxErr, syntaxErr.Offset)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return strings.TrimPrefix(err.Error(), "json: ") + ": not a field of an exercise file (exercises/README.md lists them)"
	}
	return fmt.Sprintf("not a valid exercise file: %v", err)
}

// VariantSeeds is how many seeds, from 0, the rule that a variant changes
// the answer is checked over.
const VariantSeeds = 20

// WantAnswers is how many different answers the variants of seeds 0 to
// VariantSeeds-1 must give: three, or every answer a question of the kind
// can have when it has fewer (yes or no has two).
func (e *Exercise) WantAnswers() int {
	switch e.Ask {
	case AskOutcome:
		return 2
	case AskWhich:
		return min(3, 1<<len(e.Policies))
	}
	return 3
}

// VariantAnswers are the different answers of the variants of seeds 0 to
// VariantSeeds-1, in the order first met.
func (e *Exercise) VariantAnswers() ([]string, error) {
	var out []string
	for seed := range uint64(VariantSeeds) {
		sol, err := e.Instance(seed).Solve()
		if err != nil {
			return nil, fmt.Errorf("seed %d: %w", seed, err)
		}
		if !slices.Contains(out, sol.Text()) {
			out = append(out, sol.Text())
		}
	}
	return out, nil
}

package exercises

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// Answer is a learner's answer, read.
type Answer struct {
	Outcome bool
	Moment  int64
	Count   int
	Admit   []string // policy refs, in the exercise's order
}

// UnreadableError says an answer could not be read, and what would be.
type UnreadableError struct {
	Text string
	Want string
}

func (u UnreadableError) Error() string {
	if strings.TrimSpace(u.Text) == "" {
		return "There is no answer to check yet. " + u.Want
	}
	return fmt.Sprintf("“%s” can't be read as an answer. %s", u.Text, u.Want)
}

var (
	yesWords = []string{"yes", "y", "admitted", "admit", "admits", "accepted", "accept", "allowed", "allow", "passes", "pass", "true", "ok"}
	noWords  = []string{"no", "n", "refused", "refuse", "refuses", "rejected", "reject", "denied", "deny", "blocked", "limited", "false"}
)

// ParseAnswer reads text (and, for which-questions, the ticked choices) as
// an answer to a question of the kind. For "which", choices holds the refs
// of ticked boxes; when it is empty the text is read instead, accepting
// "both", "neither", "none", "all" and short names such as "log" or
// "counter".
func ParseAnswer(kind, text string, choices, lanes []string) (Answer, error) {
	t := strings.ToLower(strings.TrimSpace(text))
	t = strings.TrimRight(t, ".!")
	switch kind {
	case AskOutcome:
		first := strings.FieldsFunc(t, func(r rune) bool { return r == ' ' || r == ',' || r == '.' || r == '!' })
		if len(first) > 0 {
			switch {
			case slices.Contains(yesWords, first[0]):
				return Answer{Outcome: true}, nil
			case slices.Contains(noWords, first[0]):
				return Answer{Outcome: false}, nil
			}
		}
		return Answer{}, UnreadableError{text, "Answer yes or no (admitted or refused)."}
	case AskFirstAdmit:
		t = strings.TrimPrefix(strings.TrimPrefix(t, "at "), "t=")
		ms, err := scenario.ParseMoment(t, 1000)
		if err != nil {
			return Answer{}, UnreadableError{text, "Give a time such as 36, 36 s, 36.5 s or 36000 ms (a bare number is in seconds)."}
		}
		return Answer{Moment: ms}, nil
	case AskCount:
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSuffix(t, " requests"), " cars"))
		if err != nil || n < 0 {
			return Answer{}, UnreadableError{text, "Give a whole number, such as 7."}
		}
		return Answer{Count: n}, nil
	case AskWhich:
		if len(choices) > 0 {
			var picked []string
			for _, l := range lanes {
				if slices.Contains(choices, l) {
					picked = append(picked, l)
				}
			}
			if slices.Contains(choices, "none") && len(picked) > 0 {
				return Answer{}, UnreadableError{strings.Join(choices, ", "), "Tick the policies that admit, or “none of them”, not both."}
			}
			if len(picked) == 0 && !slices.Contains(choices, "none") {
				return Answer{}, UnreadableError{strings.Join(choices, ", "), "Tick the policies that admit the request, or “none of them”."}
			}
			return Answer{Admit: picked}, nil
		}
		return parseWhichText(text, t, lanes)
	}
	return Answer{}, fmt.Errorf("unknown question kind %q", kind)
}

func parseWhichText(raw, t string, lanes []string) (Answer, error) {
	want := "Name the policies that admit (for example “sliding-log”, “the log”, “both” or “neither”)."
	switch t {
	case "both", "all", "all of them", "both of them", "each":
		return Answer{Admit: slices.Clone(lanes)}, nil
	case "neither", "none", "none of them", "nobody", "no one":
		return Answer{Admit: []string{}}, nil
	}
	words := strings.FieldsFunc(t, func(r rune) bool { return r == ',' || r == ' ' || r == ';' || r == '+' || r == '&' })
	picked := map[string]bool{}
	for _, w := range words {
		switch w {
		case "and", "the", "only", "just", "policy", "window", "sliding":
			continue
		}
		matched := false
		for _, l := range lanes {
			if laneMatches(l, w) {
				picked[l] = true
				matched = true
			}
		}
		if !matched {
			return Answer{}, UnreadableError{raw, want}
		}
	}
	if len(picked) == 0 {
		return Answer{}, UnreadableError{raw, want}
	}
	var out []string
	for _, l := range lanes {
		if picked[l] {
			out = append(out, l)
		}
	}
	return Answer{Admit: out}, nil
}

// laneMatches reports whether a learner's word names the lane: its full
// ref, its policy name, or a short name (log, counter, fixed, bucket, …).
func laneMatches(ref, word string) bool {
	if word == ref {
		return true
	}
	spec, err := scenario.ParsePolicyRef(ref)
	if err != nil {
		return false
	}
	if word == spec.Name {
		return true
	}
	short := map[string][]string{
		policies.FixedWindow:    {"fixed", "fixed-window"},
		policies.SlidingLog:     {"log", "sliding-log"},
		policies.SlidingCounter: {"counter", "sliding-counter"},
		policies.SlidingBuckets: {"buckets", "ring", "sliding-buckets"},
		policies.TokenBucket:    {"token", "bucket", "token-bucket"},
		policies.GCRA:           {"gcra"},
	}
	return slices.Contains(short[spec.Name], word)
}

// Feedback is the result of checking one answer.
type Feedback struct {
	Readable   bool
	Problem    string // why the answer could not be read
	Correct    bool
	Given      string // the answer as read, in the page's words
	Right      string // the computed answer, in the page's words
	Solution   Solution
	Difference string // for times: how far off the answer was
}

// Check reads the answer and compares it with the computed one.
func (in Instance) Check(text string, choices []string) (Feedback, error) {
	sol, err := in.Solve()
	if err != nil {
		return Feedback{}, err
	}
	fb := Feedback{Solution: sol, Right: sol.Text()}
	ans, err := ParseAnswer(in.Exercise.Ask, text, choices, in.Exercise.Lanes())
	if err != nil {
		fb.Problem = err.Error()
		return fb, nil
	}
	fb.Readable = true
	given := Solution{Kind: sol.Kind, Outcome: ans.Outcome, Moment: ans.Moment, Count: ans.Count, Admit: ans.Admit}
	fb.Given = given.Text()
	switch sol.Kind {
	case AskOutcome:
		fb.Correct = ans.Outcome == sol.Outcome
	case AskFirstAdmit:
		fb.Correct = ans.Moment == sol.Moment
		if d := ans.Moment - sol.Moment; d > 0 {
			fb.Difference = scenario.FormatMs(d) + " late"
		} else if d < 0 {
			fb.Difference = scenario.FormatMs(-d) + " early"
		}
	case AskCount:
		fb.Correct = ans.Count == sol.Count
	case AskWhich:
		fb.Correct = slices.Equal(ans.Admit, sol.Admit) || len(ans.Admit) == 0 && len(sol.Admit) == 0
	}
	return fb, nil
}

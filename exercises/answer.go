package exercises

import (
	"errors"
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
	Bare    bool     // a time written without a unit, read as seconds
}

// UnreadableError says an answer could not be read, and what would be.
type UnreadableError struct {
	Text string
	Want string
	// Why, when set, says what rules out an answer that was read ("a
	// count can't be negative"), in place of "can't be read".
	Why string
}

func (u UnreadableError) Error() string {
	if strings.TrimSpace(u.Text) == "" {
		return "There is no answer to check yet. " + u.Want
	}
	text := quoted(u.Text)
	if u.Why != "" {
		return fmt.Sprintf("“%s”: %s. %s", text, u.Why, u.Want)
	}
	return fmt.Sprintf("“%s” can't be read as an answer. %s", text, u.Want)
}

// maxQuoted is how much of an answer a message quotes back: enough to
// recognise any answer a question takes, and a 200,000-character one is
// not printed back whole.
const maxQuoted = 60

// quoted is text as a message quotes it, cut at maxQuoted characters.
func quoted(text string) string {
	if r := []rune(text); len(r) > maxQuoted {
		return string(r[:maxQuoted]) + "…"
	}
	return text
}

// exponentWant is the message for a time such as "1e3": big.Rat reads it,
// but no one means 1000 s by it on purpose. It names no example time, so
// it cannot give the answer away.
const exponentWant = "Write the number out in digits, not with an exponent, and give its unit (s or ms)."

// tickWant is what a which-question's checkboxes take.
const tickWant = "Tick at least one policy that admits the request, or “none of them”."

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
	switch {
	case kind == AskOutcome:
		first := strings.FieldsFunc(t, func(r rune) bool { return r == ' ' || r == ',' || r == '.' || r == '!' })
		if len(first) > 0 {
			switch {
			case slices.Contains(yesWords, first[0]):
				return Answer{Outcome: true}, nil
			case slices.Contains(noWords, first[0]):
				return Answer{Outcome: false}, nil
			}
		}
		return Answer{}, UnreadableError{Text: text, Want: "Answer yes or no (admitted or refused)."}
	case kind == AskFirstAdmit:
		t = strings.TrimPrefix(strings.TrimPrefix(t, "at "), "t=")
		t = decimalComma(t)
		ms, err := scenario.ParseMoment(t, 1000)
		if errors.Is(err, scenario.ErrExponent) {
			return Answer{}, UnreadableError{Text: text, Want: exponentWant}
		}
		if err != nil {
			return Answer{}, UnreadableError{Text: text, Want: "Give a time with its unit, such as 12 s or 12000 ms (a bare number is in seconds)."}
		}
		return Answer{Moment: ms, Bare: strings.TrimRight(t, "0123456789., ") == ""}, nil
	case AsksWholeScenario(kind):
		t = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(t, "k"), " ="))
		t = strings.TrimSpace(strings.TrimPrefix(t, "="))
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSuffix(t, " requests"), " cars"))
		if err != nil {
			return Answer{}, UnreadableError{Text: text, Want: "Give a whole number, such as 7."}
		}
		if n < 0 {
			what := "a count"
			if kind == AskCacheLineK {
				what = "k"
			}
			return Answer{}, UnreadableError{Text: text, Why: what + " can't be negative", Want: "Give a whole number from 0 up, such as 7."}
		}
		return Answer{Count: n}, nil
	case kind == AskWhich:
		if len(choices) == 0 && t == "" {
			// The pages ask with checkboxes: speak those, not the words
			// a typed answer takes.
			return Answer{}, UnreadableError{Text: text, Want: tickWant}
		}
		if len(choices) > 0 {
			var picked []string
			for _, l := range lanes {
				if slices.Contains(choices, l) {
					picked = append(picked, l)
				}
			}
			if slices.Contains(choices, "none") && len(picked) > 0 {
				return Answer{}, UnreadableError{Text: strings.Join(choices, ", "), Want: "Tick the policies that admit, or “none of them”, not both."}
			}
			if len(picked) == 0 && !slices.Contains(choices, "none") {
				return Answer{}, UnreadableError{Text: strings.Join(choices, ", "), Want: tickWant}
			}
			return Answer{Admit: picked}, nil
		}
		return parseWhichText(text, t, lanes)
	}
	return Answer{}, fmt.Errorf("unknown question kind %q", kind)
}

// decimalComma reads a comma in a time as many people write a decimal point
// ("36,5 s" is 36.5 s), except in milliseconds, where it can only group
// thousands ("36,000 ms"), or beside a point, where it already does.
func decimalComma(t string) string {
	unit := strings.TrimLeft(t, "0123456789., ")
	if strings.Contains(t, ".") || strings.HasPrefix(unit, "ms") || strings.HasPrefix(unit, "milli") {
		return t
	}
	return strings.ReplaceAll(t, ",", ".")
}

func parseWhichText(raw, t string, lanes []string) (Answer, error) {
	want := whichWant(lanes)
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
			return Answer{}, UnreadableError{Text: raw, Want: want}
		}
	}
	if len(picked) == 0 {
		return Answer{}, UnreadableError{Text: raw, Want: want}
	}
	var out []string
	for _, l := range lanes {
		if picked[l] {
			out = append(out, l)
		}
	}
	return Answer{Admit: out}, nil
}

// whichWant asks for the policies that admit by words this question's
// lanes read back as, so the message never offers a policy the question
// does not ask about.
func whichWant(lanes []string) string {
	var named []string
	for _, l := range lanes {
		named = append(named, fmt.Sprintf("“%s” for the %s", laneWord(l, lanes), Label(l)))
	}
	all, none := "all", "none"
	if len(lanes) == 2 {
		all, none = "both", "neither"
	}
	return fmt.Sprintf("Name the policies that admit: %s; or “%s” or “%s”.", strings.Join(named, ", "), all, none)
}

// laneWord is the shortest word that names ref and no other of the lanes,
// falling back to the ref itself, which always does.
func laneWord(ref string, lanes []string) string {
	spec, err := scenario.ParsePolicyRef(ref)
	if err != nil {
		return ref
	}
	candidates := append([]string{string(spec.Arithmetic)}, shortNames[spec.Name]...)
	for _, w := range candidates {
		if w == "" {
			continue
		}
		n := 0
		for _, l := range lanes {
			if laneMatches(l, w) {
				n++
			}
		}
		if n == 1 && laneMatches(ref, w) {
			return w
		}
	}
	return ref
}

// shortNames are the words, besides its full ref and name, that name a
// policy: the log, the counter, the fixed window, the bucket, …
var shortNames = map[string][]string{
	policies.FixedWindow:    {"fixed", "fixed-window"},
	policies.SlidingLog:     {"log", "sliding-log"},
	policies.SlidingCounter: {"counter", "sliding-counter"},
	policies.SlidingBuckets: {"buckets", "ring", "sliding-buckets"},
	policies.TokenBucket:    {"token", "bucket", "token-bucket"},
	policies.GCRA:           {"gcra"},
	policies.LeakyBucket:    {"leaky", "queue", "leaky-bucket"},
}

// laneMatches reports whether a learner's word names the lane: its full
// ref, its policy name, a short name (log, counter, fixed, bucket, …) or
// its arithmetic (floor, exact).
func laneMatches(ref, word string) bool {
	if word == ref {
		return true
	}
	spec, err := scenario.ParsePolicyRef(ref)
	if err != nil {
		return false
	}
	if word == spec.Name || spec.Arithmetic != "" && word == string(spec.Arithmetic) {
		return true
	}
	return slices.Contains(shortNames[spec.Name], word)
}

// Feedback is the result of checking one answer.
type Feedback struct {
	Readable   bool
	Problem    string // why the answer could not be read
	Correct    bool
	Given      string // the answer as read, in the page's words
	Right      string // the computed answer, in the page's words
	Solution   Solution
	Difference string // for times: how far off the answer was, "2.5 s too early"
	// Direction says which way a wrong time or count is off ("too early",
	// "too many") without giving the answer away, so the learner can try
	// again before looking.
	Direction string
}

// horizon is the last instant a first-admit answer can be: the search for
// it stops three windows after the question's time.
func (in Instance) horizon() int64 {
	return in.At + 3*in.Scenario.WindowMs
}

// TimeExamples are the example times a hint or a message shows for a
// time question. They are worked out from the answer so that none of them
// is the answer: an example must not give the question away.
func (in Instance) TimeExamples(sol Solution) []string {
	for _, whole := range []int64{12, 17} {
		if whole*1000 == sol.Moment || whole*1000+500 == sol.Moment {
			continue
		}
		w := strconv.FormatInt(whole, 10)
		return []string{w, w + " s", w + ".5 s", w + "000 ms"}
	}
	return nil // unreachable: one answer rules out at most one of the two
}

// TimeWant is the sentence a time question's hint and messages use.
func (in Instance) TimeWant(sol Solution) string {
	ex := in.TimeExamples(sol)
	return fmt.Sprintf("Give a time such as %s, %s, %s or %s (a bare number is in seconds; a decimal comma works too).", ex[0], ex[1], ex[2], ex[3])
}

// Check reads the answer and compares it with the computed one.
func (in Instance) Check(text string, choices []string) (Feedback, error) {
	sol, err := in.Solve()
	if err != nil {
		return Feedback{}, err
	}
	fb := Feedback{Solution: sol, Right: sol.Text()}
	ans, err := ParseAnswer(in.Exercise.Ask, text, choices, in.Exercise.Lanes())
	if u, ok := err.(UnreadableError); ok && sol.Kind == AskFirstAdmit && u.Want != exponentWant {
		u.Want = in.TimeWant(sol)
		err = u
	}
	if err != nil {
		fb.Problem = err.Error()
		return fb, nil
	}
	if sol.Kind == AskFirstAdmit && ans.Bare && ans.Moment > in.horizon() && ans.Moment/1000 >= in.At && ans.Moment/1000 <= in.horizon() {
		// Read as seconds, "36000" lies hours past anything the scenario
		// holds; read as milliseconds it is a time the question is about.
		ms := ans.Moment / 1000
		fb.Problem = fmt.Sprintf("%s s is far past anything in this scenario. Did you mean %d ms (%s)? Write the unit to be sure.",
			strings.TrimSpace(text), ms, scenario.FormatMs(ms))
		return fb, nil
	}
	fb.Readable = true
	given := Solution{Kind: sol.Kind, Outcome: ans.Outcome, Moment: ans.Moment, Count: ans.Count, Admit: ans.Admit}
	fb.Given = given.Text()
	switch {
	case sol.Kind == AskOutcome:
		fb.Correct = ans.Outcome == sol.Outcome
	case sol.Kind == AskFirstAdmit:
		fb.Correct = ans.Moment == sol.Moment
		if d := ans.Moment - sol.Moment; d > 0 {
			fb.Difference = scenario.FormatMs(d) + " too late"
			fb.Direction = "too late"
		} else if d < 0 {
			fb.Difference = scenario.FormatMs(-d) + " too early"
			fb.Direction = "too early"
		}
	case AsksWholeScenario(sol.Kind):
		fb.Correct = ans.Count == sol.Count
		more, fewer := "too many", "too few"
		if sol.Kind == AskCacheLineK {
			more, fewer = "too large", "too small"
		}
		if ans.Count > sol.Count {
			fb.Direction = more
		} else if ans.Count < sol.Count {
			fb.Direction = fewer
		}
	case sol.Kind == AskWhich:
		fb.Correct = slices.Equal(ans.Admit, sol.Admit) || len(ans.Admit) == 0 && len(sol.Admit) == 0
	}
	return fb, nil
}

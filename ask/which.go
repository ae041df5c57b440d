package ask

import (
	"fmt"
	"slices"
	"strings"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// which asks which of several lanes admit the next request: answered
// together, by ticking boxes or naming them ("both", "the log").
type which struct{}

func init() { register(which{}) }

func (which) Name() string     { return "which" }
func (which) Instant() Instant { return AtInstant }
func (which) Lanes() LaneRule  { return SeveralLanes }
func (which) About() string    { return "" }

func (which) Validate(*Question) error { return nil }

func (which) Solve(q Question) (Solution, error) {
	sol, err := solveAdmits(q)
	if err != nil {
		return Solution{}, err
	}
	for i, v := range sol.Truth {
		if v == 1 {
			sol.Admit = append(sol.Admit, q.Lanes[i].Ref)
		}
	}
	return sol, nil
}

// tickWant is what a which-question's checkboxes take.
const tickWant = "Tick at least one policy that admits the request, or “none of them”."

// Parse reads the ticked boxes (lane refs, or "none"); when none is
// ticked, the text, accepting "both", "neither", "none", "all" and short
// names such as "log" or "counter".
func (which) Parse(q Question, text string, choices []string) (Answer, error) {
	lanes := q.LaneRefs()
	t := normal(text)
	if len(choices) == 0 && t == "" {
		// The pages ask with checkboxes: speak those, not the words a
		// typed answer takes.
		return Answer{}, UnreadableError{Text: text, Want: tickWant}
	}
	if len(choices) == 0 {
		return parseWhichText(text, t, lanes)
	}
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
		named = append(named, fmt.Sprintf("“%s” for the %s", LaneWord(l, lanes), RefName(l)))
	}
	all, none := "all", "none"
	if len(lanes) == 2 {
		all, none = "both", "neither"
	}
	return fmt.Sprintf("Name the policies that admit: %s; or “%s” or “%s”.", strings.Join(named, ", "), all, none)
}

// LaneWord is the shortest word that names ref and no other of the lanes,
// falling back to the ref itself, which always does.
func LaneWord(ref string, lanes []string) string {
	spec, err := scenario.ParsePolicyRef(ref)
	if err != nil {
		return ref
	}
	candidates := append(append([]string{string(spec.Arithmetic)}, shortNames(spec.Name)...), spec.Name)
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
// policy: the log, the counter, the fixed window, the bucket, … Each
// policy's registry entry lists its own.
func shortNames(name string) []string {
	in, _ := policies.Lookup(name)
	return in.Words
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
	return slices.Contains(shortNames(spec.Name), word)
}

func (k which) Grade(q Question, sol Solution, text string, choices []string) Feedback {
	fb, ans, ok := read(k, q, sol, text, choices)
	if ok {
		fb.Correct = slices.Equal(ans.Admit, sol.Admit) || len(ans.Admit) == 0 && len(sol.Admit) == 0
	}
	return fb
}

// Text names the lanes that admit, "none of them" for none.
func (which) Text(_ Question, a Answer) string {
	if len(a.Admit) == 0 {
		return "none of them"
	}
	var names []string
	for _, ref := range a.Admit {
		names = append(names, RefName(ref))
	}
	if n := len(names); n > 2 {
		return strings.Join(names[:n-1], ", ") + " and " + names[n-1]
	}
	return strings.Join(names, " and ")
}

func (which) Hint(_ Question, _ Solution, form Form) string {
	if form == Prediction {
		return "Tick every one that admits it, or “none of them”."
	}
	return ""
}

// A room does not ask which: its lanes are answered one by one (admit).
func (which) Ask(Question) string { return "" }

func (which) Value(q Question, lane int, text string) (int64, error) { return tapValue(q, lane, text) }

func (which) Check(q Question, lane int, v int64) string {
	return outcome{name: "outcome"}.Check(q, lane, v)
}
func (which) Word(q Question, v int64) string { return outcome{name: "outcome"}.Word(q, v) }
func (which) Choices(q Question) []int64      { return outcome{name: "outcome"}.Choices(q) }

// Clue names the lanes the answer has wrong, and what to work out for
// the first of them, without saying which way each goes.
func (which) Clue(q Question, sol Solution, a Answer) string {
	var wrong []string
	first := -1
	for i, l := range q.Lanes {
		if slices.Contains(a.Admit, l.Ref) != slices.Contains(sol.Admit, l.Ref) {
			wrong = append(wrong, Name(l))
			if first < 0 {
				first = i
			}
		}
	}
	if first < 0 {
		return ""
	}
	right := "Look again at every one"
	if len(wrong) < len(q.Lanes) {
		for i := range wrong {
			wrong[i] = "the " + wrong[i]
		}
		right = "The others are right. Look again at " + joinAnd(wrong)
	}
	return fmt.Sprintf("%s: for the %s, %s", right, Name(q.Lanes[first]), whatDecides(q, first, q.Request.At))
}

package ask

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/windowlab/playground/scenario"
)

// firstAdmit asks for the first instant, at or after the asked one, at
// which the client's request gets in, within HorizonWindows windows.
type firstAdmit struct{}

func init() { register(firstAdmit{}) }

func (firstAdmit) Menu() (string, int) { return "First moment a client gets in?", 3 }
func (firstAdmit) Prompt() string      { return "Moment (e.g. 40 s, 40500 ms, or “never”)" }

func (firstAdmit) Name() string             { return "first-admit" }
func (firstAdmit) Instant() Instant         { return AtInstant }
func (firstAdmit) Lanes() LaneRule          { return AnyLanes }
func (firstAdmit) About() string            { return "" }
func (firstAdmit) Choices(Question) []int64 { return nil } // typed: a moment has too many values to tap

func (firstAdmit) answersInMoments() {}

func (firstAdmit) Validate(*Question) error { return nil }

// Solve finds each lane's first admitting instant. The working is the
// decision at the asked instant, one millisecond before the first
// admitting instant (when that is later) and at it.
func (firstAdmit) Solve(q Question) (Solution, error) {
	sol := Solution{Kind: q.Kind}
	r := q.request()
	for i, l := range q.Lanes {
		at, first, err := firstAdmitted(q.Scenario, l.Spec, r, q.horizon(i))
		if err != nil {
			return Solution{}, err
		}
		if at == Never && !q.NeverAnswers {
			return Solution{}, fmt.Errorf("no request passes within three windows of %s", scenario.FormatMs(r.At))
		}
		sol.Truth = append(sol.Truth, at)
		if at != r.At {
			sol.Trace = append(sol.Trace, step(q, i, first, "a request at "+scenario.FormatMs(r.At)+", the moment asked from, is refused"))
		}
		if at == Never {
			continue
		}
		for _, p := range []struct {
			at   int64
			note string
		}{{at - 1, "one millisecond too early"}, {at, "the first instant that admits"}} {
			if p.at < r.At || p.at == r.At && at != r.At {
				continue
			}
			probe := r
			probe.At = p.at
			d, err := scenario.WhatIf(q.Scenario, l.Spec, probe)
			if err != nil {
				return Solution{}, err
			}
			sol.Trace = append(sol.Trace, step(q, i, d, p.note))
		}
	}
	sol.Moment = sol.Truth[0]
	return sol, nil
}

// firstAdmitted settles the cases with no search first (admitted at once;
// can never pass; would wait past the horizon), so that
// scenario.FirstAdmitted's millisecond-by-millisecond fallback, meant only
// for a policy whose retry-after is wrong, is never entered just to find
// nothing. It returns the instant (Never for none) and the decision at
// r.At.
func firstAdmitted(s scenario.Scenario, spec scenario.PolicySpec, r scenario.Request, horizon int64) (int64, scenario.Decision, error) {
	first, err := scenario.WhatIf(s, spec, r)
	if err != nil {
		return 0, first, err
	}
	if first.Allowed() {
		return r.At, first, nil
	}
	if retry, ok := first.RetryAfter(); !ok || retry > horizon {
		return Never, first, nil
	}
	at, err := scenario.FirstAdmitted(s, spec, r, horizon)
	if errors.Is(err, scenario.ErrNeverAdmitted) {
		return Never, first, nil
	}
	return at, first, err
}

func (firstAdmit) Parse(_ Question, text string, _ []string) (Answer, error) {
	ms, bare, err := readMoment(text)
	if isExponent(err) {
		return Answer{}, UnreadableError{Text: text, Want: ExponentWant}
	}
	if err != nil {
		return Answer{}, UnreadableError{Text: text, Want: "Give a time with its unit, such as 12 s or 12000 ms (a bare number is in seconds)."}
	}
	return Answer{Moment: ms, Bare: bare}, nil
}

func (k firstAdmit) Grade(q Question, sol Solution, text string, choices []string) Feedback {
	fb := Feedback{Solution: sol, Right: k.Text(q, sol.Right())}
	ans, err := k.Parse(q, text, choices)
	if u, ok := err.(UnreadableError); ok && u.Want != ExponentWant {
		u.Want = TimeWant(sol) // examples worked out so as not to be the answer
		err = u
	}
	if err != nil {
		fb.Problem = err.Error()
		return fb
	}
	at, last := q.Request.At, q.Request.At+q.horizon(0)
	if ans.Bare && ans.Moment > last && ans.Moment/1000 >= at && ans.Moment/1000 <= last {
		// Read as seconds, "36000" lies hours past anything the scenario
		// holds; read as milliseconds it is a time the question is about.
		ms := ans.Moment / 1000
		fb.Problem = fmt.Sprintf("%s s is far past anything in this scenario. Did you mean %d ms (%s)? Write the unit to be sure.",
			strings.TrimSpace(text), ms, scenario.FormatMs(ms))
		return fb
	}
	fb.Readable = true
	fb.Given = k.Text(q, ans)
	fb.Correct = ans.Moment == sol.Moment
	fb.Direction = direction(ans.Moment, sol.Moment, "too late", "too early")
	if d := ans.Moment - sol.Moment; d != 0 {
		fb.Difference = scenario.FormatMs(max(d, -d)) + " " + fb.Direction
	}
	return fb
}

// TimeExamples are the example times a hint or a message shows for a
// time question. They are worked out from the answer so that none of them
// is the answer: an example must not give the question away.
func TimeExamples(sol Solution) []string {
	for _, whole := range []int64{12, 17} {
		if whole*1000 == sol.Moment || whole*1000+500 == sol.Moment {
			continue
		}
		w := strconv.FormatInt(whole, 10)
		return []string{w, w + " s", w + ".5 s", w + "000 ms"}
	}
	return nil // unreachable: one answer rules out at most one of the two
}

// TimeWant is the sentence a time question's messages use.
func TimeWant(sol Solution) string {
	ex := TimeExamples(sol)
	return fmt.Sprintf("Give a time such as %s, %s, %s or %s (a bare number is in seconds; a decimal comma works too).", ex[0], ex[1], ex[2], ex[3])
}

func (firstAdmit) Text(_ Question, a Answer) string { return scenario.FormatMs(a.Moment) }

func (firstAdmit) Hint(_ Question, sol Solution, form Form) string {
	ex := TimeExamples(sol)
	if form == Prediction {
		return fmt.Sprintf("A time, such as %s or %s. A bare number is in seconds.", ex[1], ex[3])
	}
	return fmt.Sprintf("A time: %s, %s, %s or %s. A bare number is in seconds.", ex[0], ex[1], ex[2], ex[3])
}

func (firstAdmit) Ask(q Question) string {
	r := q.request()
	return fmt.Sprintf("From %s on, what is the first moment a request from %s (cost %d) gets in%s?", scenario.FormatMs(r.At), theClient(r), r.Cost, servers(q, "on"))
}

// Value reads a typed moment, or "never".
func (firstAdmit) Value(q Question, lane int, text string) (int64, error) {
	if strings.EqualFold(strings.TrimSpace(text), "never") {
		return Never, nil
	}
	ms, _, err := readMoment(text)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not a moment: write it as 40 s, 40.5 s, 40500 ms or never", q.Label(lane), cut(text, 40))
	}
	return ms, nil
}

// Check says a moment as a moment: "300 s", never "300000".
func (firstAdmit) Check(q Question, lane int, v int64) string {
	at := q.Request.At
	switch last := at + q.horizon(lane); {
	case v == Never:
	case v < at:
		return fmt.Sprintf("%s is before the question's moment, %s", scenario.FormatMs(v), scenario.FormatMs(at))
	case v > last:
		return fmt.Sprintf("%s is after %s, the last moment this question looks at (%d windows on): answer never if no moment until then admits it",
			scenario.FormatMs(v), scenario.FormatMs(last), HorizonWindows)
	}
	return ""
}

func (firstAdmit) Word(_ Question, v int64) string {
	if v == Never {
		return "never (within 3 windows)"
	}
	return scenario.FormatMs(v)
}

// Clue says how a wrong moment is off: before the question, by whole
// windows, by the retry-after the first refusal gave, by a millisecond at
// the edge, or else what the policy's working says at the learner's moment.
func (firstAdmit) Clue(q Question, sol Solution, a Answer) string {
	at, right, given := q.Request.At, sol.Moment, a.Moment
	if right == Never || given == right {
		return ""
	}
	spec := q.Lanes[0].Spec
	w := spec.Params(q.Scenario).WindowMs
	d := given - right
	switch {
	case given < at:
		return fmt.Sprintf("%s is before the question's moment, %s: the answer is at or after it.", scenario.FormatMs(given), scenario.FormatMs(at))
	case d == 1 || d == -1:
		return "Off by one millisecond at the edge: check whether the window's bound is strict (< or ≤) at that moment."
	case windowed(spec.Name) && w > 0 && d%w == 0:
		n := max(d/w, -d/w)
		return fmt.Sprintf("Off by exactly %s (%d %s): check which window the requests that block it fall in.", scenario.FormatMs(max(d, -d)), n, plural(n, "window", "windows"))
	}
	r := q.request()
	first, err := scenario.WhatIf(q.Scenario, spec, r)
	retry, hasRetry := first.RetryAfter()
	hasRetry = hasRetry && err == nil
	if hasRetry && given == at+retry {
		return fmt.Sprintf("%s is where the refusal at %s says to retry; the policy still refuses then, so look past it.", scenario.FormatMs(given), scenario.FormatMs(at))
	}
	probe := r
	probe.At = given
	dg, err := scenario.WhatIf(q.Scenario, spec, probe)
	if err != nil {
		return ""
	}
	st := step(q, 0, dg, "")
	if dg.Allowed() {
		// Not the working: at a moment past the answer it names what the
		// answer is (the window that began at it, the tokens since).
		return fmt.Sprintf("At %s the request passes, but an earlier moment already admits it: look for the first.", st.When())
	}
	c := fmt.Sprintf("At %s the request is still refused: %s.", st.When(), st.Working)
	if hasRetry && right == at+retry {
		c += fmt.Sprintf(" The refusal at %s comes with a retry-after: work out what it says.", scenario.FormatMs(at))
	}
	return c
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

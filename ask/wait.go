package ask

import (
	"fmt"
	"slices"
	"strings"

	"github.com/windowlab/playground/scenario"
)

// wait asks how long a request at an instant waits before it is served:
// the delay a queue (the leaky bucket) holds an admitted request for,
// policies.Decision.DelayMs. A lane that never queues answers 0 s. Asked
// of N requests at the instant (a room's N), it is about the last of them,
// which waits behind the others; an exercise asks about one.
//
// A refused request does not wait: it is turned away. An exercise asks
// only about a request that is admitted, so Solve refuses a question whose
// request a lane refuses, naming the instant ("at") to change. A room,
// which asks every lane at the clock whatever they decide, sets
// NeverAnswers instead: a refusing lane's value is then Never, worded
// "refused (it never waits)".
type wait struct{}

func init() { register(wait{}) }

// A room asks it after first-admit: it makes sense of a lane that can
// queue, and any other lane answers 0 s.
func (wait) Menu() (string, int) { return "How long does the next request wait?", 4 }
func (wait) Prompt() string      { return "Wait (e.g. 2 s, 2500 ms, 0, or “refused”)" }

func (wait) asksAboutN()     {}
func (wait) answersInWaits() {}

func (wait) Name() string             { return "wait" }
func (wait) Instant() Instant         { return AtInstant }
func (wait) Lanes() LaneRule          { return AnyLanes }
func (wait) About() string            { return "" }
func (wait) Choices(Question) []int64 { return nil } // typed: a wait has too many values to tap

func (wait) Validate(*Question) error { return nil }

// zeroWords are how people write "it does not wait".
var zeroWords = []string{"none", "no wait", "at once", "immediately", "nothing", "never waits"}

// refusedWords are how a room's phone writes a refusing lane's answer.
var refusedWords = []string{"refused", "refuse", "rejected", "turned away", "never"}

func (wait) Solve(q Question) (Solution, error) {
	sol := Solution{Kind: q.Kind}
	r := q.request()
	for i, l := range q.Lanes {
		d, err := lastAsked(q, l.Spec)
		if err != nil {
			return Solution{}, err
		}
		if !d.Allowed() && !q.NeverAnswers {
			return Solution{}, fmt.Errorf("at: the %s refuses the request at %s, and a refused request never waits: it is turned away; choose an instant at which it is admitted",
				Name(l), scenario.FormatMs(r.At))
		}
		note := "the request asked about"
		v := d.Detail.DelayMs
		if !d.Allowed() {
			note, v = "refused: it never waits", Never
		}
		sol.Trace = append(sol.Trace, step(q, i, d, note))
		sol.Truth = append(sol.Truth, v)
	}
	sol.Wait = sol.Truth[0]
	return sol, nil
}

// lastAsked decides the asked requests in one lane, after the scenario's
// requests before them (scenario.WhatIfN), and returns the last one's
// decision: of N requests at one instant, the last waits longest.
func lastAsked(q Question, spec scenario.PolicySpec) (scenario.Decision, error) {
	r := q.request()
	r.Count = countOf(q)
	ds, err := scenario.WhatIfN(q.Scenario, spec, r)
	if err != nil {
		return scenario.Decision{}, err
	}
	return ds[len(ds)-1], nil
}

// readWait reads a wait as readMoment reads a moment ("2", "2 s", "2,5
// s", "2500 ms"), or a word for none.
func readWait(text string) (ms int64, bare bool, err error) {
	t := normal(text)
	if slices.Contains(zeroWords, t) {
		return 0, false, nil
	}
	t = strings.TrimPrefix(t, "waits ")
	t = strings.TrimPrefix(t, "wait ")
	return readMoment(t)
}

func (wait) Parse(_ Question, text string, _ []string) (Answer, error) {
	ms, bare, err := readWait(text)
	switch {
	case isExponent(err):
		return Answer{}, UnreadableError{Text: text, Want: ExponentWant}
	case err != nil:
		return Answer{}, UnreadableError{Text: text, Want: "Give a wait with its unit, such as 2 s or 2500 ms (a bare number is in seconds; 0 if it is served at once)."}
	}
	return Answer{Wait: ms, Bare: bare}, nil
}

// longest is the longest wait lane i can give a request, in ms: the whole
// queue above the delay drained, one permit per drain interval. 0 for a
// lane that never queues.
func (q Question) longest(i int) int64 {
	p := q.Lanes[i].Spec.Out(q.Scenario)
	if p.Delay == nil || p.Limit < 1 {
		return 0
	}
	excess := (max(int64(p.Burst), 0) - *p.Delay) * p.WindowMs // NoQueue: no queue
	return (excess + p.Limit - 1) / p.Limit
}

func (k wait) Grade(q Question, sol Solution, text string, choices []string) Feedback {
	fb := Feedback{Solution: sol, Right: k.Text(q, sol.Right())}
	ans, err := k.Parse(q, text, choices)
	if u, ok := err.(UnreadableError); ok && u.Want != ExponentWant {
		u.Want = waitWant(sol)
		err = u
	}
	if err != nil {
		fb.Problem = err.Error()
		return fb
	}
	if longest := q.longest(0); ans.Bare && ans.Wait > longest && ans.Wait/1000 <= longest {
		// Read as seconds, "2600" waits far longer than this queue can
		// hold anyone; read as milliseconds it is a wait it can give.
		ms := ans.Wait / 1000
		fb.Problem = fmt.Sprintf("%s s is longer than this queue can make anyone wait. Did you mean %d ms (%s)? Write the unit to be sure.",
			strings.TrimSpace(text), ms, scenario.FormatMs(ms))
		return fb
	}
	fb.Readable = true
	fb.Given = k.Text(q, ans)
	fb.Correct = ans.Wait == sol.Wait
	fb.Direction = direction(ans.Wait, sol.Wait, "too long", "too short")
	if d := ans.Wait - sol.Wait; d != 0 {
		fb.Difference = scenario.FormatMs(max(d, -d)) + " " + fb.Direction
	}
	return fb
}

// waitWant is the sentence the messages use, its examples worked out from
// the answer so that none is the answer.
func waitWant(sol Solution) string {
	ex := TimeExamples(Solution{Moment: sol.Wait})
	return fmt.Sprintf("Give a wait such as %s, %s or %s (a bare number is in seconds; a decimal comma works too; 0 if it is served at once).", ex[1], ex[2], ex[3])
}

func (wait) Text(_ Question, a Answer) string {
	if a.Wait == Never {
		return waitWords(a.Wait)
	}
	return scenario.FormatMs(a.Wait)
}

// waitWords words a wait: "waits 3 s", "no wait", or a refusal.
func waitWords(ms int64) string {
	switch {
	case ms == Never:
		return "refused (it never waits: it is turned away)"
	case ms == 0:
		return "0 s (served at once)"
	}
	return scenario.FormatMs(ms)
}

func (wait) Hint(_ Question, sol Solution, form Form) string {
	ex := TimeExamples(Solution{Moment: sol.Wait})
	if form == Prediction {
		return fmt.Sprintf("A wait, such as %s or %s; 0 if it is served at once.", ex[1], ex[3])
	}
	return fmt.Sprintf("A wait: %s, %s or %s; 0 if it is served at once. A bare number is in seconds.", ex[1], ex[2], ex[3])
}

func (wait) Ask(q Question) string {
	r := q.request()
	if n := countOf(q); n > 1 {
		return fmt.Sprintf("%s sends %d requests (cost %d each) at %s: how long does the last of them wait before it is served%s?", capitalized(theClient(r)), n, r.Cost, scenario.FormatMs(r.At), servers(q, "on"))
	}
	return fmt.Sprintf("How long does a request from %s (cost %d) at %s wait before it is served%s?", theClient(r), r.Cost, scenario.FormatMs(r.At), servers(q, "on"))
}

// Value reads a typed wait, or a word for a refusal.
func (wait) Value(q Question, lane int, text string) (int64, error) {
	if slices.Contains(refusedWords, normal(text)) {
		return Never, nil
	}
	ms, _, err := readWait(text)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not a wait: write it as 2 s, 2.5 s, 2500 ms, 0 or refused", q.Label(lane), cut(text, 40))
	}
	return ms, nil
}

// Check bounds a wait by the longest any lane of the question can make
// anyone wait, not by this lane's own: a lane that never queues would
// otherwise refuse every wait but 0 and so tell its answer before the
// reveal.
func (wait) Check(q Question, _ int, v int64) string {
	longest := int64(0)
	for i := range q.Lanes {
		longest = max(longest, q.longest(i))
	}
	switch {
	case v == Never:
	case v < 0:
		return "a wait can't be negative"
	case v > longest:
		return fmt.Sprintf("%s is longer than any lane here can make anyone wait (%s)", scenario.FormatMs(v), scenario.FormatMs(longest))
	}
	return ""
}

// Fits: only a lane with a queue makes anyone wait; of others every
// answer is 0 s or refused, which is not a question worth a room's time.
func (wait) Fits(q Question) string {
	for i := range q.Lanes {
		if q.longest(i) > 0 {
			return ""
		}
	}
	return "no lane asked about makes a request wait (only a leaky bucket with a queue does): add one, or ask another question"
}

func (wait) Word(_ Question, v int64) string { return waitWords(v) }

// Clue says how a wrong wait is off: 0 for a request that queues, a wait
// for one served at once, the moment it leaves rather than how long it
// waits, a whole number of drain intervals (a permit ahead of it
// miscounted), a millisecond of rounding, or a refusal's retry-after
// taken for a wait.
func (wait) Clue(q Question, sol Solution, a Answer) string {
	right, given := sol.Wait, a.Wait
	if right == Never || given == right || len(q.Lanes) == 0 {
		return ""
	}
	at := q.Request.At
	p := q.Lanes[0].Spec.Out(q.Scenario)
	switch {
	case given == 0:
		return fmt.Sprintf("It is admitted, but not served at once: at %s there are permits ahead of it in the bucket. Count them, and how fast they drain.", scenario.FormatMs(at))
	case right == 0:
		return fmt.Sprintf("At %s the bucket has drained enough that nothing holds it back: check what is left in it, against the permits the delay lets pass at once.", scenario.FormatMs(at))
	case given == at+right && at > 0:
		return fmt.Sprintf("That is the moment it leaves the queue, not how long it waits: count from %s.", scenario.FormatMs(at))
	case given-right == 1 || right-given == 1:
		return "Off by one millisecond: a wait that is not a whole number of milliseconds is rounded up to the next one."
	}
	if p.Limit > 0 && p.WindowMs%p.Limit == 0 {
		if drain, d := p.WindowMs/p.Limit, given-right; d%drain == 0 {
			n := max(d/drain, -d/drain)
			return fmt.Sprintf("Off by exactly %s, %d %s (one permit drains every %s): check how many permits are ahead of it; the one being served counts, and the delay lets some pass at once.",
				scenario.FormatMs(max(d, -d)), n, plural(n, "drain interval", "drain intervals"), scenario.FormatMs(drain))
		}
	}
	for _, retry := range retriesBefore(q) {
		if given == retry {
			return fmt.Sprintf("%s is the retry-after a refused request before %s was given: it says when a refused request would find room, not how long an admitted one waits.", scenario.FormatMs(given), scenario.FormatMs(at))
		}
	}
	return "Work it again: " + whatDecides(q, 0, at)
}

// retriesBefore are the retry-afters lane 0 gave the scenario's refused
// requests before the asked instant.
func retriesBefore(q Question) []int64 {
	s := q.Scenario
	s.Policies = []scenario.PolicySpec{q.Lanes[0].Spec}
	s.Requests = nil
	for _, r := range q.Scenario.Requests {
		if r.At >= q.Request.At {
			break
		}
		s.Requests = append(s.Requests, r)
	}
	if len(s.Requests) == 0 {
		return nil
	}
	res, err := scenario.Run(s)
	if err != nil {
		return nil
	}
	var out []int64
	for _, d := range res.Results[0].Decisions {
		if retry, ok := d.RetryAfter(); ok && !d.Allowed() && !slices.Contains(out, retry) {
			out = append(out, retry)
		}
	}
	return out
}

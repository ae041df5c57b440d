package ask

import (
	"fmt"
	"strconv"

	"github.com/windowlab/playground/scenario"
)

// count asks how many requests get through: of the N asked about at an
// instant (a room's "how many of the next N?"), or, asked of no request,
// of the scenario's own (an exercise's "how many cars get in?").
type count struct{}

func init() { register(count{}) }

func (count) Menu() (string, int) { return "How many of the next N get through?", 2 }
func (count) Prompt() string      { return "" }

func (count) asksAboutN()            {}
func (count) answersInWholeNumbers() {}

func (count) Name() string     { return "count" }
func (count) Instant() Instant { return Either }
func (count) Lanes() LaneRule  { return AnyLanes }
func (count) About() string    { return "" }

func (count) Validate(*Question) error { return nil }

// Solve decides, in each lane, the N asked requests after the scenario's
// requests before them (scenario.WhatIfN), or the scenario's own requests
// (scenario.Run): the one replay loop either way, so that a lane on
// several servers counts what gets through across its nodes as simulate
// decides it.
func (count) Solve(q Question) (Solution, error) {
	sol := Solution{Kind: q.Kind}
	for i, l := range q.Lanes {
		spec := l.Spec
		p := scenario.PolicyResult{Policy: spec.Name, Label: spec.Label(q.Scenario), Params: spec.Out(q.Scenario)}
		var ds []scenario.Decision
		if q.Request != nil {
			r := *q.Request
			r.Count = countOf(q)
			var err error
			if ds, err = scenario.WhatIfN(q.Scenario, spec, r); err != nil {
				return Solution{}, err
			}
		} else {
			s := q.Scenario
			s.Policies = []scenario.PolicySpec{spec}
			res, err := scenario.Run(s)
			if err != nil {
				return Solution{}, err
			}
			p, ds = res.Results[0], res.Results[0].Decisions
		}
		var n int64
		for _, d := range ds {
			if d.Probe {
				continue
			}
			if d.Allowed() {
				n++
			}
			st := stepFrom(p, d, "")
			st.Lane = i
			sol.Trace = append(sol.Trace, st)
		}
		sol.Truth = append(sol.Truth, n)
	}
	sol.Count = int(sol.Truth[0])
	return sol, nil
}

func (count) Parse(_ Question, text string, _ []string) (Answer, error) {
	n, err := readWhole(text, "a count")
	return Answer{Count: n}, err
}

func (k count) Grade(q Question, sol Solution, text string, choices []string) Feedback {
	fb, ans, ok := read(k, q, sol, text, choices)
	if ok {
		fb.Correct = ans.Count == sol.Count
		fb.Direction = direction(int64(ans.Count), int64(sol.Count), "too many", "too few")
	}
	return fb
}

func (count) Text(_ Question, a Answer) string { return strconv.Itoa(a.Count) }

func (count) Hint(Question, Solution, Form) string { return "A whole number." }

func (count) Ask(q Question) string {
	if q.Request == nil {
		return "How many of the scenario's requests get through?"
	}
	r := q.request()
	return fmt.Sprintf("%s sends %d requests (cost %d each) at %s: how many get through%s?", capitalized(theClient(r)), countOf(q), r.Cost, scenario.FormatMs(r.At), servers(q, "across"))
}

func (count) Value(q Question, lane int, text string) (int64, error) { return tapValue(q, lane, text) }

func (count) Check(q Question, _ int, v int64) string {
	switch {
	case q.Request != nil && (v < 0 || v > countOf(q)):
		return fmt.Sprintf("%d is not a count from 0 to %d", v, countOf(q))
	case v < 0:
		return "a count can't be negative"
	}
	return ""
}

func (count) Word(_ Question, v int64) string { return strconv.FormatInt(v, 10) }

// Choices are every count from 0 to N.
func (count) Choices(q Question) []int64 {
	if q.Request == nil {
		return nil
	}
	out := make([]int64, 0, countOf(q)+1)
	for v := range countOf(q) + 1 {
		out = append(out, v)
	}
	return out
}

// countOf is how many requests q asks about: a count of 0 means one.
func countOf(q Question) int64 { return max(q.Request.Count, 1) }

// Clue points at the request the count most likely went wrong at.
func (count) Clue(_ Question, sol Solution, a Answer) string { return countClue(sol, 0, a.Count) }

package exercises

import (
	"github.com/windowlab/playground/ask"
	"github.com/windowlab/playground/scenario"
)

// maxDraws bounds how many variants Instance draws before it falls back to
// the exercise as written: each draw may cost two first-admit searches.
const maxDraws = 32

// finer is how many times finer than a millisecond the grid check
// measures: a microsecond.
const finer = 1000

// onGrid reports whether the variant's answer is a moment the millisecond
// grid did not round. The policies decide in whole milliseconds, so an
// answer such as 30 s + 30/9 s comes out as 33.334 s, which a learner
// working it out by hand cannot be expected to write. Replaying the same
// scenario in microseconds tells the two apart: a threshold that falls on a
// millisecond (or just after one, for a strict "more than") lands on the
// same instant, a rounded one does not. Questions other than first-admit
// have no moment to round. Only the two instants the answer may be in
// microseconds are asked about (four decisions), not a search: a search
// in microseconds could take a thousand times as long as the page's own.
// sol is the variant's own solution, which every caller has just computed.
//
// A wait is rounded up to the next millisecond by the policy itself (a
// leaky bucket draining 3 per second holds the second of two requests
// 333.33… ms, said as 334 ms): the same scenario in microseconds waits
// exactly a thousand times as long only when no rounding happened.
func (in Instance) onGrid(sol Solution) bool {
	if ask.AnswersInWaits(sol.Kind) {
		fine, err := in.scaled(finer).Solve()
		return err == nil && fine.Wait == sol.Wait*finer
	}
	if !ask.AnswersInMoments(sol.Kind) {
		return true
	}
	if sol.Moment == in.At {
		return true // admitted at the question's own instant
	}
	fine := in.scaled(finer).Scenario
	spec, err := fine.Lane(in.Exercise.Policy)
	if err != nil {
		return false
	}
	admits := func(at int64) bool {
		d, err := scenario.WhatIf(fine, spec, scenario.Request{At: at})
		return err == nil && d.Allowed()
	}
	exact := sol.Moment * finer        // the threshold falls on the millisecond
	strict := (sol.Moment-1)*finer + 1 // "more than" a millisecond: just after it
	return admits(exact) && !admits(exact-1) || admits(strict) && !admits(strict-1)
}

// scaled is the variant with every duration multiplied by f.
func (in Instance) scaled(f int64) Instance {
	out := in
	out.At *= f
	out.Scenario.WindowMs *= f
	out.Scenario.Requests = append([]scenario.Request(nil), in.Scenario.Requests...)
	for i := range out.Scenario.Requests {
		out.Scenario.Requests[i].At *= f
	}
	out.Scenario.Policies = append([]scenario.PolicySpec(nil), in.Scenario.Policies...)
	for i := range out.Scenario.Policies {
		p := &out.Scenario.Policies[i]
		p.WindowMs *= f
		p.SyncMs *= f
		p.SkewMs, _ = scaledSkews(p.SkewMs, func(ms int64) (int64, bool) { return ms * f, true })
	}
	return out
}

// scaledSkews is skews with each offset scaled; false when scale says one
// would fall between two milliseconds.
func scaledSkews(skews scenario.Skews, scale func(int64) (int64, bool)) (scenario.Skews, bool) {
	ms := skews.Ms()
	if len(ms) == 0 {
		return skews, true
	}
	out := make([]int64, len(ms))
	for i, v := range ms {
		var ok bool
		if out[i], ok = scale(v); !ok {
			return skews, false
		}
	}
	s, _ := scenario.SkewsOf(out...) // as many as there were
	return s, true
}

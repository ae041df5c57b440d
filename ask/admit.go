package ask

import "github.com/windowlab/playground/scenario"

// solveAdmits decides the asked request in every lane of q: the one solver
// of "is it admitted?", which outcome and which questions share. Truth is
// 1 for a lane that admits, 0 for one that refuses.
func solveAdmits(q Question) (Solution, error) {
	sol := Solution{Kind: q.Kind}
	for i, l := range q.Lanes {
		d, err := scenario.WhatIf(q.Scenario, l.Spec, q.request())
		if err != nil {
			return Solution{}, err
		}
		sol.Trace = append(sol.Trace, step(q, i, d, "the request asked about"))
		sol.Truth = append(sol.Truth, admitted(d.Allowed()))
	}
	return sol, nil
}

// admitted is a verdict as a lane's value.
func admitted(ok bool) int64 {
	if ok {
		return 1
	}
	return 0
}

package exercises

import (
	"math"
	"math/rand/v2"
	"strings"

	"github.com/windowlab/playground/ask"
	"github.com/windowlab/playground/scenario"
)

// Instance is one exercise with its variant chosen: seed 0 is the exercise
// as written, any other seed a variant generated from it, the same every
// time for the same seed.
type Instance struct {
	Exercise *Exercise
	Seed     uint64
	Scenario scenario.Scenario
	At       int64 // the question's instant (unused by count)
}

// Instance returns the variant for seed. A variant whose answer the
// millisecond grid would round (see onGrid), or that has no answer, is
// drawn again, up to maxDraws times, and then the exercise as written
// stands in for it.
func (e *Exercise) Instance(seed uint64) Instance {
	in := Instance{Exercise: e, Seed: seed, Scenario: e.base, At: e.at}
	in.Scenario.Requests = append([]scenario.Request(nil), e.base.Requests...)
	in.Scenario.Policies = append([]scenario.PolicySpec(nil), e.base.Policies...)
	if seed == 0 || e.Vary == nil {
		return in
	}
	rng := rand.New(rand.NewPCG(seed, 0xe8e8c15e))
	for range maxDraws {
		v, ok := e.draw(in, rng)
		if !ok {
			continue
		}
		// A variant must be one a learner can work out, that does not
		// answer itself, and whose story its data bear out.
		if sol, err := v.Solve(); err == nil && v.onGrid(sol) && !v.trivial(sol) && v.contradiction(sol) == "" {
			return v
		}
	}
	return in
}

// draw changes a copy of the exercise as written by the exercise's Vary.
// It reports false for a draw that cannot be laid out: a new limit whose
// requests cannot be spread evenly over the window in whole milliseconds.
func (e *Exercise) draw(in Instance, rng *rand.Rand) (Instance, bool) {
	in.Scenario.Requests = append([]scenario.Request(nil), in.Scenario.Requests...)
	if v := e.Vary.At; v != nil {
		steps := (v.to - v.from) / v.step
		in.At = v.from + rng.Int64N(steps+1)*v.step
	}
	if v := e.Vary.Limit; v != nil {
		old, w := in.Scenario.Limit, in.Scenario.WindowMs
		limit := v[0] + rng.Int64N(v[1]-v[0]+1)
		in.Scenario.Limit = limit
		if evenlySpread(in.Scenario.Requests, old, w) {
			if w%limit != 0 {
				return in, false
			}
			first := in.Scenario.Requests[0]
			in.Scenario.Requests = make([]scenario.Request, limit)
			for i := range limit {
				in.Scenario.Requests[i] = first
				in.Scenario.Requests[i].At = i * (w / limit)
			}
		} else {
			for i, r := range in.Scenario.Requests {
				if r.Count == old {
					in.Scenario.Requests[i].Count = limit
				}
			}
		}
	}
	if v := e.Vary.Window; v != nil {
		steps := (v.to - v.from) / v.step
		return in.rescaled(v.from + rng.Int64N(steps+1)*v.step)
	}
	return in, true
}

// rescaled is the variant with a window of w and every instant scaled with
// it; false when one would fall between two milliseconds.
func (in Instance) rescaled(w int64) (Instance, bool) {
	old := in.Scenario.WindowMs
	scale := func(t int64) (int64, bool) {
		if t != 0 && w > math.MaxInt64/max(t, -t) { // a clock offset may be negative
			return 0, false // past any scenario's bounds
		}
		return t * w / old, t*w%old == 0
	}
	var ok bool
	if in.At, ok = scale(in.At); !ok {
		return in, false
	}
	in.Scenario.WindowMs = w
	for i, r := range in.Scenario.Requests {
		if in.Scenario.Requests[i].At, ok = scale(r.At); !ok {
			return in, false
		}
	}
	in.Scenario.Policies = append([]scenario.PolicySpec(nil), in.Scenario.Policies...)
	for i, p := range in.Scenario.Policies {
		if p.WindowMs != 0 {
			if in.Scenario.Policies[i].WindowMs, ok = scale(p.WindowMs); !ok {
				return in, false
			}
		}
		// Several servers keep their story too: syncs and clock offsets
		// are instants, scaled with the window.
		if in.Scenario.Policies[i].SyncMs, ok = scale(p.SyncMs); !ok {
			return in, false
		}
		if in.Scenario.Policies[i].SkewMs, ok = scaledSkews(p.SkewMs, scale); !ok {
			return in, false
		}
	}
	return in, true
}

// evenlySpread reports whether reqs are n single requests of one key and
// cost at 0, w/n, 2w/n, …: a full first window spread evenly, as a lesson
// draws it. A new limit spreads its requests the same way.
func evenlySpread(reqs []scenario.Request, n, w int64) bool {
	if int64(len(reqs)) != n || n < 2 || w%n != 0 {
		return false
	}
	for i, r := range reqs {
		if r.Count != 1 || r.Probe || r.Key != reqs[0].Key || r.Cost != reqs[0].Cost || r.At != int64(i)*(w/n) {
			return false
		}
	}
	return true
}

// Question is the exercise's question with its placeholders ({at},
// {limit}, {window}, {requests}, {last}) filled in for this variant.
func (in Instance) Question() string {
	return braced.ReplaceAllStringFunc(in.Exercise.Question, func(m string) string {
		if fill, ok := placeholders[strings.Trim(m, "{}")]; ok {
			return fill(in)
		}
		return m // Parse refused the file
	})
}

// Solution is the computed answer with the working that produced it.
type Solution = ask.Solution

// Step is one line of working: a decision with its arithmetic.
type Step = ask.Step

// Asked is the variant's question as package ask asks it: the
// scenario, the policies asked about and, unless it is about the whole
// scenario, the request at the question's instant.
func (in Instance) Asked() ask.Question {
	e := in.Exercise
	q := ask.Question{Kind: e.Ask, Scenario: in.Scenario}
	for _, ref := range e.Lanes() {
		spec, err := in.Scenario.Lane(ref)
		if err != nil {
			continue // Parse refused the file; Solve says so through the kind
		}
		q.Lanes = append(q.Lanes, ask.Lane{Spec: spec, Ref: ref})
	}
	if !e.WholeScenario() {
		q.Request = &scenario.Request{At: in.At}
	}
	return q
}

// Solve computes the answer by running the scenario through the policies.
func (in Instance) Solve() (Solution, error) {
	return ask.Solve(in.Asked())
}

// Label names a policy ref as people read it (explain.Name): "sliding
// counter (exact)" for sliding-counter/exact. A ref that does not parse is
// returned as it is.
func Label(ref string) string { return ask.RefName(ref) }

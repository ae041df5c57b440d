package exercises

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/windowlab/playground/explain"
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
		if sol, err := v.Solve(); err == nil && v.onGrid(sol) {
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
			return in, true
		}
		for i, r := range in.Scenario.Requests {
			if r.Count == old {
				in.Scenario.Requests[i].Count = limit
			}
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

// Question is the exercise's question with {at}, {limit} and {window}
// filled in for this variant.
func (in Instance) Question() string {
	return strings.NewReplacer(
		"{at}", scenario.FormatMs(in.At),
		"{limit}", strconv.FormatInt(in.Scenario.Limit, 10),
		"{window}", scenario.FormatMs(in.Scenario.WindowMs),
	).Replace(in.Exercise.Question)
}

// Solution is the computed answer with the working that produced it.
type Solution struct {
	Kind    string
	Outcome bool     // outcome
	Moment  int64    // first-admit, ms
	Count   int      // count, stack; k for cache-line-k
	Admit   []string // which: the policies (as refs) that admit
	Trace   []Step
}

// Step is one line of working: a decision with its arithmetic.
type Step struct {
	Policy string
	At     int64
	// NoInstant marks a step about no moment (a ring's size), whose At
	// means nothing.
	NoInstant bool
	Outcome   string // explain.Outcome: "admitted", "refused, retry after 5 s", "refused, can never pass"
	Working   string
	Note      string // why this step is shown
}

// Text writes the answer the way the page states it.
func (s Solution) Text() string {
	switch {
	case s.Kind == AskOutcome:
		return explain.Verdict(s.Outcome)
	case s.Kind == AskFirstAdmit:
		return scenario.FormatMs(s.Moment)
	case AsksWholeScenario(s.Kind):
		return strconv.Itoa(s.Count)
	case s.Kind == AskWhich:
		if len(s.Admit) == 0 {
			return "none of them"
		}
		var names []string
		for _, ref := range s.Admit {
			names = append(names, Label(ref))
		}
		if n := len(names); n > 2 {
			return strings.Join(names[:n-1], ", ") + " and " + names[n-1]
		}
		return strings.Join(names, " and ")
	}
	return ""
}

// Solve computes the answer by running the scenario through the policies.
func (in Instance) Solve() (Solution, error) {
	e := in.Exercise
	sol := Solution{Kind: e.Ask}
	s := in.Scenario
	if err := s.Validate(); err != nil {
		return sol, err
	}
	switch e.Ask {
	case AskOutcome, AskWhich:
		for _, ref := range e.Lanes() {
			spec, err := scenario.ParsePolicyRef(ref)
			if err != nil {
				return sol, err
			}
			d, err := scenario.WhatIf(s, spec, scenario.Request{At: in.At})
			if err != nil {
				return sol, err
			}
			sol.Trace = append(sol.Trace, step(s, spec, d, "the request asked about"))
			if e.Ask == AskOutcome {
				sol.Outcome = d.Allowed()
			} else if d.Allowed() {
				sol.Admit = append(sol.Admit, ref)
			}
		}
	case AskFirstAdmit:
		spec, err := scenario.ParsePolicyRef(e.Policy)
		if err != nil {
			return sol, err
		}
		at, err := scenario.FirstAdmitted(s, spec, scenario.Request{At: in.At}, 3*s.WindowMs)
		if err != nil {
			return sol, fmt.Errorf("no request passes within three windows of %s", scenario.FormatMs(in.At))
		}
		sol.Moment = at
		if at > in.At {
			d, _ := scenario.WhatIf(s, spec, scenario.Request{At: in.At})
			sol.Trace = append(sol.Trace, step(s, spec, d, "a request at the start is refused"))
			if at-1 > in.At {
				d, _ = scenario.WhatIf(s, spec, scenario.Request{At: at - 1})
				sol.Trace = append(sol.Trace, step(s, spec, d, "one millisecond too early"))
			}
		}
		d, _ := scenario.WhatIf(s, spec, scenario.Request{At: at})
		sol.Trace = append(sol.Trace, step(s, spec, d, "the first instant that admits"))
	case AskCount:
		spec, err := scenario.ParsePolicyRef(e.Policy)
		if err != nil {
			return sol, err
		}
		one := s
		one.Policies = []scenario.PolicySpec{spec}
		res, err := scenario.Run(one)
		if err != nil {
			return sol, err
		}
		r := res.Results[0]
		sol.Count = r.Admitted
		for _, d := range r.Decisions {
			if !d.Probe {
				sol.Trace = append(sol.Trace, stepFrom(r, d, ""))
			}
		}
	case AskStack:
		steps, err := scenario.StackedSteps(s)
		if err != nil {
			return sol, err
		}
		specs := s.Specs()
		for _, st := range steps {
			if st.RefusedBy < 0 {
				sol.Count++
			}
			sol.Trace = append(sol.Trace, stackStep(s, specs, st))
		}
	case AskCacheLineK:
		w := s.WindowMs
		k, err := scenario.CacheLineBuckets(w, func(k, bytes int64) {
			st := Step{Policy: Label("sliding-buckets/" + strconv.FormatInt(k, 10)), NoInstant: true}
			st.Working = fmt.Sprintf("%d numbers × 8 B = %d B", bytes/8, bytes)
			if bytes > scenario.CacheLineBytes {
				st.Outcome = fmt.Sprintf("over one %d-byte line", scenario.CacheLineBytes)
			} else {
				st.Outcome = fmt.Sprintf("fits one %d-byte line", scenario.CacheLineBytes)
			}
			if w%k == 0 {
				st.Note = fmt.Sprintf("buckets of %s divide the %s window", scenario.FormatMs(w/k), scenario.FormatMs(w))
			} else {
				st.Note = fmt.Sprintf("does not divide the %s window into whole milliseconds", scenario.FormatMs(w))
			}
			sol.Trace = append(sol.Trace, st)
		})
		if err != nil {
			return sol, err
		}
		sol.Count = int(k)
	default:
		return sol, fmt.Errorf("unknown question kind %q", e.Ask)
	}
	return sol, nil
}

// step words one what-if decision.
func step(s scenario.Scenario, spec scenario.PolicySpec, d scenario.Decision, note string) Step {
	p := scenario.PolicyResult{Policy: spec.Name, Label: spec.Label(s), Params: spec.Out(s)}
	return stepFrom(p, d, note)
}

// When is the step's instant as the page writes it, "" for none.
func (s Step) When() string {
	if s.NoInstant {
		return ""
	}
	return scenario.FormatMs(s.At)
}

// stackStep words one request's way through a stack by the lane that
// settled it: the one that refused it, or the last when every lane admitted.
func stackStep(s scenario.Scenario, specs []scenario.PolicySpec, st scenario.StackStep) Step {
	i := len(st.Decisions) - 1
	spec := specs[i]
	note := "every lane admits it"
	if st.RefusedBy >= 0 {
		note = "the lanes before it admitted it"
		if i == 0 {
			note = "the first lane"
		}
		if i < len(specs)-1 {
			note += "; the lanes after it are not asked"
		}
	}
	p := scenario.PolicyResult{Policy: spec.Name, Label: fmt.Sprintf("lane %d: %s", i+1, spec.Label(s)), Params: spec.Out(s)}
	return stepFrom(p, st.Decisions[i], note)
}

func stepFrom(p scenario.PolicyResult, d scenario.Decision, note string) Step {
	return Step{Policy: p.Label, At: d.At, Outcome: explain.Outcome(d.Detail), Working: explain.Working(explain.ForResult(p), d), Note: note}
}

// Label names a policy ref as people read it (explain.Name): "sliding
// counter (exact)" for sliding-counter/exact. A ref that does not parse is
// returned as it is.
func Label(ref string) string {
	spec, err := scenario.ParsePolicyRef(ref)
	if err != nil {
		return ref
	}
	return explain.Name(spec)
}

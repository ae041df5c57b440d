package conform

import (
	"context"
	"fmt"
	"slices"

	"github.com/windowlab/playground/policies"
)

// Option changes what a Run runs.
type Option func(*options)

type options struct {
	seed        uint64
	random      int
	size        int
	lessons     bool
	adversarial bool
	extra       []Named
	only        []Named
	maxRequests int
	budget      int
	costOne     bool
	monotone    bool
}

// MonotoneClock leaves out the scenarios whose clock steps back, for a
// limiter that documents that it needs time to go forward; a peer that
// differs only there is told apart from one that differs elsewhere.
func MonotoneClock() Option { return func(o *options) { o.monotone = true } }

// CostOne sends every request at a cost of one permit, for a limiter that
// takes no cost (an HTTP endpoint: one request, one permit).
func CostOne() Option { return func(o *options) { o.costOne = true } }

// Seed sets the random scenarios' seed (default 1): a run is repeatable.
func Seed(seed uint64) Option { return func(o *options) { o.seed = seed } }

// RandomScenarios sets how many random scenarios of about size requests
// each a run adds (default 40 of 30 on the virtual clock, 3 of 12 on the
// wall clock).
func RandomScenarios(n, size int) Option {
	return func(o *options) { o.random, o.size = n, max(size, 2) }
}

// With adds scenarios to the run (a port's own worked examples).
func With(s ...Named) Option { return func(o *options) { o.extra = append(o.extra, s...) } }

// Only runs just these scenarios: no lessons, random or adversarial ones.
func Only(s ...Named) Option { return func(o *options) { o.only = append(o.only, s...) } }

// WithoutLessons leaves out the lessons' scenarios.
func WithoutLessons() Option { return func(o *options) { o.lessons = false } }

// MaxRequests bounds the requests a run sends in all (a real endpoint's
// budget); the scenarios past it are not run.
func MaxRequests(n int) Option { return func(o *options) { o.maxRequests = n } }

// ShrinkTries bounds the replays shrinking may take (default 2,000 on the
// virtual clock, 40 on the wall clock).
func ShrinkTries(n int) Option { return func(o *options) { o.budget = n } }

// Run drives target through the scenarios for policy with parameters p:
// the adversarial ones, the lessons' (scaled to p's window), any given
// With, then seeded random ones. It stops at the first difference and
// shrinks it. An error is a failure to run (a limiter that cannot be
// built or answers with an error), not a difference.
func Run(ctx context.Context, target Target, policy string, p policies.Params, opts ...Option) (Report, error) {
	if target.Close != nil {
		defer target.Close()
	}
	norm, err := policies.Normalised(policy, p)
	if err != nil {
		return Report{}, err
	}
	o := options{seed: 1, random: 40, size: 30, lessons: true, adversarial: true, budget: 2000}
	if target.Clock.Wall {
		o.random, o.size, o.budget = 3, 12, 40
	}
	for _, opt := range opts {
		opt(&o)
	}
	rep := Report{Target: target.Name, Policy: policy, Params: norm}
	corpus := o.only
	if corpus == nil {
		// The adversarial ones first: they are short, and a run bounded
		// by MaxRequests should not spend its budget elsewhere.
		if o.adversarial {
			corpus = append(corpus, Adversarial(policy, norm)...)
		}
		if o.lessons {
			lib, err := lessonScenarios()
			if err != nil {
				return Report{}, err
			}
			corpus = append(corpus, Lessons(lib, norm.WindowMs)...)
		}
		corpus = append(corpus, o.extra...)
		corpus = append(corpus, Random(o.seed, o.random, norm, o.size)...)
	}
	if o.costOne {
		for i := range corpus {
			reqs := slices.Clone(corpus[i].Requests)
			for j := range reqs {
				reqs[j].Cost = 1
			}
			corpus[i].Requests = reqs
		}
	}
	for _, named := range corpus {
		if o.monotone && stepsBack(named.Requests) {
			continue
		}
		if o.maxRequests > 0 && rep.Requests+len(named.Requests) > o.maxRequests {
			continue
		}
		steps, first, err := replay(ctx, target, policy, norm, named.Requests)
		if err != nil {
			return rep, fmt.Errorf("%s: %w", named.Name, err)
		}
		rep.Scenarios++
		rep.Requests += len(steps)
		for _, s := range steps {
			if !s.Judged {
				rep.Unjudged++
			}
		}
		if first >= 0 {
			sh := &shrinker{ctx: ctx, target: target, policy: policy, p: norm, budget: o.budget}
			rep.Counterexample = newCounterexample(sh, named.Name, steps[:first+1])
			if sh.err != nil {
				return rep, fmt.Errorf("shrinking %s: %w", named.Name, sh.err)
			}
			return rep, nil
		}
	}
	return rep, nil
}

// stepsBack reports whether the clock goes backwards somewhere in reqs.
func stepsBack(reqs []Request) bool {
	for i := 1; i < len(reqs); i++ {
		if reqs[i].At < reqs[i-1].At {
			return true
		}
	}
	return false
}

package conform

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/windowlab/playground/policies"
)

// Counterexample is a smallest scenario found on which the limiter and
// the policy differ, with both sides' answers.
type Counterexample struct {
	From   string // the scenario it was shrunk from
	Policy string
	Params policies.Params
	// Reports are the fields the limiter tells besides allowed.
	Reports Fields
	// Steps are the shrunk scenario's requests replayed; the last differs.
	Steps []Step
	// Tries is how many replays the shrinking took.
	Tries int
}

// Requests are the counterexample's requests.
func (c *Counterexample) Requests() []Request {
	out := make([]Request, len(c.Steps))
	for i, s := range c.Steps {
		out[i] = s.Request
	}
	return out
}

// Scenario is the counterexample as scenario JSON that `playground
// simulate` replays, the policy with its options.
func (c *Counterexample) Scenario() string {
	spec := map[string]any{"name": c.Policy}
	in, _ := policies.Lookup(c.Policy)
	for _, o := range in.Options {
		if v, ok := o.Written(c.Params); ok {
			spec[o.Name] = v
		}
	}
	b, _ := json.Marshal(struct {
		Limit    int64          `json:"limit"`
		WindowMs int64          `json:"windowMs"`
		Policy   map[string]any `json:"policy"`
		Requests []Request      `json:"requests"`
	}{c.Params.Limit, c.Params.WindowMs, spec, c.Requests()}) // plain values: cannot fail
	return string(b)
}

// StepsBack reports whether the counterexample's clock goes backwards,
// which scenario JSON cannot say (simulate refuses it): the requests are
// then in the order the limiter saw them.
func (c *Counterexample) StepsBack() bool { return stepsBack(c.Requests()) }

// Text words the counterexample: each request with the limiter's answer
// beside the policy's, the differing fields, then the scenario JSON.
func (c *Counterexample) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "smallest counterexample (%d requests, shrunk from %q in %d tries):\n", len(c.Steps), c.From, c.Tries)
	for i, s := range c.Steps {
		fmt.Fprintf(&b, "  #%d at %d ms, key %s, cost %d: limiter %s; policy %s\n", i+1, s.Request.At, s.Request.Key, s.Request.Cost, answerText(s.Got, c.Reports), policyText(s.Want.Decision))
		for _, d := range s.Diffs {
			fmt.Fprintf(&b, "      differs in %s\n", d)
		}
	}
	if c.StepsBack() {
		b.WriteString("the clock steps back in it, which simulate refuses; the JSON holds the requests in the order the limiter saw them:\n")
	} else {
		b.WriteString("replay the policy's side with `playground simulate`:\n")
	}
	b.WriteString(c.Scenario())
	b.WriteString("\n")
	return b.String()
}

func answerText(a Answer, reports Fields) string {
	switch {
	case a.Allowed:
		return "admitted"
	case reports&RetryAfter == 0:
		return "refused"
	}
	return fmt.Sprintf("refused (retry-after %s)", msText(a.RetryAfterMs))
}

func policyText(d policies.Decision) string {
	switch {
	case d.Allowed:
		return "admitted"
	case d.Never:
		return "refused, can never pass"
	}
	return fmt.Sprintf("refused (retry-after %s)", msText(d.RetryAfterMs))
}

// shrinker makes a difference smaller while it still shows: fewer
// requests first, then earlier instants, smaller costs and fewer keys.
type shrinker struct {
	ctx    context.Context
	target Target
	policy string
	p      policies.Params
	budget int
	tries  int
	err    error
}

// fails replays reqs and reports whether they still differ.
func (s *shrinker) fails(reqs []Request) ([]Step, bool) {
	if s.tries >= s.budget || s.err != nil || len(reqs) == 0 {
		return nil, false
	}
	s.tries++
	steps, first, err := replay(s.ctx, s.target, s.policy, s.p, reqs)
	if err != nil {
		s.err = err
		return nil, false
	}
	if first < 0 {
		return nil, false
	}
	return steps[:first+1], true
}

// shrink returns the smallest failing scenario it finds from steps, which
// fail at their last.
func (s *shrinker) shrink(steps []Step) []Step {
	best := steps
	reqsOf := func(st []Step) []Request {
		out := make([]Request, len(st))
		for i, x := range st {
			out[i] = x.Request
		}
		return out
	}
	try := func(reqs []Request) bool {
		if got, ok := s.fails(reqs); ok {
			best = got
			return true
		}
		return false
	}
	for progress := true; progress && s.tries < s.budget && s.err == nil; {
		progress = false
		// Fewer requests: drop chunks, halving their size.
		for size := max(len(best)/2, 1); size >= 1; size /= 2 {
			for i := 0; i+size <= len(best); {
				cur := reqsOf(best)
				if try(slices.Delete(slices.Clone(cur), i, i+size)) {
					progress = true
					continue
				}
				i++
			}
		}
		// Smaller numbers: each request's cost, then its instant.
		for i := 0; i < len(best); i++ {
			cur := reqsOf(best)
			r := cur[i]
			for _, cost := range []int64{1, r.Cost / 2} {
				if cost >= 1 && cost < r.Cost {
					c := slices.Clone(cur)
					c[i].Cost = cost
					if try(c) {
						progress = true
						break
					}
				}
			}
			cur = reqsOf(best)
			if i >= len(cur) {
				break
			}
			r = cur[i]
			prev := int64(0)
			if i > 0 {
				prev = min(cur[i-1].At, r.At)
			}
			for _, at := range []int64{prev, prev + (r.At-prev)/2, r.At - 1} {
				if at >= prev && at < r.At {
					c := slices.Clone(cur)
					c[i].At = at
					if try(c) {
						progress = true
						break
					}
				}
			}
		}
		// Earlier: everything moved back so that it starts at 0.
		if cur := reqsOf(best); len(cur) > 0 && cur[0].At > 0 {
			lo := slices.MinFunc(cur, func(a, b Request) int { return int(a.At - b.At) }).At
			if lo > 0 {
				c := slices.Clone(cur)
				for i := range c {
					c[i].At -= lo
				}
				if try(c) {
					progress = true
				}
			}
		}
		// Fewer keys: every key the first's, then each key renamed short.
		if cur := reqsOf(best); len(cur) > 0 {
			c := slices.Clone(cur)
			changed := false
			for i := range c {
				if c[i].Key != cur[0].Key {
					c[i].Key, changed = cur[0].Key, true
				}
			}
			if changed && try(c) {
				progress = true
			}
		}
	}
	return best
}

// newCounterexample shrinks a failing replay of named.
func newCounterexample(s *shrinker, named string, steps []Step) *Counterexample {
	best := s.shrink(steps)
	// Short keys read better; renaming cannot change a decision, as every
	// key starts empty, but the replay says so rather than assuming it.
	names := map[string]string{}
	renamed := make([]Request, len(best))
	for i, st := range best {
		r := st.Request
		if _, ok := names[r.Key]; !ok {
			names[r.Key] = string(rune('a' + len(names)%26))
		}
		r.Key = names[r.Key]
		renamed[i] = r
	}
	if got, ok := s.fails(renamed); ok && len(got) == len(best) {
		best = got
	}
	return &Counterexample{From: named, Policy: s.policy, Params: s.p, Reports: s.target.Reports, Steps: best, Tries: s.tries}
}

package scenario

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/windowlab/playground/policies"
)

// ParsePolicyRef reads the short policy names lessons and exercises use:
// the name, then one part after a / for each option the policy takes, in
// its registry entry's order, up to the last one given:
//
//	sliding-log                  a policy with the scenario's settings
//	sliding-counter/exact        sliding-counter with an arithmetic
//	sliding-buckets/6            sliding-buckets with k sub-buckets
//	token-bucket/20, gcra/20     a burst (capacity) other than the limit
//	leaky-bucket/5/2             a queue of 5, the first 2 excess passing at once
//	leaky-bucket/5/nodelay       (the delay part may be left out: 0, all wait)
//
// It checks the shape only; running the policy checks the values.
func ParsePolicyRef(ref string) (PolicySpec, error) {
	name, rest, hasParts := strings.Cut(strings.TrimSpace(ref), "/")
	in, known := policies.Lookup(name)
	if !known {
		return PolicySpec{}, fmt.Errorf("unknown policy %q (want one of %s)", name, strings.Join(policies.Names, ", "))
	}
	var parts []string
	if hasParts {
		parts = strings.Split(rest, "/")
	}
	switch {
	case len(parts) > 0 && len(in.Options) == 0:
		return PolicySpec{}, fmt.Errorf("%q: %s takes no option after /", ref, name)
	case len(parts) > len(in.Options):
		return PolicySpec{}, fmt.Errorf("%q: %s takes at most %d part(s) after its name (%s)", ref, name, len(in.Options), optionNames(in.Options))
	}
	var set policies.Params
	for i, o := range in.Options {
		if i >= len(parts) {
			if o.Kind == policies.Choice {
				o.Set(&set, 0) // as it runs: the first word
			}
			continue
		}
		v, ok := refValue(o, parts[i])
		if !ok {
			return PolicySpec{}, fmt.Errorf("%q: %s", ref, refWant(o, i, name))
		}
		o.Set(&set, v)
	}
	spec := PolicySpec{Name: name}
	spec.setOptions(set)
	return spec, nil
}

// Ref writes the spec back in the short form ParsePolicyRef reads. Limit
// and window overrides are not part of the short form.
func (p PolicySpec) Ref() string {
	in, _ := policies.Lookup(p.Name)
	set := p.options()
	last := -1
	for i, o := range in.Options {
		if o.Given(set) {
			last = i
		}
	}
	parts := []string{p.Name}
	for _, o := range in.Options[:last+1] {
		parts = append(parts, refPart(o, o.Of(set)))
	}
	return strings.Join(parts, "/")
}

// refPart is value v of option o as a short ref writes it: a choice's or
// the option's word, else the number.
func refPart(o policies.Option, v int64) string {
	if o.Kind == policies.Choice || o.Word != "" && v == o.WordValue {
		return o.Describe(v)
	}
	return strconv.FormatInt(v, 10)
}

// refValue reads a short ref's part for option o: one of a choice's words,
// the option's word, or a whole number of at least 1 (0 would read as the
// option left out).
func refValue(o policies.Option, part string) (int64, bool) {
	if o.Kind == policies.Choice {
		i := slices.Index(o.Choices, part)
		return int64(i), i >= 0
	}
	if o.Word != "" && part == o.Word {
		return o.WordValue, true
	}
	n, err := strconv.ParseInt(part, 10, 64)
	return n, err == nil && n >= 1
}

// refWant says what part i of a short ref, option o of the named policy,
// must be.
func refWant(o policies.Option, i int, name string) string {
	if o.Kind == policies.Choice {
		return fmt.Sprintf("%s takes /%s", name, strings.Join(o.Choices, " or /"))
	}
	after := "/"
	if i > 0 {
		after = ordinal(i+1) + " /"
	}
	want := "a whole number of at least 1"
	if o.Word != "" {
		want += fmt.Sprintf(" or %q", o.Word)
	}
	return fmt.Sprintf("the part after the %s must be %s (%s)", after, want, o.Noun)
}

// ordinal is n as an ordinal word, for the few parts a ref has.
func ordinal(n int) string {
	if words := []string{"first", "second", "third", "fourth"}; n >= 1 && n <= len(words) {
		return words[n-1]
	}
	return fmt.Sprintf("%dth", n)
}

// optionNames names options as a ref orders them: "burst/delay".
func optionNames(opts []policies.Option) string {
	names := make([]string, len(opts))
	for i, o := range opts {
		names[i] = o.Name
	}
	return strings.Join(names, "/")
}

// WhatIf replays the scenario through one policy and then decides one more
// request r, returning that last decision. Requests of the scenario at or
// after r.At are not replayed: the question is what happens to r given what
// came before it. An r without a key belongs to the scenario's client when
// all its requests share one (asking about "one more car" in a car park
// whose cars are named means that car park), and to DefaultKey otherwise.
// A lane on several servers is decided as Run decides it: the request goes
// to the node its routing picks and is decided with what that node knows.
func WhatIf(s Scenario, spec PolicySpec, r Request) (Decision, error) {
	r.Count = 1
	ds, err := WhatIfN(s, spec, r)
	if err != nil {
		return Decision{}, err
	}
	return ds[0], nil
}

// WhatIfN is WhatIf of r.Count requests r at one instant (a count of 0 is
// one): the scenario's requests before r.At, then the asked ones, decided
// by Run through spec alone; it returns the asked ones' decisions, in
// order. Questions about the next N requests (how many get through, how
// long the last waits) ask it, so that they replay as every other question
// does, deployment and all.
func WhatIfN(s Scenario, spec PolicySpec, r Request) ([]Decision, error) {
	if r.Cost == 0 {
		r.Cost = 1
	}
	if r.Key == "" {
		r.Key = s.soleKey()
	}
	r.Count = max(r.Count, 1)
	r.Probe = false
	q := s
	q.Policies = []PolicySpec{spec}
	q.Requests = nil
	for _, old := range s.Requests {
		if old.At >= r.At {
			break
		}
		q.Requests = append(q.Requests, old)
	}
	q.Requests = append(q.Requests, r)
	res, err := Run(q)
	if err != nil {
		return nil, err
	}
	ds := res.Results[0].Decisions
	return ds[len(ds)-int(r.Count):], nil
}

// ErrNeverAdmitted is returned by FirstAdmitted when no instant in the
// searched range admits the request.
var ErrNeverAdmitted = errors.New("no instant in range admits the request")

// FirstAdmitted is the first instant at or after r.At at which WhatIf admits
// r, searching up to r.At + horizon ms. The policy's retryAfter proposes the
// instant; a replay at that instant and one millisecond before it confirms
// it, and if either disagrees the answer comes from trying every
// millisecond instead, so the result never rests on retryAfter alone.
func FirstAdmitted(s Scenario, spec PolicySpec, r Request, horizon int64) (int64, error) {
	first, err := WhatIf(s, spec, r)
	if err != nil {
		return 0, err
	}
	if first.Allowed() {
		return r.At, nil
	}
	if retry, ok := first.RetryAfter(); ok && retry > 0 && retry <= horizon {
		at := r.At + retry
		if ok, err := admitsAt(s, spec, r, at); err == nil && ok {
			if ok, err := admitsAt(s, spec, r, at-1); err == nil && !ok {
				return at, nil
			}
		}
	}
	for at := r.At + 1; at <= r.At+horizon; at++ {
		ok, err := admitsAt(s, spec, r, at)
		if err != nil {
			return 0, err
		}
		if ok {
			return at, nil
		}
	}
	return 0, ErrNeverAdmitted
}

func admitsAt(s Scenario, spec PolicySpec, r Request, at int64) (bool, error) {
	r.At = at
	d, err := WhatIf(s, spec, r)
	return d.Allowed(), err
}

// Stacked runs every policy of the scenario as one chain, the way a service
// that applies a per-second and a per-minute limit in turn does: a request
// is admitted only when each policy admits it, and a policy is asked only
// when every policy before it has admitted (so a request refused early uses
// no budget further along). It returns, per request, whether the chain
// admitted it and which policy (by index) refused it, -1 when none did.
func Stacked(s Scenario) (admitted []bool, refusedBy []int, err error) {
	steps, err := StackedSteps(s)
	if err != nil {
		return nil, nil, err
	}
	for _, st := range steps {
		admitted = append(admitted, st.RefusedBy < 0)
		refusedBy = append(refusedBy, st.RefusedBy)
	}
	return admitted, refusedBy, nil
}

// StackStep is one request's way through a stack of limits.
type StackStep struct {
	At int64
	// Decisions are those of the lanes asked, in order: every lane's when
	// the stack admitted the request, else up to the one that refused it.
	Decisions []Decision
	RefusedBy int // the lane that refused the request, -1 when none did
}

// StackedSteps is Stacked with the decision of every lane asked, so that a
// stack's outcome can be explained lane by lane. Probes are left out. Each
// lane is the one replay loop's (StartLane), fed only the requests the
// lanes before it admitted: a lane on several servers routes and decides
// what reaches it as Run would, had those been its only requests.
func StackedSteps(s Scenario) ([]StackStep, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	specs := s.Specs()
	lanes := make([]*LaneReplay, len(specs))
	fed := make([]Scenario, len(specs)) // what reached each lane so far
	for i := range specs {
		var err error
		if lanes[i], err = StartLane(s, i); err != nil {
			return nil, err
		}
		fed[i] = Scenario{Limit: s.Limit, WindowMs: s.WindowMs, Policies: s.Policies}
	}
	ctx := context.Background()
	var out []StackStep
	for e, r := range s.Requests {
		if r.Probe {
			continue
		}
		one := Request{At: r.At, Key: r.Key, Cost: r.Cost, Count: 1}
		for range r.Count {
			st := StackStep{At: r.At, RefusedBy: -1}
			for i, lane := range lanes {
				var d Decision
				fed[i].Requests = append(fed[i].Requests, one)
				if err := lane.Continue(ctx, fed[i], Hooks{After: func(_ policies.Policy, got Decision) error {
					d = got
					return nil
				}}); err != nil {
					return nil, err
				}
				d.Index, d.Entry = len(out), e
				st.Decisions = append(st.Decisions, d)
				if !d.Allowed() {
					st.RefusedBy = i
					break
				}
			}
			out = append(out, st)
		}
	}
	return out, nil
}

// soleKey is the key every request of the scenario shares, or "" when they
// name more than one (or there are none).
func (s Scenario) soleKey() string {
	key := ""
	for i, r := range s.Requests {
		if i == 0 {
			key = r.KeyName()
		} else if r.KeyName() != key {
			return ""
		}
	}
	return key
}

package scenario

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/windowlab/playground/policies"
)

// ParsePolicyRef reads the short policy names lessons and exercises use:
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
	name, opt, hasOpt := strings.Cut(strings.TrimSpace(ref), "/")
	if _, known := policies.Lookup(name); !known {
		return PolicySpec{}, fmt.Errorf("unknown policy %q (want one of %s)", name, strings.Join(policies.Names, ", "))
	}
	spec := PolicySpec{Name: name}
	option := OptionOf(name)
	if !hasOpt {
		if option == ArithmeticOption {
			spec.Arithmetic = policies.Floor
		}
		return spec, nil
	}
	switch option {
	case ArithmeticOption:
		a := policies.Arithmetic(opt)
		if a != policies.Floor && a != policies.Exact {
			return PolicySpec{}, fmt.Errorf("%q: %s takes /floor or /exact", ref, name)
		}
		spec.Arithmetic = a
	case BucketsOption, BurstOption:
		opt, delay, hasDelay := strings.Cut(opt, "/")
		if hasDelay {
			if err := spec.Delay.UnmarshalJSON(delayJSON(delay)); err != nil || !takes(name, DelayOption) {
				return PolicySpec{}, fmt.Errorf("%q: the part after the second / must be a delay (%s takes none)", ref, name)
			}
		}
		n, err := strconv.ParseInt(opt, 10, 64)
		if err != nil || n < 1 {
			return PolicySpec{}, fmt.Errorf("%q: the part after / must be a whole number of at least 1", ref)
		}
		if option == BucketsOption {
			spec.Buckets = n
		} else {
			spec.Burst = n
		}
	default:
		return PolicySpec{}, fmt.Errorf("%q: %s takes no option after /", ref, name)
	}
	return spec, nil
}

// Ref writes the spec back in the short form ParsePolicyRef reads. Limit
// and window overrides are not part of the short form.
func (p PolicySpec) Ref() string {
	switch option := OptionOf(p.Name); {
	case option == ArithmeticOption && p.Arithmetic != "":
		return p.Name + "/" + string(p.Arithmetic)
	case option == BucketsOption && p.Buckets != 0:
		return p.Name + "/" + strconv.FormatInt(p.Buckets, 10)
	case option == BurstOption && p.Delay != 0:
		d, _ := p.Delay.MarshalJSON()
		return p.Name + "/" + strconv.FormatInt(p.Burst, 10) + "/" + strings.Trim(string(d), `"`)
	case option == BurstOption && p.Burst != 0:
		return p.Name + "/" + strconv.FormatInt(p.Burst, 10)
	}
	return p.Name
}

// delayJSON is a short ref's delay part as JSON: the word quoted, a number
// as it is.
func delayJSON(part string) []byte {
	if _, err := strconv.ParseInt(part, 10, 64); err == nil {
		return []byte(part)
	}
	return []byte(strconv.Quote(part))
}

// takes reports whether the named policy takes option o.
func takes(name string, o Option) bool {
	in, ok := policies.Lookup(name)
	return ok && in.Takes(string(o))
}

// WhatIf replays the scenario through one policy and then decides one more
// request r, returning that last decision. Requests of the scenario at or
// after r.At are not replayed: the question is what happens to r given what
// came before it. An r without a key belongs to the scenario's client when
// all its requests share one (asking about "one more car" in a car park
// whose cars are named means that car park), and to DefaultKey otherwise.
func WhatIf(s Scenario, spec PolicySpec, r Request) (Decision, error) {
	r.Count = 1
	ds, err := WhatIfAll(s, spec, r)
	if err != nil {
		return Decision{}, err
	}
	return ds[0], nil
}

// WhatIfAll is WhatIf for r.Count requests at r.At (at least one), all
// decided after what came before them: their decisions, in order. It is
// the one place a question's requests join a scenario, so that "three more
// cars" belong to the same client as "one more car".
func WhatIfAll(s Scenario, spec PolicySpec, r Request) ([]Decision, error) {
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
// stack's outcome can be explained lane by lane. Probes are left out.
func StackedSteps(s Scenario) ([]StackStep, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	specs := s.Specs()
	pols := make([]policies.Policy, len(specs))
	for i, spec := range specs {
		var err error
		if pols[i], err = policies.New(spec.Name, spec.Params(s)); err != nil {
			return nil, err
		}
	}
	var out []StackStep
	for e, r := range s.Requests {
		key := KeyOf(r.KeyName())
		for range r.Count {
			if r.Probe {
				continue
			}
			st := StackStep{At: r.At, RefusedBy: -1}
			for i, p := range pols {
				d := p.Decide(key, r.At, r.Cost)
				st.Decisions = append(st.Decisions, Decision{Index: len(out), Entry: e, At: r.At, Key: r.KeyName(), Cost: r.Cost, Estimate: d.Estimate, Detail: d})
				if !d.Allowed {
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

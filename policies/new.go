package policies

import "fmt"

// MaxBuckets bounds Params.Buckets for sliding-buckets: each key holds
// Buckets+1 slots, and a refused request's retryAfter walks them once.
const MaxBuckets = 1024

// newPolicy validates p for the named policy and builds it. Parameters a
// policy does not use are not checked. The policy's Params() reports the
// normalised values (see Normalised).
func newPolicy(name string, p Params) (Local, error) {
	info, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("policies: unknown policy %q (want one of %v)", name, Names)
	}
	p, err := normalised(info, p)
	if err != nil {
		return nil, err
	}
	return info.make(p), nil
}

// Normalised validates p for the named policy as New does and returns the
// parameters the policy runs with: Arithmetic "" becomes Floor, Burst 0
// becomes Limit, and a leaky bucket's NoDelay its burst. It is the one
// place options are resolved; what a page or an answer shows as "what it
// ran with" comes from here, without building the policy.
func Normalised(name string, p Params) (Params, error) {
	info, ok := Lookup(name)
	if !ok {
		return Params{}, fmt.Errorf("policies: unknown policy %q (want one of %v)", name, Names)
	}
	return normalised(info, p)
}

func normalised(info Info, p Params) (Params, error) {
	name := info.Name
	if p.Limit < 1 || p.Limit > MaxLimit {
		return Params{}, paramErr(name, "limit", "limit %d is out of range [1, %d]", p.Limit, MaxLimit)
	}
	if p.WindowMs < 1 || p.WindowMs > MaxWindowMs {
		return Params{}, paramErr(name, "windowMs", "windowMs %d is out of range [1, %d]", p.WindowMs, int64(MaxWindowMs))
	}
	for _, o := range info.Options {
		if err := o.normalise(name, &p); err != nil {
			return Params{}, err
		}
	}
	return p, nil
}

// ruleOf validates p for the named policy, as New does (with its errors),
// and builds its rule.
func ruleOf[R any](name string, p Params, build func(Params) R) (R, error) {
	p, err := Normalised(name, p)
	if err != nil {
		var zero R
		return zero, err
	}
	return build(p), nil
}

// ParamError is a policy's refusal of one of its parameters. Field is the
// parameter as scenarios and JSON spell it ("limit", "buckets", an
// Option's Name), so that a caller can name the exact field it came from
// ("policies[0].buckets") rather than the policy as a whole.
type ParamError struct {
	Policy string // the policy's name: "sliding-buckets"
	Field  string
	Reason string // "windowMs 30000 is not a multiple of buckets 7"
}

func (e *ParamError) Error() string { return "policies: " + e.Policy + ": " + e.Reason }

func paramErr(policy, field, format string, args ...any) error {
	return &ParamError{Policy: policy, Field: field, Reason: fmt.Sprintf(format, args...)}
}

package play

import (
	"fmt"
	"slices"
	"strings"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// Kind is one box of the settings form: a policy and, for a policy whose
// option is a choice (sliding-counter's arithmetic), one of its choices.
// Every lane belongs to exactly one kind.
type Kind struct {
	Name       string
	Arithmetic policies.Arithmetic
}

// KindOf is the kind a lane belongs to (a sliding-counter without an
// arithmetic is a floor one, as it runs).
func KindOf(p scenario.PolicySpec) Kind {
	k := Kind{Name: p.Name}
	if scenario.OptionOf(p.Name) == scenario.ArithmeticOption {
		k.Arithmetic = p.Params(scenario.Scenario{}).Arithmetic
	}
	return k
}

// Kinds lists the form's boxes in the order it shows them: each
// registered policy, once per choice of a choice option.
func Kinds() []Kind {
	var out []Kind
	for _, in := range policies.Registered() {
		if scenario.OptionOf(in.Name) != scenario.ArithmeticOption {
			out = append(out, Kind{Name: in.Name})
			continue
		}
		for _, c := range policies.ArithmeticOption.Choices {
			out = append(out, Kind{Name: in.Name, Arithmetic: policies.Arithmetic(c)})
		}
	}
	return out
}

// Label is how the form names the box: "sliding-counter (floor)".
func (k Kind) Label() string {
	if k.Arithmetic != "" {
		return k.Name + " (" + string(k.Arithmetic) + ")"
	}
	return k.Name
}

// Signal is the name of the box's signal on the page: "useSlidingLog",
// "useSlidingCounterFloor", "useGcra".
func (k Kind) Signal() string {
	var b strings.Builder
	b.WriteString("use")
	for _, w := range strings.FieldsFunc(k.Name+"-"+string(k.Arithmetic), func(r rune) bool { return r == '-' }) {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

// Field is one number field of the settings form: an option that some
// policies take (k, burst), with the policies that take it. A checked box
// of one of them sends the field.
type Field struct {
	Option   policies.Option
	Policies []string
	// Max is the option's bound in a scenario, which caps every count
	// at scenario.MaxLimit.
	Max int64
}

// Fields lists the form's number fields, in the order of the first policy
// that takes each.
func Fields() []Field {
	var out []Field
	for _, in := range policies.Registered() {
		for _, o := range in.Options {
			if o.Kind != policies.Number || slices.ContainsFunc(out, func(f Field) bool { return f.Option.Name == o.Name }) {
				continue
			}
			out = append(out, Field{Option: o, Policies: policies.Taking(o.Name), Max: min(o.Max, scenario.MaxLimit)})
		}
	}
	return out
}

// Sends reports whether the field is read with the checked kinds: some
// checked box is a policy that takes its option.
func (f Field) Sends(checked []Kind) bool {
	return slices.ContainsFunc(checked, func(k Kind) bool { return slices.Contains(f.Policies, k.Name) })
}

// Shown is the value the field stands for with sc's lanes: the option of
// the first lane (in registry order of the policies taking it) that sets
// it, or the option's default.
func (f Field) Shown(sc scenario.Scenario) int64 {
	for _, name := range f.Policies {
		for _, p := range sc.Specs() {
			if p.Name != name {
				continue
			}
			if v := number(p, sc, scenario.Option(f.Option.Name)); v != 0 {
				return v
			}
		}
	}
	return f.Option.Default
}

// number is the lane's value of a number option as the form shows it: k
// as it runs, a burst as given (0: the limit).
func number(p scenario.PolicySpec, sc scenario.Scenario, o scenario.Option) int64 {
	switch o {
	case scenario.BucketsOption:
		return p.Params(sc).Buckets
	case scenario.BurstOption:
		return p.Burst
	case scenario.DelayOption:
		// As it runs (nodelay is the whole burst, which the field can
		// hold), as the answer's params say it.
		if d := p.Out(sc).Delay; d != nil {
			return *d
		}
	}
	return 0
}

// Form is what the settings form sends: the shared settings, the checked
// kinds, and the k, burst and delay fields with whether the visitor changed them
// from what the form showed.
type Form struct {
	Limit    int64
	WindowMs int64
	Checked  []Kind
	// Buckets is k for sliding-buckets lanes; Burst is the burst of
	// token-bucket and gcra lanes (0: the limit). A new lane takes them;
	// the existing lanes of their kind take them only when they are Set.
	Buckets, Burst       int64
	SetBuckets, SetBurst bool
	// Delay is leaky-bucket's delay, taken like Burst.
	Delay    int64
	SetDelay bool
	// Servers sets the servers of current lane i (its index before the
	// merge) to Servers[i]; a lane without an entry keeps its own, and a
	// new lane runs on one server (see ServersRule).
	Servers map[int]scenario.Deployment
}

// FormRule is the merge of Form.Merge in one sentence, as the page states it.
const FormRule = "Applying keeps every lane whose box stays checked, with its own limit and window; unchecking a box removes its lanes, checking a new one adds one lane, and k or burst, when you change them, apply to every lane of their kind."

// Merge returns the lanes the form asks for, given the current ones (see
// FormRule): the current lanes of a checked kind stay, in their order and
// with their own limit, window and options, except that a changed k or
// burst replaces theirs; lanes of an unchecked kind go; each checked kind
// with no lane yet adds one at the end, with the form's k or burst. A lane
// is only ever lost by unchecking its kind.
func (f Form) Merge(current []scenario.PolicySpec) []scenario.PolicySpec {
	var out []scenario.PolicySpec
	have := map[Kind]bool{}
	for i, p := range current {
		k := KindOf(p)
		if !slices.Contains(f.Checked, k) {
			continue
		}
		have[k] = true
		if d, ok := f.Servers[i]; ok {
			p.Deployment = d
		}
		for _, o := range numberOptions(p.Name) {
			if v, set := f.Number(o); set {
				p = withNumber(p, o, v)
			}
		}
		out = append(out, p)
	}
	for _, k := range f.Checked {
		if have[k] {
			continue
		}
		have[k] = true
		p := scenario.PolicySpec{Name: k.Name, Arithmetic: k.Arithmetic}
		for _, o := range numberOptions(k.Name) {
			v, _ := f.Number(o)
			p = withNumber(p, o, v)
		}
		out = append(out, p)
	}
	return out
}

// numberOptions are the number options the named policy takes, in its
// registry entry's order (leaky-bucket: burst, then delay).
func numberOptions(name string) []scenario.Option {
	in, _ := policies.Lookup(name)
	var out []scenario.Option
	for _, o := range in.Options {
		if o.Kind == policies.Number {
			out = append(out, scenario.Option(o.Name))
		}
	}
	return out
}

// Number is the form's value of a number option and whether the visitor
// changed it from what the form showed.
func (f Form) Number(o scenario.Option) (v int64, set bool) {
	switch o {
	case scenario.BucketsOption:
		return f.Buckets, f.SetBuckets
	case scenario.BurstOption:
		return f.Burst, f.SetBurst
	case scenario.DelayOption:
		return f.Delay, f.SetDelay
	}
	return 0, false
}

// SetNumber records the form's value of a number option and whether the
// visitor changed it.
func (f *Form) SetNumber(o scenario.Option, v int64, set bool) {
	switch o {
	case scenario.BucketsOption:
		f.Buckets, f.SetBuckets = v, set
	case scenario.BurstOption:
		f.Burst, f.SetBurst = v, set
	case scenario.DelayOption:
		f.Delay, f.SetDelay = v, set
	}
}

// withNumber is p with its number option o set to v.
func withNumber(p scenario.PolicySpec, o scenario.Option, v int64) scenario.PolicySpec {
	switch o {
	case scenario.BucketsOption:
		p.Buckets = v
	case scenario.BurstOption:
		p.Burst = v
	case scenario.DelayOption:
		p.Delay = scenario.Delay(v)
	}
	return p
}

// ApplyForm applies the settings form: the lanes become f.Merge of the
// current ones, then everything happens as in Apply (invalid settings
// return scenario.Errors naming the fields and change nothing).
func (s *Session) ApplyForm(f Form) error {
	return s.do(func() error {
		merged := f.Merge(s.sc.Specs())
		if err := bucketsDivide(scenario.Scenario{Limit: f.Limit, WindowMs: f.WindowMs, Policies: merged}); err != nil {
			return err
		}
		return s.apply(Settings{Limit: f.Limit, WindowMs: f.WindowMs, Policies: merged})
	})
}

// bucketsDivide refuses, on the form's "buckets" field and in the form's
// words, a sliding-buckets lane whose k does not split its window into
// whole milliseconds (the policy needs equal sub-buckets), suggesting the
// nearest k that does.
func bucketsDivide(sc scenario.Scenario) error {
	var errs scenario.Errors
	for _, p := range sc.Policies {
		if scenario.OptionOf(p.Name) != scenario.BucketsOption {
			continue
		}
		prm := p.Params(sc)
		if prm.Buckets < 1 || prm.WindowMs < 1 || prm.WindowMs%prm.Buckets == 0 {
			continue
		}
		e := scenario.FieldError{Field: "buckets", Reason: fmt.Sprintf(
			"%d does not split the %s window into equal whole milliseconds; try %s",
			prm.Buckets, scenario.FormatMs(prm.WindowMs), nearDivisors(prm.WindowMs, prm.Buckets))}
		if !slices.Contains(errs, e) { // lanes alike say it once
			errs = append(errs, e)
		}
	}
	if errs != nil {
		return errs
	}
	return nil
}

// nearDivisors names the divisors of w nearest below and above k (within
// policies.MaxBuckets): "6 or 8".
func nearDivisors(w, k int64) string {
	var out []string
	for d := k - 1; d >= 1; d-- {
		if w%d == 0 {
			out = append(out, fmt.Sprint(d))
			break
		}
	}
	for d := k + 1; d <= policies.MaxBuckets && d <= w; d++ {
		if w%d == 0 {
			out = append(out, fmt.Sprint(d))
			break
		}
	}
	return strings.Join(out, " or ")
}

// Overrides describes, one line per lane, what a lane keeps of its own
// through an apply of the settings form: its own limit or window (e.g.
// "token-bucket (burst 10) keeps its own window 60 s"), and, for kinds with
// several lanes whose k or burst differ, that a changed k or burst applies
// to all of them.
func Overrides(sc scenario.Scenario) []string {
	var out []string
	specs := sc.Specs()
	for _, p := range specs {
		var own []string
		if p.Limit != 0 {
			own = append(own, fmt.Sprintf("limit %d", p.Limit))
		}
		if p.WindowMs != 0 {
			own = append(own, "window "+scenario.FormatMs(p.WindowMs))
		}
		if len(own) == 0 {
			continue
		}
		base := p
		base.Limit, base.WindowMs = 0, 0
		out = append(out, base.Label(sc)+" keeps its own "+strings.Join(own, " and "))
	}
	for _, fld := range Fields() {
		o := scenario.Option(fld.Option.Name)
		field := strings.ToLower(fld.Option.Label)
		var labels []string
		values := map[int64]bool{}
		for _, p := range specs {
			if scenario.OptionOf(p.Name) != o {
				continue
			}
			values[number(p, sc, o)] = true
			labels = append(labels, p.Label(sc))
		}
		if len(values) > 1 {
			out = append(out, fmt.Sprintf("%s differ in %s: a changed %s applies to all %d %s lanes",
				strings.Join(labels, ", "), field, field, len(labels), policies.JoinNames(fld.Policies)))
		}
	}
	return out
}

package play

import (
	"fmt"
	"slices"
	"strings"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// Kind is one box of the settings form: a policy and, for a policy that
// takes a choice option (sliding-counter's arithmetic), one of its words.
// Every lane belongs to exactly one kind.
type Kind struct {
	Name   string
	Choice string // "floor"; "" for a policy taking no choice
}

// choiceOf is the choice option the named policy takes, if any: the form
// gives each of its words a box of its own.
func choiceOf(name string) (policies.Option, bool) {
	in, _ := policies.Lookup(name)
	return in.Choice()
}

// KindOf is the kind a lane belongs to (a sliding-counter without an
// arithmetic is a floor one, as it runs).
func KindOf(p scenario.PolicySpec) Kind {
	k := Kind{Name: p.Name}
	if o, ok := choiceOf(p.Name); ok {
		if v := o.Of(p.Params(scenario.Scenario{})); v >= 0 {
			k.Choice = o.Choices[v]
		}
	}
	return k
}

// Kinds lists the form's boxes in the order it shows them: each
// registered policy, once per word of a choice option.
func Kinds() []Kind {
	var out []Kind
	for _, in := range policies.Registered() {
		o, ok := choiceOf(in.Name)
		if !ok {
			out = append(out, Kind{Name: in.Name})
			continue
		}
		for _, c := range o.Choices {
			out = append(out, Kind{Name: in.Name, Choice: c})
		}
	}
	return out
}

// spec is a new lane of the kind, its choice set.
func (k Kind) spec() scenario.PolicySpec {
	p := scenario.PolicySpec{Name: k.Name}
	if o, ok := choiceOf(k.Name); ok && slices.Contains(o.Choices, k.Choice) {
		p = p.WithOption(o, int64(slices.Index(o.Choices, k.Choice)))
	}
	return p
}

// Label is how the form names the box: "sliding-counter (floor)".
func (k Kind) Label() string {
	if k.Choice != "" {
		return k.Name + " (" + k.Choice + ")"
	}
	return k.Name
}

// Signal is the name of the box's signal on the page: "useSlidingLog",
// "useSlidingCounterFloor", "useGcra".
func (k Kind) Signal() string {
	var b strings.Builder
	b.WriteString("use")
	for _, w := range strings.FieldsFunc(k.Name+"-"+k.Choice, func(r rune) bool { return r == '-' }) {
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
			if v := number(p, sc, f.Option); v != 0 {
				return v
			}
		}
	}
	return f.Option.Default
}

// number is the lane's value of a number option as the form shows it: as
// it runs (k left out is its default, nodelay the whole burst, which the
// field can hold), except that an option the policy derives when left out
// shows 0, as its help says (a burst: 0 = limit).
func number(p scenario.PolicySpec, sc scenario.Scenario, o policies.Option) int64 {
	given := p.Option(o)
	if given == 0 && o.Default == 0 {
		return 0
	}
	run, err := policies.Normalised(p.Name, p.Params(sc))
	if err != nil {
		return given
	}
	return o.Of(run)
}

// Form is what the settings form sends: the shared settings, the checked
// kinds, and its number fields (Fields) with whether the visitor changed
// them from what the form showed.
type Form struct {
	Limit    int64
	WindowMs int64
	Checked  []Kind
	// Numbers are the number fields sent, by option name (k, burst,
	// delay). A new lane takes them; the existing lanes of a kind take
	// one only when it is Changed.
	Numbers map[string]Entered
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
				p = p.WithOption(o, v)
			}
		}
		out = append(out, p)
	}
	for _, k := range f.Checked {
		if have[k] {
			continue
		}
		have[k] = true
		p := k.spec()
		for _, o := range numberOptions(k.Name) {
			v, _ := f.Number(o)
			p = p.WithOption(o, v)
		}
		out = append(out, p)
	}
	return out
}

// numberOptions are the number options the named policy takes, in its
// registry entry's order (leaky-bucket: burst, then delay).
func numberOptions(name string) []policies.Option {
	in, _ := policies.Lookup(name)
	var out []policies.Option
	for _, o := range in.Options {
		if o.Kind == policies.Number {
			out = append(out, o)
		}
	}
	return out
}

// Entered is one number field as the form sent it.
type Entered struct {
	Value   int64
	Changed bool // the visitor changed it from what the form showed
}

// Number is the form's value of a number option and whether the visitor
// changed it from what the form showed.
func (f Form) Number(o policies.Option) (v int64, changed bool) {
	e := f.Numbers[o.Name]
	return e.Value, e.Changed
}

// SetNumber records the form's value of a number option and whether the
// visitor changed it.
func (f *Form) SetNumber(o policies.Option, v int64, changed bool) {
	if f.Numbers == nil {
		f.Numbers = map[string]Entered{}
	}
	f.Numbers[o.Name] = Entered{v, changed}
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

// bucketsDivide refuses, on the option's field and in the form's words, a
// lane whose option that must divide the window (sliding-buckets' k: the
// policy needs equal sub-buckets) does not split it into whole
// milliseconds, suggesting the nearest values that do.
func bucketsDivide(sc scenario.Scenario) error {
	var errs scenario.Errors
	for _, p := range sc.Policies {
		in, _ := policies.Lookup(p.Name)
		o, ok := in.Divisor()
		if !ok {
			continue
		}
		prm := p.Params(sc)
		k := o.Of(prm)
		if k < 1 || prm.WindowMs < 1 || prm.WindowMs%k == 0 {
			continue
		}
		// The field may serve policies that need no divisor too (k is
		// exp-histogram's as well), so the reason names the one that does.
		e := scenario.FieldError{Field: o.Name, Reason: fmt.Sprintf(
			"for %s, %d does not split the %s window into equal whole milliseconds; try %s",
			p.Name, k, scenario.FormatMs(prm.WindowMs), nearDivisors(prm.WindowMs, k, o.Max))}
		if !slices.Contains(errs, e) { // lanes alike say it once
			errs = append(errs, e)
		}
	}
	if errs != nil {
		return errs
	}
	return nil
}

// nearDivisors names the divisors of w nearest below and above k (up to
// most): "6 or 8".
func nearDivisors(w, k, most int64) string {
	var out []string
	for d := k - 1; d >= 1; d-- {
		if w%d == 0 {
			out = append(out, fmt.Sprint(d))
			break
		}
	}
	for d := k + 1; d <= most && d <= w; d++ {
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
		field := strings.ToLower(fld.Option.Label)
		var labels []string
		values := map[int64]bool{}
		for _, p := range specs {
			if !slices.Contains(fld.Policies, p.Name) {
				continue
			}
			values[number(p, sc, fld.Option)] = true
			labels = append(labels, p.Label(sc))
		}
		if len(values) > 1 {
			out = append(out, fmt.Sprintf("%s differ in %s: a changed %s applies to all %d %s lanes",
				strings.Join(labels, ", "), field, field, len(labels), policies.JoinNames(fld.Policies)))
		}
	}
	return out
}

package play

import (
	"fmt"
	"slices"
	"strings"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// Kind is one box of the settings form: a policy and, for sliding-counter,
// its arithmetic. Every lane belongs to exactly one kind.
type Kind struct {
	Name       string
	Arithmetic policies.Arithmetic
}

// KindOf is the kind a lane belongs to (a sliding-counter without an
// arithmetic is a floor one, as it runs).
func KindOf(p scenario.PolicySpec) Kind {
	k := Kind{Name: p.Name}
	if p.Name == policies.SlidingCounter {
		k.Arithmetic = p.Arithmetic
		if k.Arithmetic == "" {
			k.Arithmetic = policies.Floor
		}
	}
	return k
}

// Form is what the settings form sends: the shared settings, the checked
// kinds, and the k and burst fields with whether the visitor changed them
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
	for _, p := range current {
		k := KindOf(p)
		if !slices.Contains(f.Checked, k) {
			continue
		}
		have[k] = true
		switch option := scenario.OptionOf(p.Name); {
		case option == scenario.BucketsOption && f.SetBuckets:
			p.Buckets = f.Buckets
		case option == scenario.BurstOption && f.SetBurst:
			p.Burst = f.Burst
		}
		out = append(out, p)
	}
	for _, k := range f.Checked {
		if have[k] {
			continue
		}
		have[k] = true
		p := scenario.PolicySpec{Name: k.Name, Arithmetic: k.Arithmetic}
		switch scenario.OptionOf(k.Name) {
		case scenario.BucketsOption:
			p.Buckets = f.Buckets
		case scenario.BurstOption:
			p.Burst = f.Burst
		}
		out = append(out, p)
	}
	return out
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
		if p.Name != policies.SlidingBuckets {
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
	for _, o := range []struct {
		field, kinds string
		option       scenario.Option
	}{
		{"k", policies.SlidingBuckets, scenario.BucketsOption},
		{"burst", policies.TokenBucket + " and " + policies.GCRA, scenario.BurstOption},
	} {
		var labels []string
		values := map[int64]bool{}
		for _, p := range specs {
			if scenario.OptionOf(p.Name) != o.option {
				continue
			}
			if o.option == scenario.BucketsOption {
				values[p.Params(sc).Buckets] = true
			} else {
				values[p.Burst] = true
			}
			labels = append(labels, p.Label(sc))
		}
		if len(values) > 1 {
			out = append(out, fmt.Sprintf("%s differ in %s: a changed %s applies to all %d %s lanes",
				strings.Join(labels, ", "), o.field, o.field, len(labels), o.kinds))
		}
	}
	return out
}

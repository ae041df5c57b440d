package pages

import (
	"slices"
	"strings"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
)

// The settings form's view of a scenario: which lanes it runs, and the k
// and burst it shows for them.

// Has reports whether the scenario runs a lane of kind k.
func Has(v play.View, k play.Kind) bool {
	return slices.ContainsFunc(v.Scenario.Specs(), func(s scenario.PolicySpec) bool { return play.KindOf(s) == k })
}

// kebab is a signal's name as a data-bind attribute takes it:
// useSlidingLog becomes use-sliding-log (HTML lower-cases attribute
// names; Datastar turns kebab-case back into camelCase).
func kebab(signal string) string {
	var b strings.Builder
	for _, r := range signal {
		if r >= 'A' && r <= 'Z' {
			b.WriteByte('-')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// inlineField is the number field drawn inside kind k's box: the field of
// an option only k's policy takes (sliding-buckets' k). A field several
// policies share (burst) has a box of its own after the kinds.
func inlineField(k play.Kind) (play.Field, bool) {
	for _, f := range play.Fields() {
		if len(f.Policies) == 1 && f.Policies[0] == k.Name {
			return f, true
		}
	}
	return play.Field{}, false
}

// sharedFields are the number fields several policies take, each drawn
// as a box of its own.
func sharedFields() []play.Field {
	var out []play.Field
	for _, f := range play.Fields() {
		if len(f.Policies) > 1 {
			out = append(out, f)
		}
	}
	return out
}

// sharedLabel is the label of a shared field: "Burst (token-bucket, gcra;
// 0 = limit)".
func sharedLabel(f play.Field) string {
	s := f.Option.Label + " (" + strings.Join(f.Policies, ", ")
	if f.Option.Help != "" {
		s += "; " + f.Option.Help
	}
	return s + ")"
}

package lessons

import (
	"strings"
	"testing"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// A widget that names no policies shows every registered one, in the
// registry's order; the comparison shows a choice option's every choice.
func TestLessonRefsCoverTheRegistry(t *testing.T) {
	for _, eachChoice := range []bool{false, true} {
		refs := lessonRefs(eachChoice)
		var names []string
		for _, ref := range refs {
			spec, err := scenario.ParsePolicyRef(ref)
			if err != nil {
				t.Fatalf("eachChoice %v: %q: %v", eachChoice, ref, err)
			}
			if len(names) == 0 || names[len(names)-1] != spec.Name {
				names = append(names, spec.Name)
			}
			if o, ok := divisor(spec.Name); ok && spec.Option(o) != lessonBuckets {
				t.Errorf("eachChoice %v: %q, want k = %d", eachChoice, ref, lessonBuckets)
			}
		}
		if got, want := strings.Join(names, " "), strings.Join(policies.Names, " "); got != want {
			t.Errorf("eachChoice %v: policies %q, want the registry's %q", eachChoice, got, want)
		}
		choices := 0
		for _, ref := range refs {
			if strings.HasPrefix(ref, policies.SlidingCounter+"/") {
				choices++
			}
		}
		if want := map[bool]int{false: 0, true: len(policies.ArithmeticOption.Choices)}[eachChoice]; choices != want {
			t.Errorf("eachChoice %v: %d sliding-counter refs with a choice, want %d (%v)", eachChoice, choices, want, refs)
		}
	}
}

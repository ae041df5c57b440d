package play

import (
	"strings"
	"testing"

	"github.com/windowlab/playground/scenario"
)

// TestExplainSlidingUnits: the sliding explanations write every duration in
// seconds, never a bare millisecond count next to seconds.
func TestExplainSlidingUnits(t *testing.T) {
	for _, tc := range []struct {
		spec scenario.PolicySpec
		at   int64
		want string
	}{
		{scenario.PolicySpec{Name: "sliding-counter", Arithmetic: "floor"}, 30_250, "carried = ⌊previous × (window − elapsed) ÷ window⌋ = ⌊5 × (30 s − 0.25 s) ÷ 30 s⌋ = 4 (floored)"},
		{scenario.PolicySpec{Name: "sliding-buckets", Buckets: 3}, 30_250, "The window is 3 buckets of 10 s, and it is 0.25 s into the newest."},
	} {
		s := newSession(t, scenario.Scenario{Limit: 5, WindowMs: 30_000, Policies: []scenario.PolicySpec{tc.spec}})
		must(t, "fire", s.Fire(5))
		must(t, "jump", s.Jump(tc.at))
		must(t, "fire", s.Fire(1))
		must(t, "select", s.Select(5))
		steps := s.View().Selected.Lanes[0].Steps
		all := strings.Join(steps, "\n")
		if !strings.Contains(all, tc.want) {
			t.Errorf("%s: steps\n%s\nwant a step containing %q", tc.spec.Name, all, tc.want)
		}
		if strings.Contains(all, " ms") {
			t.Errorf("%s: a duration in ms among seconds:\n%s", tc.spec.Name, all)
		}
	}
}

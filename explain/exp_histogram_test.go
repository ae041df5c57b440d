package explain

import (
	"context"
	"strings"
	"testing"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// TestExpHistogramWorkingCountsTheOldestAtHalf: five permits at 0 with
// k = 2 leave buckets of 2, 2 and 1 (the third and fifth arrivals each
// merge the two oldest ones into a 2), so a request at 100 ms finds 5
// permits of which the estimate counts the oldest 2 at half: 3 + 1 = 4.
func TestExpHistogramWorkingCountsTheOldestAtHalf(t *testing.T) {
	s := scenario.Scenario{Limit: 10, WindowMs: 1000,
		Policies: []scenario.PolicySpec{{Name: policies.ExpHistogram, Buckets: 2}},
		Requests: []scenario.Request{{At: 0, Cost: 1, Count: 5}, {At: 100, Cost: 1, Count: 1}}}
	res, err := Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	d := res.Results[0].Decisions[5]
	pol := For(s, s.Policies[0])
	if got, want := Working(pol, d), "3 in the newer buckets + half, 1, of the oldest (2) = 4; + 1 against 10"; got != want {
		t.Errorf("Working = %q, want %q", got, want)
	}
	steps := strings.Join(Steps(pol, d.Detail, policies.State{}), "\n")
	for _, want := range []string{"3 buckets hold 5 permits", "estimate = 5 − 2 + 1 = 4"} {
		if !strings.Contains(steps, want) {
			t.Errorf("steps %q\nwant them to say %q", steps, want)
		}
	}
}

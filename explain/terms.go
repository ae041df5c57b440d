// Package explain words decisions: what a policy did with a request, in
// its own terms.
package explain

import (
	"fmt"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// Terms writes the arithmetic behind one decision in the policy's own
// terms, for tables and exercise feedback.
func Terms(p scenario.PolicyResult, d scenario.Decision) string {
	t := d.Detail.Terms
	w := p.Params.WindowMs
	cost := d.Cost
	switch p.Policy {
	case policies.FixedWindow:
		return fmt.Sprintf("window from %s holds %d; %d + %d against %d", scenario.FormatMs(t.WindowStart), t.Count, t.Count, cost, d.Detail.Capacity)
	case policies.SlidingLog:
		return fmt.Sprintf("%d in (%s, %s]; %d + %d against %d", t.Count, scenario.FormatMs(d.Detail.At-w), scenario.FormatMs(d.Detail.At), t.Count, cost, d.Detail.Capacity)
	case policies.SlidingCounter:
		weighted := fmt.Sprintf("%d × %s", t.Previous, policies.Fraction{Num: w - t.Elapsed, Den: w}.Reduced())
		if p.Params.Arithmetic == policies.Floor {
			weighted = "⌊" + weighted + "⌋" // so that ⌊5 × 9/10⌋ = 4 does not read as a slip
		}
		return fmt.Sprintf("%s = %s carried + %d current = %s; + %d against %d",
			weighted, scenario.FormatFraction(t.Carried), t.Current, scenario.FormatFraction(d.Estimate), cost, d.Detail.Capacity)
	case policies.SlidingBuckets:
		weight := policies.Fraction{Num: t.BucketMs - t.Elapsed, Den: max(t.BucketMs, 1)}.Reduced().String()
		return fmt.Sprintf("oldest %d × %s + %d in the newer buckets = %s; + %d against %d",
			t.Previous, weight, t.Current, scenario.FormatFraction(d.Estimate), cost, d.Detail.Capacity)
	case policies.TokenBucket:
		return fmt.Sprintf("%s tokens of %d; needs %d", scenario.FormatFraction(t.Tokens), d.Detail.Capacity, cost)
	case policies.GCRA:
		return fmt.Sprintf("TAT %s; %s of %d in use; + %d", scenario.FormatMs(int64(t.TAT.Float())), scenario.FormatFraction(d.Estimate), d.Detail.Capacity, cost)
	}
	return "estimate " + scenario.FormatFraction(d.Estimate)
}

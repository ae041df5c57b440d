package explain

import (
	"fmt"
	"strings"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// Working writes the arithmetic behind one decision on one line, in the
// policy's own terms, for lesson tables and exercise feedback: "window
// from 0 s holds 5; 5 + 1 against 5".
func Working(p Policy, d scenario.Decision) string {
	if d.Probe {
		return "estimate " + scenario.FormatFraction(d.Estimate)
	}
	t := d.Detail.Terms
	w := p.Params.WindowMs
	cost, capacity := d.Cost, d.Detail.Capacity
	est := scenario.FormatFraction(d.Estimate)
	switch p.Name {
	case policies.FixedWindow:
		return fmt.Sprintf("window from %s holds %d; %d + %d against %d", scenario.FormatMs(t.WindowStart), t.Count, t.Count, cost, capacity)
	case policies.SlidingLog:
		return fmt.Sprintf("%d in (%s, %s]; %d + %d against %d", t.Count, scenario.FormatMs(d.Detail.At-w), scenario.FormatMs(d.Detail.At), t.Count, cost, capacity)
	case policies.SlidingCounter:
		weighted := Weighted(t.Previous, policies.Fraction{Num: w - t.Elapsed, Den: w})
		if p.Params.Arithmetic != policies.Exact {
			weighted = "⌊" + weighted + "⌋" // so that ⌊5 × 9/10⌋ = 4 does not read as a slip
		}
		return fmt.Sprintf("%s = %s carried + %d current = %s; + %d against %d",
			weighted, scenario.FormatFraction(t.Carried), t.Current, est, cost, capacity)
	case policies.SlidingBuckets:
		weight := policies.Fraction{Num: t.BucketMs - t.Elapsed, Den: max(t.BucketMs, 1)}.Reduced().String()
		return fmt.Sprintf("oldest %d × %s + %d in the newer buckets = %s; + %d against %d",
			t.Previous, weight, t.Current, est, cost, capacity)
	case policies.TokenBucket:
		return fmt.Sprintf("%s tokens of %d; needs %d", scenario.FormatFraction(t.Tokens), capacity, cost)
	case policies.GCRA:
		return fmt.Sprintf("TAT %s; %s of %d in use; + %d", Instant(t.TAT), est, capacity, cost)
	}
	return "estimate " + est
}

// Weighted is a previous window's count at the weight the sliding
// counter still gives it, exactly: "5 × 999/1000". A weight rounded to a
// few decimals can read as a whole one (0.999 as 1.00), which hides the
// very thing floor arithmetic turns on.
func Weighted(count int64, weight policies.Fraction) string {
	return fmt.Sprintf("%d × %s", count, weight.Reduced())
}

// cell describes one decision in a few words for the simulate table: the
// outcome, the estimate before it and, for a refusal, the wait. Refusals
// are in capitals so that they stand out in a terminal without colour.
func cell(d scenario.Decision) string {
	est := scenario.FormatFraction(d.Estimate)
	switch {
	case d.Probe:
		return "estimate " + est
	case d.Detail.Allowed:
		return Admitted + " (" + est + ")"
	}
	return fmt.Sprintf("%s (%s, %s)", strings.ToUpper(Refused), est, Wait(d.Detail))
}

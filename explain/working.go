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
	return wordingOf(p.Name).working(p, d)
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

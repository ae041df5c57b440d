// Package summary holds the summaries the project's measuring commands
// (cmd/benchreport, cmd/scaling) report, so that their tables agree on
// what a median is.
package summary

import (
	"math"
	"slices"
)

// Median is the middle of xs, or the mean of the two middle values when
// there is an even number of them; NaN for none, which is no value. xs is
// left as it was.
func Median(xs []float64) float64 {
	n := len(xs)
	if n == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

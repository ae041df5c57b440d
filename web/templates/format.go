package templates

import (
	"strconv"

	"github.com/windowlab/playground/explain"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// The numbers and words every feature's pages write the same way.

// ClockText shows the clock.
func ClockText(v play.View) string { return scenario.FormatMs(v.Clock.Now) }

// Sec shows ms as seconds for a number field.
func Sec(ms int64) string { return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64) }

// Itoa formats an integer.
func Itoa[T ~int | ~int64](n T) string { return strconv.FormatInt(int64(n), 10) }

// CountOf writes n and the noun, plural unless n is 1: "1 request", "0 requests".
func CountOf(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return Itoa(n) + " " + noun + "s"
}

// StateText describes a policy state in one line.
func StateText(policy string, s policies.State) string { return explain.State(policy, s) }

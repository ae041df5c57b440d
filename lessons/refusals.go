package lessons

import (
	"fmt"
	"strings"

	"github.com/windowlab/playground/scenario"
)

// refusalTimes lists the instants at which a lane refused, each instant
// once, with how many were refused there: "25 s, 60 s (×4), 62 s". A burst
// refused at one instant is one event to a reader, not a list to count.
func refusalTimes(decisions []scenario.Decision) string {
	var parts []string
	var at int64
	n := 0
	flush := func() {
		if n == 0 {
			return
		}
		part := scenario.FormatMs(at)
		if n > 1 {
			part += fmt.Sprintf(" (×%d)", n)
		}
		parts = append(parts, part)
	}
	for _, d := range decisions {
		if d.Probe || d.Allowed() {
			continue
		}
		if n > 0 && d.At == at {
			n++
			continue
		}
		flush()
		at, n = d.At, 1
	}
	flush()
	return strings.Join(parts, ", ")
}

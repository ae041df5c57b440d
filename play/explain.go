package play

import (
	"github.com/windowlab/playground/explain"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// Header is one HTTP response header field (see explain.Headers).
type Header = explain.Header

// explained is one lane's explanation of the selected request: the words
// come from package explain (d's Headers too, which annotate filled in),
// with the states before and after for the page to show.
func explained(pol explain.Policy, label string, d scenario.Decision, before, after policies.State) *Explained {
	return &Explained{
		Lane: label, Policy: pol.Name, Decision: d.Detail, Before: before, After: after,
		Steps:   explain.Steps(pol, d.Detail, after),
		Headers: d.Headers,
	}
}

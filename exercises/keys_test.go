package exercises

import (
	"testing"
)

// The request an outcome, which or first-admit question asks about has no
// key of its own: it joins the scenario's client when all the requests share
// one (scenario.WhatIf). A scenario with several clients would leave the
// asked request facing an empty limiter of its own, so no exercise may ask
// one about a single extra request.
func TestAskedRequestJoinsTheScenariosClient(t *testing.T) {
	for _, e := range load(t).Exercises {
		if e.Ask == AskCount || e.Ask == AskStack {
			continue
		}
		keys := map[string]bool{}
		for _, r := range e.base.Requests {
			keys[r.KeyName()] = true
		}
		if len(keys) > 1 {
			t.Errorf("%s: the scenario has %d clients; the request asked about would join none of them", e.ID, len(keys))
		}
	}
}

package exercises

import (
	"testing"

	"github.com/windowlab/playground/scenario"
)

// The request an outcome, which or first-admit question asks about is added
// under the default key. A scenario whose requests name another key would
// leave it facing an empty limiter, and the computed answer would ignore
// every request the question describes.
func TestAskedRequestSharesTheScenarioKey(t *testing.T) {
	for _, e := range load(t).Exercises {
		if e.Ask == AskCount {
			continue
		}
		for _, r := range e.base.Requests {
			if r.KeyName() != scenario.DefaultKey {
				t.Errorf("%s: scenario request at %s has key %q; the request asked about has %q", e.ID, scenario.FormatMs(r.At), r.KeyName(), scenario.DefaultKey)
				break
			}
		}
	}
}

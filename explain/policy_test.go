package explain

import (
	"testing"

	"github.com/windowlab/playground/policies"
)

// Every policy in the registry has its own wording here: without one it
// would fall back to words that say nothing of its state.
func TestEveryRegisteredPolicyHasItsWording(t *testing.T) {
	for _, in := range policies.Registered() {
		w, ok := wordings.Lookup(in.Name)
		if !ok {
			t.Errorf("%s: no wording registered (add explain/%s.go)", in.Name, in.Name)
			continue
		}
		if w.legend() == "" {
			t.Errorf("%s: no legend", in.Name)
		}
		if w.estimateWord() == "" {
			t.Errorf("%s: no word for its estimate", in.Name)
		}
	}
}

package lane

import (
	"testing"

	"github.com/windowlab/playground/policies"
)

// Every policy in the registry has its own drawing here, registered from
// its file: without one its lane would draw none of its state.
func TestEveryRegisteredPolicyHasItsDrawing(t *testing.T) {
	for _, in := range policies.Registered() {
		if _, ok := drawings[in.Name]; !ok {
			t.Errorf("%s: no drawing registered (add lane/%s.go or .templ)", in.Name, in.Name)
		}
	}
	for name := range drawings {
		if _, ok := policies.Lookup(name); !ok {
			t.Errorf("%s: a drawing for a policy the registry does not have", name)
		}
	}
}

package lane

import (
	"testing"
)

// Every policy in the registry has its own drawing here, registered from
// its file: without one its lane would draw none of its state.
func TestEveryRegisteredPolicyHasItsDrawing(t *testing.T) {
	for _, name := range drawings.Missing() {
		t.Errorf("%s: no drawing registered (add lane/%s.go or .templ)", name, name)
	}
}

package policies

import (
	"slices"
	"testing"
)

func TestByNameRegistersOnlyRegistryPolicies(t *testing.T) {
	b := NewByName[int]("test")
	b.Register(GCRA, 1)
	if got := b.Of(GCRA, 0); got != 1 {
		t.Errorf("Of(gcra) = %d, want 1", got)
	}
	if got := b.Of(FixedWindow, -1); got != -1 {
		t.Errorf("Of(fixed-window) = %d, want the fallback -1", got)
	}
	if _, ok := b.Lookup(FixedWindow); ok {
		t.Error("Lookup(fixed-window) found a value nothing registered")
	}
	missing := b.Missing()
	if len(missing) != len(Names)-1 || slices.Contains(missing, GCRA) {
		t.Errorf("Missing() = %v, want every registered policy but gcra", missing)
	}
	for _, c := range []struct{ what, name string }{{"a name the registry lacks", "no-such-policy"}, {"a second registration", GCRA}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register with %s did not panic", c.what)
				}
			}()
			b.Register(c.name, 2)
		}()
	}
}

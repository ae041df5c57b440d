package exercises

import (
	"strings"
	"testing"
)

// The working says which arithmetic ran: under floor the carried part is
// written with the floor brackets, so 4 does not read as a slip for 4.5.
func TestWorkingShowsTheArithmetic(t *testing.T) {
	set := load(t)
	tests := []struct{ id, want string }{
		{"try-it-1-floor", "⌊5 × 9/10⌋ = 4 carried"},
		{"try-it-1-exact", "5 × 9/10 = 4.5 carried"},
	}
	for _, tt := range tests {
		ex := set.Get(tt.id)
		if ex == nil {
			t.Fatalf("no exercise %q", tt.id)
		}
		sol, err := ex.Instance(0).Solve()
		if err != nil {
			t.Fatalf("%s: %v", tt.id, err)
		}
		var all []string
		for _, s := range sol.Trace {
			all = append(all, s.Working)
		}
		if got := strings.Join(all, " | "); !strings.Contains(got, tt.want) {
			t.Errorf("%s: working %q, want it to contain %q", tt.id, got, tt.want)
		}
	}
}

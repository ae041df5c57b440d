package exercises

import (
	"strings"
	"testing"
)

// big.Rat reads "1e3" as 1000, which made "1e3" a readable (and "too
// late") answer of 1000 s. Exponents are refused with a message saying so,
// like "36000" is questioned rather than judged.
func TestExponentTimesAreRefused(t *testing.T) {
	in := load(t).Get("try-it-2-exact").Instance(0)
	for _, text := range []string{"1e3", "1e3 s", "3.6e4 ms", "3E1"} {
		fb, err := in.Check(text, nil)
		if err != nil {
			t.Fatal(err)
		}
		if fb.Readable || !strings.Contains(fb.Problem, "not with an exponent") {
			t.Errorf("%q: readable = %v (given %q), problem %q; want it refused for the exponent", text, fb.Readable, fb.Given, fb.Problem)
		}
	}
}

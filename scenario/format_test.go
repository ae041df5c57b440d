package scenario

import (
	"testing"

	"github.com/windowlab/playground/policies"
)

// Numbers print exactly up to three decimals, so the seed's 4.995 is not
// shown as 5.00, and never as a whole number when they are not one.
func TestFormatFraction(t *testing.T) {
	for _, tt := range []struct {
		f    policies.Fraction
		want string
	}{
		{policies.Fraction{Num: 4, Den: 1}, "4"},
		{policies.Fraction{Num: 9, Den: 2}, "4.5"},
		{policies.Fraction{Num: 4995, Den: 1000}, "4.995"},
		{policies.Fraction{Num: 25, Den: 6}, "4.17"},
		{policies.Fraction{Num: 10, Den: 3}, "3.33"},
		{policies.Fraction{Num: 0, Den: 30000}, "0"},
		{policies.Fraction{Num: 120005, Den: 30000}, "4.0002"},
		{policies.Fraction{Num: 149995, Den: 30000}, "4.9998"},
	} {
		if got := FormatFraction(tt.f); got != tt.want {
			t.Errorf("FormatFraction(%v) = %q, want %q", tt.f, got, tt.want)
		}
	}
}

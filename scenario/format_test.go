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

// Durations read as a person writes them: FormatMs picks the unit for one
// number, FormatSeconds keeps seconds for numbers read side by side.
func TestFormatDurations(t *testing.T) {
	for _, tt := range []struct {
		ms             int64
		inMs, inSecond string
	}{
		{0, "0 s", "0 s"},
		{250, "250 ms", "0.25 s"},
		{1_000, "1 s", "1 s"},
		{1_500, "1.5 s", "1.5 s"},
		{2_001, "2.001 s", "2.001 s"},
		{30_000, "30 s", "30 s"},
		{-1_500, "-1.5 s", "-1.5 s"},
		{-250, "-250 ms", "-0.25 s"},
	} {
		if got := FormatMs(tt.ms); got != tt.inMs {
			t.Errorf("FormatMs(%d) = %q, want %q", tt.ms, got, tt.inMs)
		}
		if got := FormatSeconds(tt.ms); got != tt.inSecond {
			t.Errorf("FormatSeconds(%d) = %q, want %q", tt.ms, got, tt.inSecond)
		}
	}
}

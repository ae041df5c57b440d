package scenario

import (
	"math/big"
	"strings"

	"github.com/windowlab/playground/policies"
)

// FormatFraction writes a fraction the way every page prints numbers: exactly
// when it has at most three decimal places (4, 4.5, 4.995), otherwise
// rounded to two (4.17).
func FormatFraction(f policies.Fraction) string {
	if f.Den == 0 {
		return "0"
	}
	r := new(big.Rat).SetFrac64(f.Num, f.Den)
	for places := 0; places <= 3; places++ {
		scaled := new(big.Rat).Mul(r, new(big.Rat).SetInt64(pow10(places)))
		if scaled.IsInt() {
			return r.FloatString(places)
		}
	}
	// Two decimals, unless that would print a whole number for a value that
	// is not one (4.00 for 4.00017 hides the fact that it exceeds 4).
	for places := 2; places < 6; places++ {
		text := r.FloatString(places)
		if strings.TrimRight(strings.TrimRight(text, "0"), ".") != strings.Split(text, ".")[0] {
			return text
		}
	}
	return r.FloatString(6)
}

func pow10(n int) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}

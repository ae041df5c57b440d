package policies

// gcd is the greatest common divisor of a, b >= 0.
func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// Reduced returns the fraction in lowest terms (0 as 0/1). Policies report
// estimates unreduced, with the denominator their arithmetic used (windowMs,
// the bucket width); reduce for display.
func (f Fraction) Reduced() Fraction {
	if f.Den == 0 {
		return Fraction{0, 1}
	}
	if f.Num == 0 {
		return Fraction{0, 1}
	}
	g := gcd(f.Num, f.Den)
	return Fraction{f.Num / g, f.Den / g}
}

package scenario

import (
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/windowlab/playground/policies"
)

// ErrExponent is the error (test with errors.Is) for a time written with
// an exponent, such as "1e3", so a caller can ask for the digits rather
// than report it as no time at all.
var ErrExponent = errors.New("write the number out in digits, without an exponent")

// ParseMoment reads a time as people type it: "36", "36s", "36 s",
// "36.5 s", "36000ms", "36000 ms", "36 seconds". A bare number is in
// bareUnitMs milliseconds (1000 reads it as seconds); 0 means a bare number
// is an error. The result is whole milliseconds.
func ParseMoment(text string, bareUnitMs int64) (int64, error) {
	s := strings.ToLower(strings.TrimSpace(text))
	s = strings.ReplaceAll(s, ",", "")
	num := strings.TrimRight(s, "abcdefghijklmnopqrstuvwxyz ")
	unit := strings.TrimSpace(s[len(num):])
	var scale int64
	switch unit {
	case "":
		scale = bareUnitMs
		if scale == 0 {
			return 0, fmt.Errorf("%q: give a unit (s or ms)", text)
		}
	case "ms", "millisecond", "milliseconds":
		scale = 1
	case "s", "sec", "secs", "second", "seconds":
		scale = 1000
	case "min", "mins", "minute", "minutes":
		scale = 60000
	default:
		return 0, fmt.Errorf("%q: unknown unit %q (use s or ms)", text, unit)
	}
	num = strings.TrimSpace(num)
	if !plainDecimal(num) {
		// big.Rat would also read "1e3", "10/3" and "0x10": none is how
		// people write a time, and "1e3" read as 1000 s surprises.
		if strings.ContainsAny(num, "eE") && strings.ContainsAny(num, "0123456789") {
			return 0, fmt.Errorf("%q: %w", text, ErrExponent)
		}
		return 0, fmt.Errorf("%q is not a time", text)
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok || r.Sign() < 0 {
		return 0, fmt.Errorf("%q is not a time", text)
	}
	r.Mul(r, big.NewRat(scale, 1))
	if !r.IsInt() {
		return 0, fmt.Errorf("%q is finer than a millisecond", text)
	}
	if !r.Num().IsInt64() || r.Num().Int64() > policies.MaxTime {
		return 0, fmt.Errorf("%q is too large", text)
	}
	return r.Num().Int64(), nil
}

// plainDecimal reports whether num is digits with at most one decimal
// point and at least one digit.
func plainDecimal(num string) bool {
	digits, points := 0, 0
	for _, r := range num {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r == '.':
			points++
		default:
			return false
		}
	}
	return digits > 0 && points <= 1
}

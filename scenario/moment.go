package scenario

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/windowlab/playground/policies"
)

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
	r, ok := new(big.Rat).SetString(strings.TrimSpace(num))
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

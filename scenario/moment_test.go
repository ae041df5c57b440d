package scenario

import (
	"errors"
	"strings"
	"testing"
)

func TestParseMoment(t *testing.T) {
	for in, want := range map[string]int64{"36": 36000, "36s": 36000, "36 s": 36000, "36000ms": 36000, "36.5 s": 36500, "30.001 s": 30001, "36 seconds": 36000, "1 min": 60000} {
		got, err := ParseMoment(in, 1000)
		if err != nil || got != want {
			t.Errorf("ParseMoment(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "soon", "36 parsecs", "-3 s", "1.0001 s", "1e3", "1e3 s", "10/3 s", "0x10 s", "1.2.3 s", ". s"} {
		if _, err := ParseMoment(bad, 1000); err == nil {
			t.Errorf("ParseMoment(%q) succeeded; want an error", bad)
		}
	}
	if _, err := ParseMoment("1e3", 1000); err == nil || !strings.Contains(err.Error(), "without an exponent") {
		t.Errorf("ParseMoment(\"1e3\"): err = %v; want it to say the exponent is not read", err)
	}
	// Callers tell the exponent apart by errors.Is, never by the wording.
	for in, want := range map[string]bool{"1e3": true, "2.5E2 ms": true, "10/3 s": false, "soon": false, "1.0001 s": false} {
		if _, err := ParseMoment(in, 1000); errors.Is(err, ErrExponent) != want {
			t.Errorf("ParseMoment(%q): errors.Is(%v, ErrExponent) = %v, want %v", in, err, !want, want)
		}
	}
	if _, err := ParseMoment("36", 0); err == nil || !strings.Contains(err.Error(), "unit") {
		t.Errorf("a bare number without a default unit: err = %v", err)
	}
}

package summary

import (
	"math"
	"slices"
	"testing"
)

func TestMedian(t *testing.T) {
	tests := []struct {
		name string
		in   []float64
		want float64
	}{
		{"one", []float64{7}, 7},
		{"odd, unsorted", []float64{4, 9, 5}, 5},
		{"even: the mean of the middle two", []float64{3, 2}, 2.5},
		{"even, with repeats", []float64{1, 8, 8, 1}, 4.5},
		{"negative and fractional", []float64{-1.5, 0.25, -3}, -1.5},
	}
	for _, tt := range tests {
		in := slices.Clone(tt.in)
		if got := Median(in); got != tt.want {
			t.Errorf("%s: Median(%v) = %g, want %g", tt.name, tt.in, got, tt.want)
		}
		if !slices.Equal(in, tt.in) {
			t.Errorf("%s: Median reordered its input to %v", tt.name, in)
		}
	}
	if got := Median(nil); !math.IsNaN(got) {
		t.Errorf("Median(nil) = %g, want NaN", got)
	}
}

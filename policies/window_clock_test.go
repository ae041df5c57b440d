package policies

import (
	"math/rand/v2"
	"testing"
)

// TestWindowClockIsDivision checks the cached window start, and the cached
// window index and elapsed time, against the divisions they save, with instants forward, backward, on edges and far
// apart.
func TestWindowClockIsDivision(t *testing.T) {
	r := rand.New(rand.NewPCG(propertySeed, 41))
	for _, width := range []int64{1, 2, 7, 1000, 1200, MaxWindowMs} {
		c, d := newWindowClock(width), newWindowClock(width)
		at := int64(0)
		for i := range 5000 {
			switch r.IntN(5) {
			case 0:
				at = r.Int64N(MaxTime + 1)
			case 1:
				at = max(0, at-r.Int64N(2*width+1))
			case 2:
				at = at - at%width + width // the next edge
			default:
				at = min(MaxTime, at+r.Int64N(width/3+1))
			}
			if got, want := c.startOf(at), at-at%width; got != want {
				t.Fatalf("width %d step %d: startOf(%d) = %d, want %d", width, i, at, got, want)
			}
			if index, elapsed := d.split(at); index != at/width || elapsed != at%width {
				t.Fatalf("width %d step %d: split(%d) = %d, %d, want %d, %d", width, i, at, index, elapsed, at/width, at%width)
			}
		}
	}
}

package lane

import (
	"strconv"
	"strings"
	"testing"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// TestCountsStepRatherThanSlope: the sliding log's count drops the instant
// an entry leaves the look-back (the car park's entry at 5 s leaves at
// 35 s), fixed-window's at a boundary and stepped-bucket's at a fill's
// edge (30 s): their lines are horizontal and
// vertical segments only, never a slope between two samples. A bucket that
// drains continuously keeps its slopes.
func TestCountsStepRatherThanSlope(t *testing.T) {
	v := carPark(t, scenario.PolicySpec{Name: policies.SteppedBucket})
	stepped := false
	sloped := func(points string) int {
		n := 0
		var px, py float64
		for i, xy := range strings.Fields(points) {
			x, _ := strconv.ParseFloat(strings.Split(xy, ",")[0], 64)
			y, _ := strconv.ParseFloat(strings.Split(xy, ",")[1], 64)
			if i > 0 && x != px && y != py {
				n++
			}
			px, py = x, y
		}
		return n
	}
	for _, l := range v.Lanes {
		pts := render(t, FromView(v, l), Options{}).Find("polyline.curve").AttrOr("points", "")
		if pts == "" {
			t.Fatalf("%s draws no line", l.Label)
		}
		n := sloped(pts)
		switch l.Policy {
		case policies.SlidingLog, policies.FixedWindow, policies.SteppedBucket:
			stepped = stepped || l.Policy == policies.SteppedBucket
			if n > 0 {
				t.Errorf("%s: %d sloped segments in its line %q, want steps only", l.Label, n, pts)
			}
		case policies.TokenBucket:
			if n == 0 {
				t.Errorf("%s: no sloped segment: a bucket that refills is drawn as steps", l.Label)
			}
		}
	}
	if !stepped {
		t.Fatal("no stepped-bucket lane drawn")
	}
}

package lane

import (
	"testing"

	"github.com/windowlab/playground/policies"
)

// TestFollowStartsAtTheClocksEnd draws the car park at its clock (40 s)
// over spans that put the clock left of, right of and at the drawing's
// middle: a following lane's scroller starts at the end holding the clock,
// says where across the clock is, and has its "more" line; a lane that
// does not follow has neither.
func TestFollowStartsAtTheClocksEnd(t *testing.T) {
	in := laneOf(t, carPark(t), policies.FixedWindow) // Now = 40 s
	cases := []struct {
		name     string
		o        Options
		at, pos  string // data-at, and data-follow in thousandths
		scrolled bool   // the scroller carries lane-scroll-end
	}{
		// X(40 s) = 50 + 40/120 × 492 = 214 of 560: the left half.
		{"left half", Options{Width: 560, From: 0, To: 120_000, Follow: true}, "start", "382", false},
		// X(40 s) = 50 + 40/60 × 492 = 378 of 560: the right half.
		{"right half", Options{Width: 560, From: 0, To: 60_000, Follow: true}, "end", "675", true},
		// X(40 s) = 50 + 0 = 50 of 560: the plot's left end, inside its
		// margin.
		{"at the start", Options{Width: 560, From: 40_000, To: 100_000, Follow: true}, "start", "89", false},
	}
	for _, c := range cases {
		doc := render(t, in, c.o)
		sc := doc.Find(`[data-testid="lane-scroll"]`)
		if sc.Length() != 1 {
			t.Fatalf("%s: %d following scrollers, want 1", c.name, sc.Length())
		}
		if got := sc.AttrOr("data-at", ""); got != c.at {
			t.Errorf("%s: data-at = %q, want %q", c.name, got, c.at)
		}
		if got := sc.AttrOr("data-follow", ""); got != c.pos {
			t.Errorf("%s: data-follow = %q, want %q", c.name, got, c.pos)
		}
		if got := sc.HasClass("lane-scroll-end"); got != c.scrolled {
			t.Errorf("%s: starts at the end = %v, want %v", c.name, got, c.scrolled)
		}
		if got := doc.Find(`[data-testid="lane-more"]`).Text(); got != "← earlier scrolls sideways later →" {
			t.Errorf("%s: the more line reads %q", c.name, got)
		}
	}
	doc := render(t, in, Options{Width: 560, From: 0, To: 60_000})
	if n := doc.Find(`[data-follow], [data-testid="lane-more"]`).Length(); n != 0 {
		t.Errorf("a lane that does not follow has %d following parts, want 0", n)
	}
	if n := doc.Find(`.lane-scroll`).Length(); n != 1 {
		t.Errorf("a lane that does not follow has %d scrollers, want 1", n)
	}
}

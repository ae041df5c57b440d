package lane

import (
	"strconv"
	"strings"
	"testing"

	"github.com/windowlab/playground/explain"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/policies"
)

// TestLegendIsOneLineWithTheRestOneClickAway: each lane's caption holds a
// one-line key (at most 40 characters, a line of a 360 px phone) in the lane's glyphs, and the full
// legend inside a closed <details>; while a question is open the key, which
// names the policy's state, is left out.
func TestLegendIsOneLineWithTheRestOneClickAway(t *testing.T) {
	v := carPark(t)
	for _, l := range v.Lanes {
		doc := render(t, FromView(v, l), Options{})
		key := doc.Find(`[data-testid="lane-key"]`).Text()
		if key == "" || len([]rune(key)) > 40 || strings.Contains(key, "\n") {
			t.Errorf("%s: key %q, want one line of at most 40 characters", l.Label, key)
		}
		help := doc.Find(`details[data-testid="lane-help"]`)
		if _, open := help.Attr("open"); help.Length() != 1 || open {
			t.Errorf("%s: %d help elements (open %v), want one, closed", l.Label, help.Length(), open)
		}
		if got := help.Find(".lane-legend").Text(); got != explain.Legend(l.Policy) {
			t.Errorf("%s: the help says %q, want the full legend %q", l.Label, got, explain.Legend(l.Policy))
		}
		asked := render(t, FromView(v, l), Options{Asked: true, Cut: 40_000})
		if n := asked.Find(`[data-testid="lane-key"]`).Length(); n != 0 {
			t.Errorf("%s: an asked lane shows its key", l.Label)
		}
	}
}

// TestPreviousWindowFades: sliding-counter's shade of the previous window
// is strongest just after a boundary and fades as the window is counted
// less (the car park at 31 s, then at 40 s and 55 s).
func TestPreviousWindowFades(t *testing.T) {
	v := carPark(t)
	var counter play.Lane
	for _, l := range v.Lanes {
		if l.Policy == policies.SlidingCounter {
			counter = l
		}
	}
	opacity := func(now int64) float64 {
		in := FromView(v, counter)
		in.Now = now
		held, _ := in.State.Held.(policies.SlidingCounterHeld)
		held.WindowStart = 30_000
		in.State.Held = held
		f, err := strconv.ParseFloat(newPlot(in, Options{}).PrevOpacity(), 64)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	if a, b, c := opacity(31_000), opacity(40_000), opacity(55_000); !(a > b && b > c) {
		t.Errorf("the previous window's shade at 31 s, 40 s, 55 s: %.3f, %.3f, %.3f, want fading", a, b, c)
	}
}

// TestEmptyPreviousWindowIsNotShaded: a previous window that held nothing
// adds nothing to the estimate, so sliding-counter draws no shade for it
// (at 0 s it made a dark block before the first request); one that held
// requests is shaded.
func TestEmptyPreviousWindowIsNotShaded(t *testing.T) {
	v := carPark(t)
	for _, l := range v.Lanes {
		if l.Policy != policies.SlidingCounter {
			continue
		}
		for _, prev := range []int64{0, 5} {
			in := FromView(v, l)
			in.Now = 40_000
			in.State.Held = policies.SlidingCounterHeld{WindowStart: 30_000, Previous: prev}
			_, _, _, _, shaded := newPlot(in, Options{}).PrevWeight()
			if shaded != (prev > 0) {
				t.Errorf("%s: previous window of %d requests shaded %v, want %v", l.Label, prev, shaded, prev > 0)
			}
		}
	}
}

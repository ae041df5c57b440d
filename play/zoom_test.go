package play

import (
	"testing"

	"github.com/windowlab/playground/scenario"
)

func TestFitActivityFillsThePlot(t *testing.T) {
	sc := DefaultScenario() // 30 s windows
	for _, c := range []struct {
		name      string
		at        []int64
		now       int64
		minFilled float64 // share of the span the requests and the clock cover
	}{
		{"two seconds of traffic", []int64{0, 500, 1000, 1500, 2000}, 2000, 0.5},
		{"a burst later on", []int64{40_000, 40_000, 40_000, 41_000}, 41_000, 0.4},
		{"a window of traffic", []int64{0, 10_000, 20_000, 29_000}, 29_000, 0.7},
	} {
		sc.Requests = nil
		for _, at := range c.at {
			sc.Requests = append(sc.Requests, scenario.Request{At: at, Key: "default", Cost: 1, Count: 1})
		}
		from, to := Zoom{}.ViewSpan(sc, c.now)
		first, last := c.at[0], max(c.now, c.at[len(c.at)-1])
		if first < from || last > to {
			t.Errorf("%s: span [%d, %d] leaves out the activity [%d, %d]", c.name, from, to, first, last)
		}
		if got := float64(last-first) / float64(to-from); got < c.minFilled {
			t.Errorf("%s: span [%d, %d]: the activity fills %.2f of it, want at least %.2f", c.name, from, to, got, c.minFilled)
		}
	}
}

func TestFitActivityKeepsItsStartWhileTheClockPlays(t *testing.T) {
	sc := DefaultScenario()
	sc.Requests = []scenario.Request{{At: 5000, Key: "default", Cost: 1, Count: 3}}
	prevFrom := int64(-1)
	for now := int64(5000); now < 60_000; now += 100 {
		from, to := Zoom{}.ViewSpan(sc, now)
		if now < from || now > to {
			t.Fatalf("clock %d: span [%d, %d] leaves out the clock", now, from, to)
		}
		if from < prevFrom {
			t.Fatalf("clock %d: span starts at %d, before %d a frame earlier", now, from, prevFrom)
		}
		prevFrom = from
	}
}

// TestFollowingSpanMovesInSteps: while the clock plays through a steady
// stream (a request every 5 ms for 10 s, 12 s windows) in frames of
// 100 ms, from 9 s to 40 s, where the requests leave the look-back one by
// one, the fitted span and a manual zoom following the clock move in steps
// (a tenth of a window, or of the span), not at each frame, which would
// move every mark and send each lane whole; each still holds the clock.
func TestFollowingSpanMovesInSteps(t *testing.T) {
	sc := DefaultScenario()
	sc.WindowMs = 12_000
	sc.Requests = nil
	for i := range 2000 {
		sc.Requests = append(sc.Requests, scenario.Request{At: int64(i) * 5, Key: "default", Cost: 1, Count: 1})
	}
	for _, z := range []Zoom{{}, {Mode: Manual, Span: 15_000}} {
		frames, moved := 0, 0
		prevFrom, prevTo := Zoom{}.ViewSpan(sc, 0)
		for now := int64(9000); now <= 40_000; now += 100 {
			from, to := z.ViewSpan(sc, now)
			if now < from || now > to {
				t.Fatalf("mode %d, clock %d: span [%d, %d] leaves out the clock", z.Mode, now, from, to)
			}
			if frames++; from != prevFrom || to != prevTo {
				moved++
			}
			prevFrom, prevTo = from, to
		}
		t.Logf("mode %d: the span moved in %d of %d frames", z.Mode, moved, frames)
		if moved > frames/5 {
			t.Errorf("mode %d: the span moved in %d of %d frames, want at most a fifth", z.Mode, moved, frames)
		}
	}
}

func TestZoomAndPan(t *testing.T) {
	s := newSession(t, DefaultScenario())
	must(t, "jump", s.Jump(10_000))
	must(t, "fire", s.Fire(3))
	v := s.View()
	span := v.To - v.From
	must(t, "zoom in", s.ZoomBy(0.5, 10_000))
	v = s.View()
	if got := v.To - v.From; got != span/2 {
		t.Errorf("zoom in: span %d, want %d", got, span/2)
	}
	if v.From > 10_000 || v.To < 10_000 {
		t.Errorf("zoom in at the clock: [%d, %d] leaves out 10 s", v.From, v.To)
	}
	if v.Zoom.End != 0 {
		t.Errorf("zoom in around the clock: pinned at %d, want following the clock", v.Zoom.End)
	}
	must(t, "pan back", s.Pan(-3*span))
	v = s.View()
	if v.To >= 10_000 || v.Zoom.End == 0 {
		t.Errorf("pan back: [%d, %d] (end %d), want pinned before the clock", v.From, v.To, v.Zoom.End)
	}
	must(t, "step", s.Step(1000))
	if w := s.View(); w.From != v.From {
		t.Errorf("a pinned span moved with the clock: from %d, then %d", v.From, w.From)
	}
	must(t, "fit all", s.Fit(FitAll))
	v = s.View()
	if v.From != 0 || v.To < 11_000 {
		t.Errorf("fit all: [%d, %d], want from 0 past the clock at 11 s", v.From, v.To)
	}
	for _, bad := range []float64{0, -1, 1000} {
		if err := s.ZoomBy(bad, 0); err == nil {
			t.Errorf("zoom by %g: no error", bad)
		}
	}
	if err := s.Fit(Manual); err == nil {
		t.Error("fit manual: no error")
	}
	// The zoom is kept with the session, as a store restores it.
	got, err := Restore(s.Saved())
	if err != nil {
		t.Fatal(err)
	}
	if got.Zoom() != s.Zoom() {
		t.Errorf("restored zoom %+v, want %+v", got.Zoom(), s.Zoom())
	}
	sv := s.Saved()
	sv.Zoom = Zoom{Mode: Manual, Span: 1}
	if _, err := Restore(sv); err == nil {
		t.Error("restored a manual zoom 1 ms wide")
	}
}

package play

import (
	"testing"
	"time"
)

func TestClock(t *testing.T) {
	s := newSession(t, DefaultScenario())
	steps := []struct {
		name string
		do   func() error
		want int64
	}{
		{"step 100 ms", func() error { return s.Step(100) }, 100},
		{"step 1 s", func() error { return s.Step(1000) }, 1100},
		{"step a window", s.StepWindow, 31100},
		{"jump back", func() error { return s.Jump(5000) }, 5000},
		{"tick while paused", func() error { tick(s, time.Second); return nil }, 5000},
		{"play", s.Play, 5000},
		{"tick 1 s at 1×", func() error { tick(s, time.Second); return nil }, 6000},
		{"16×", func() error { return s.SetSpeed(FastestSpeed) }, 6000},
		{"tick 0.5 s at 16×", func() error { tick(s, 500*time.Millisecond); return nil }, 14000},
		{"0.25×", func() error { return s.SetSpeed(QuarterSpeed) }, 14000},
		{"tick 1 ms at 0.25×", func() error { tick(s, time.Millisecond); return nil }, 14000},
		{"3 more ticks of 1 ms", func() error {
			tick(s, time.Millisecond)
			tick(s, time.Millisecond)
			tick(s, time.Millisecond)
			return nil
		}, 14001},
		{"reset", s.Reset, 0},
	}
	for i, st := range steps {
		must(t, st.name, st.do())
		if got := s.Now(); got != st.want {
			t.Fatalf("step %d (%s): clock %d, want %d", i, st.name, got, st.want)
		}
	}
	if s.Playing() {
		t.Error("reset left the clock playing")
	}
	// Read at many instants or once at the last, a playing clock shows
	// the same time: reading stores nothing.
	must(t, "speed", s.SetSpeed(RealSpeed))
	must(t, "play", s.Play())
	wall := s.at
	for _, d := range []time.Duration{100 * time.Millisecond, 100 * time.Millisecond, 250 * time.Millisecond} {
		s.at = wall.Add(d)
		_ = s.Now()
	}
	if got := s.Now(); got != 250 {
		t.Errorf("after 250 ms of real time read three times: clock %d, want 250", got)
	}
	if err := s.SetSpeed(3); err == nil {
		t.Error("speed 3 accepted")
	}
}

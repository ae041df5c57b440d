package web

import (
	"testing"
	"time"
)

// TestPacerRendersAnActionAsOneUpdate runs the hubs' pacing rule over
// fixed instants: each step is a change (with its settle time) or a look
// at whether a render is due.
func TestPacerRendersAnActionAsOneUpdate(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	type step struct {
		at     int  // ms after t0
		change bool // a change (else: is a render due?)
		settle int  // ms, for a change
		due    int  // for a change: when it renders (ms)
		render bool // for a look: whether a render is due
	}
	tests := []struct {
		name  string
		last  int // ms of the last render
		steps []step
	}{
		{"a paused room's action: the session change and the checkpoint render together, at once", -1000, []step{
			{at: 0, change: true, settle: 10, due: 10},    // the session's fire
			{at: 1, change: true, settle: 10, due: 10},    // the room's undo checkpoint joins it
			{at: 9, render: false},                        // not yet settled
			{at: 10, render: true},                        // one update with both
			{at: 11, render: false},                       // nothing pending
			{at: 500, change: true, settle: 10, due: 510}, // the next fire, half a second on, waits only to settle
		}},
		{"a change soon after a render waits for the interval", 0, []step{
			{at: 30, change: true, settle: 10, due: 100},
			{at: 60, change: true, settle: 10, due: 100},
			{at: 99, render: false},
			{at: 100, render: true},
			{at: 105, change: true, settle: 10, due: 200},
		}},
		{"the playing clock's ticks keep ten a second even when the timer is late", 0, []step{
			{at: 100, change: true, settle: 0, due: 100},
			{at: 104, render: true}, // the timer ran 4 ms late
			{at: 200, change: true, settle: 0, due: 200},
			{at: 200, render: true},
			{at: 230, change: true, settle: 10, due: 300}, // a fire between ticks renders with the next tick
			{at: 300, change: true, settle: 0, due: 300},
			{at: 300, render: true},
		}},
		{"a tick read late does not cost the next tick its update", 0, []step{
			{at: 105, change: true, settle: 0, due: 105}, // the tick of 100 ms, read 5 ms late
			{at: 105, render: true},
			{at: 200, change: true, settle: 0, due: 205}, // the next, read on time: 95 ms on
			{at: 200, render: false},
			{at: 205, render: true},
			{at: 300, change: true, settle: 0, due: 305},
			{at: 305, render: true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPacer(100*time.Millisecond, ms(tt.last))
			for i, s := range tt.steps {
				if s.change {
					if got := p.Change(ms(s.at), time.Duration(s.settle)*time.Millisecond); !got.Equal(ms(s.due)) {
						t.Fatalf("step %d: change at %d ms renders at %v ms, want %d", i+1, s.at, got.Sub(t0).Milliseconds(), s.due)
					}
					continue
				}
				if got := p.Ready(ms(s.at)); got != s.render {
					t.Fatalf("step %d: ready at %d ms = %v, want %v", i+1, s.at, got, s.render)
				}
			}
		})
	}
}

package play

import (
	"os"
	"testing"
	"time"

	"github.com/windowlab/playground/scenario"
)

// carPark loads lessons/scenarios/car-park.json, the lessons' car park.
func carPark(t *testing.T) scenario.Scenario {
	t.Helper()
	f, err := os.Open("../lessons/scenarios/car-park.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc, err := scenario.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func newSession(t *testing.T, sc scenario.Scenario) *Session {
	t.Helper()
	s, err := NewSession("test", sc)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func must(t testing.TB, step string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", step, err)
	}
}

// fireCarPark drives a session the way a visitor does: jump the clock to
// each arrival and fire that many cars.
func fireCarPark(t *testing.T, s *Session) {
	t.Helper()
	for _, a := range []struct{ at, n int64 }{{0, 1}, {5000, 2}, {15000, 2}, {25000, 1}, {35000, 1}, {40000, 3}} {
		must(t, "jump", s.Jump(a.at))
		must(t, "fire", s.Fire(a.n))
	}
}

func all(ts []int64, ok func(int64) bool) bool {
	for _, t := range ts {
		if !ok(t) {
			return false
		}
	}
	return len(ts) > 0
}

// tick advances a playing clock by real elapsed time, as TickAt does
// between two calls, and reports whether it moved.
func tick(s *Session, real time.Duration) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.advance(real)
}

// version counts the changes made to the session.
func version(s *Session) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

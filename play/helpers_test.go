package play

import (
	"context"
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

// tick lets real time pass for s: its clock is next read that much later,
// as a store handing out a copy a little later would read it. It reports
// whether the time shown moved.
func tick(s *Session, real time.Duration) bool {
	before := s.Now()
	s.at = s.at.Add(real)
	return s.Now() != before
}

// version counts the changes a store kept of the session.
func version(s *Session) uint64 { return s.version }

// watch watches s in st as a stream does, and returns the function that
// stops, once the store has let the watcher go.
func watch(t *testing.T, st Sessions, s *Session) (<-chan struct{}, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := st.Watch(ctx, s.ID())
	if err != nil {
		cancel()
		t.Fatalf("watch %s: %v", s.ID(), err)
	}
	return ch, func() {
		cancel()
		for range ch { // closed once the store has forgotten the watcher
		}
	}
}

// update runs one action on the stored session with id.
func update(t testing.TB, st Sessions, id, what string, fn func(*Session) error) *Session {
	t.Helper()
	s, err := st.Update(context.Background(), id, fn)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return s
}

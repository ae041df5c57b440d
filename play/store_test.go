package play

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/windowlab/playground/scenario"
)

func TestStoreBounds(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	st := NewStoreWithBounds(clock, 2, time.Minute)
	a, err := st.New(scenario.Scenario{})
	must(t, "new a", err)
	b, err := st.New(scenario.Scenario{})
	must(t, "new b", err)
	if a.ID() == b.ID() || len(a.ID()) < 20 {
		t.Errorf("ids %q and %q: want distinct and long", a.ID(), b.ID())
	}
	if _, err := st.New(scenario.Scenario{}); !errors.Is(err, ErrFull) {
		t.Fatalf("third session: %v, want ErrFull", err)
	}
	now = now.Add(50 * time.Second)
	_, err = st.Get(context.Background(), a.ID()) // a is used; b idles
	must(t, "get a", err)
	_, unsub := watch(t, st, b) // a watched session never idles out
	now = now.Add(50 * time.Second)
	if st.Len() != 2 {
		t.Errorf("after 100 s: %d sessions, want 2 (b is watched)", st.Len())
	}
	unsub()
	if st.Len() != 1 {
		t.Errorf("b unwatched: %d sessions, want 1", st.Len())
	}
	if _, err := st.Get(context.Background(), b.ID()); !errors.Is(err, ErrNotFound) {
		t.Errorf("idle session: %v, want ErrNotFound", err)
	}
	c, err := st.New(scenario.Scenario{})
	if err != nil {
		t.Errorf("after eviction: %v", err)
	}
	// Full again: the least recently used unwatched session, idle for a
	// minute, makes room; a watched one never does.
	_, unwatch := watch(t, st, c)
	defer unwatch()
	now = now.Add(2 * time.Minute)
	if _, err := st.New(scenario.Scenario{}); err != nil {
		t.Fatalf("full store with an abandoned session: %v", err)
	}
	if _, err := st.Get(context.Background(), a.ID()); !errors.Is(err, ErrNotFound) {
		t.Errorf("a, idle and unwatched, was kept: %v", err)
	}
	if _, err := st.Get(context.Background(), c.ID()); err != nil {
		t.Errorf("c, watched, was evicted: %v", err)
	}
}

// TestCopiesNeverChange: a copy the store handed out, and the view made of
// it, stay as they were while later updates append to the stored list in
// place, insert before its end, rename its client or reset it.
func TestCopiesNeverChange(t *testing.T) {
	st := NewStore(nil)
	s, err := st.New(DefaultScenario())
	must(t, "new", err)
	id := s.ID()
	for _, at := range []int64{0, 1000, 2000, 3000} {
		update(t, st, id, "fire", func(s *Session) error { return errors.Join(s.Jump(at), s.Fire(1)) })
	}
	steps := []struct {
		what string
		do   func(s *Session) error
	}{
		{"fire at the end", func(s *Session) error { return s.Fire(2) }},
		{"fire before the end", func(s *Session) error { return errors.Join(s.Jump(500), s.Fire(1)) }},
		{"rename the client", func(s *Session) error { return s.RenameClient("bob") }},
		{"a pattern", func(s *Session) error {
			return s.FirePattern(Pattern{Kind: Steady, Count: 5, SpanMs: 4000})
		}},
		{"reset", func(s *Session) error { return s.Reset() }},
	}
	for i, step := range steps {
		held, err := st.Get(context.Background(), id)
		must(t, "get", err)
		view := held.View()
		want := slices.Clone(held.Scenario().Requests)
		update(t, st, id, step.what, step.do)
		if got := held.Scenario().Requests; !slices.Equal(got, want) {
			t.Errorf("step %d (%s): a copy held before it now has requests %v, want %v", i+1, step.what, got, want)
		}
		if got := view.Scenario.Requests; !slices.Equal(got, want) {
			t.Errorf("step %d (%s): a view made before it now has requests %v, want %v", i+1, step.what, got, want)
		}
	}
}

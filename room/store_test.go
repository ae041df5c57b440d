package room

import (
	"context"
	"errors"
	"testing"
	"time"
)

// pending reports whether ch holds a value (false) or is closed (true), or
// neither; it never blocks.
func pending(ch <-chan struct{}) (got, closed bool) {
	select {
	case _, ok := <-ch:
		return ok, !ok
	default:
		return false, false
	}
}

func TestWatchKeepsOnlyTheNewsThatSomethingChanged(t *testing.T) {
	ctx := context.Background()
	st := NewMemStore()
	if err := st.Create(ctx, &Room{ID: "r1", Code: "AAAAA", Pointer: -1}, 10, 10); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Watch(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("watching an absent room: %v, want ErrNotFound", err)
	}
	wctx, cancel := context.WithCancel(ctx)
	slow, err := st.Watch(wctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	other, _ := st.Watch(ctx, "r1")
	bump := func(r *Room) error { r.Version++; return nil }
	steps := []struct {
		what          string
		do            func()
		value, closed bool
	}{
		{"nothing yet", func() {}, false, false},
		{"three changes, unread", func() {
			for range 3 {
				if _, err := st.Update(ctx, "r1", bump); err != nil {
					t.Fatal(err)
				}
			}
		}, true, false},
		{"read: nothing more pending", func() {}, false, false},
		{"a failed update is no change", func() { _, _ = st.Update(ctx, "r1", func(*Room) error { return errors.New("no") }) }, false, false},
		{"one more change", func() { _, _ = st.Update(ctx, "r1", bump) }, true, false},
	}
	for i, s := range steps {
		s.do()
		value, closed := pending(slow)
		if value != s.value || closed != s.closed {
			t.Fatalf("step %d (%s): value %v, closed %v; want %v, %v", i+1, s.what, value, closed, s.value, s.closed)
		}
	}
	// Leaving closes the channel, from the context's own goroutine.
	cancel()
	select {
	case _, ok := <-slow:
		if ok {
			t.Error("after the watcher left, a value instead of the channel closing")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the channel was not closed after the watcher's context ended")
	}
	if got, _ := pending(other); !got {
		t.Error("the other watcher saw no change")
	}
	if err := st.Delete(ctx, "r1"); err != nil {
		t.Fatal(err)
	}
	if _, closed := pending(other); !closed {
		t.Error("deleting the room did not close its watcher")
	}
	if len(st.watchers) != 0 {
		t.Errorf("%d rooms still have watchers after every watcher left", len(st.watchers))
	}
}

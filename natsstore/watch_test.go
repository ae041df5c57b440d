package natsstore

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// fakeBucket is a key-value bucket whose watcher the test feeds by hand,
// so that it knows exactly what watchKey has been given.
type fakeBucket struct {
	jetstream.KeyValue
	w *fakeWatcher
}

func (b fakeBucket) WatchFiltered(context.Context, []string, ...jetstream.WatchOpt) (jetstream.KeyWatcher, error) {
	return b.w, nil
}

type fakeWatcher struct {
	updates chan jetstream.KeyValueEntry
}

func (w *fakeWatcher) Updates() <-chan jetstream.KeyValueEntry { return w.updates }
func (w *fakeWatcher) Stop() error                             { return nil }

type fakeEntry struct {
	jetstream.KeyValueEntry
	key string
	op  jetstream.KeyValueOp
}

func (e fakeEntry) Key() string                     { return e.key }
func (e fakeEntry) Operation() jetstream.KeyValueOp { return e.op }

// TestWatchKeyHoldsOnePendingNotice: a watcher that reads nothing while
// five changes arrive holds one notice, not five; a change of a key
// watched along with the room tells, and its deletion does not close the
// watch; the room's deletion does.
func TestWatchKeyHoldsOnePendingNotice(t *testing.T) {
	w := &fakeWatcher{updates: make(chan jetstream.KeyValueEntry)} // unbuffered: a send returns once watchKey took it
	ch, err := watchKey(t.Context(), fakeBucket{w: w}, "id.r", "f.r")
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		w.updates <- fakeEntry{key: "id.r", op: jetstream.KeyValuePut}
	}
	// Taken only once the fifth has been handled.
	w.updates <- fakeEntry{key: "f.r", op: jetstream.KeyValuePurge}
	if n := len(ch); n != 1 {
		t.Fatalf("five changes unread left %d notices, want 1", n)
	}
	<-ch
	w.updates <- fakeEntry{key: "f.r", op: jetstream.KeyValuePut}
	w.updates <- nil // the end of the initial values: nothing to tell
	if n := len(ch); n != 1 {
		t.Fatalf("a change of the followers' key left %d notices, want 1", n)
	}
	<-ch
	w.updates <- fakeEntry{key: "id.r", op: jetstream.KeyValuePurge}
	select {
	case _, open := <-ch:
		if open {
			t.Fatal("the room's deletion was told as a change")
		}
	case <-time.After(5 * time.Second): // only if watchKey never closes: it has been handed the deletion
		t.Fatal("the room's deletion did not close the watch")
	}
}

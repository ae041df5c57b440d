package natsstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/windowlab/playground/room"
)

// startServer runs an embedded server under dir for the test's length.
func startServer(t *testing.T, dir string) *Embedded {
	t.Helper()
	e, err := StartEmbedded(EmbeddedOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e
}

// openRooms opens the rooms bucket over a connection of its own, as one
// replica of the app would.
func openRooms(t *testing.T, e *Embedded) *Rooms {
	t.Helper()
	nc, err := e.Connect()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	s, err := OpenRooms(context.Background(), nc, RoomsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newRoom(i int) *room.Room {
	return &room.Room{ID: fmt.Sprintf("room-%d", i), Code: fmt.Sprintf("C%04d", i), Session: fmt.Sprintf("s%d", i%2), Pointer: -1}
}

// within waits up to a few seconds for ch to give a value or close.
func within(t *testing.T, ch <-chan struct{}, what string) (closed bool) {
	t.Helper()
	select {
	case _, ok := <-ch:
		return !ok
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: no news within 5 s", what)
		return false
	}
}

func TestRoomsCreateGetAndBounds(t *testing.T) {
	ctx := context.Background()
	s := openRooms(t, startServer(t, t.TempDir()))
	for i := range 3 {
		if err := s.Create(ctx, newRoom(i), 3, 3); err != nil {
			t.Fatalf("room %d: Create = %v, want nil", i, err)
		}
	}
	if err := s.Create(ctx, newRoom(9), 3, 10); !errors.Is(err, room.ErrFull) {
		t.Errorf("a fourth room under a bound of 3: Create = %v, want ErrFull", err)
	}
	dup := newRoom(7)
	dup.Code = "C0001"
	if err := s.Create(ctx, dup, 10, 10); !errors.Is(err, room.ErrCodeTaken) {
		t.Errorf("a second room with code C0001: Create = %v, want ErrCodeTaken", err)
	}
	r, err := s.GetByCode(ctx, "C0002")
	if err != nil || r.ID != "room-2" {
		t.Fatalf("GetByCode(C0002) = %v, %v, want room-2", r, err)
	}
	for _, id := range []string{"nope", "", "a b", "id.>", "*", strings.Repeat("x", 5000)} {
		if _, err := s.Get(ctx, id); !errors.Is(err, room.ErrNotFound) {
			t.Errorf("Get(%.20q) = %v, want ErrNotFound", id, err)
		}
		if _, err := s.GetByCode(ctx, id); !errors.Is(err, room.ErrNotFound) {
			t.Errorf("GetByCode(%.20q) = %v, want ErrNotFound", id, err)
		}
		if _, err := s.Watch(ctx, id); !errors.Is(err, room.ErrNotFound) {
			t.Errorf("Watch(%.20q) = %v, want ErrNotFound", id, err)
		}
	}
	ids, err := s.ShowingSession(ctx, "s0")
	if err != nil || len(ids) != 2 {
		t.Errorf("ShowingSession(s0) = %v, %v, want rooms 0 and 2", ids, err)
	}
	if err := s.Delete(ctx, "room-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetByCode(ctx, "C0001"); !errors.Is(err, room.ErrNotFound) {
		t.Errorf("after Delete, GetByCode(C0001) = %v, want ErrNotFound", err)
	}
	if err := s.Create(ctx, dup, 3, 3); err != nil {
		t.Errorf("after Delete freed a place and its code, Create = %v, want nil", err)
	}
	n, err := s.DeleteIf(ctx, func(r *room.Room) bool { return r.Session == "s0" })
	if err != nil || n != 2 {
		t.Errorf("DeleteIf(session s0) = %d, %v, want 2", n, err)
	}
	if err := s.Delete(ctx, "never-was"); err != nil {
		t.Errorf("deleting an absent room: %v, want nil", err)
	}
}

// Two replicas adding answers to one room at once: every change is kept,
// because each write is checked against the revision it read.
func TestRoomsConcurrentUpdatesFromTwoReplicasLoseNothing(t *testing.T) {
	ctx := context.Background()
	e := startServer(t, t.TempDir())
	a, b := openRooms(t, e), openRooms(t, e)
	if err := a.Create(ctx, newRoom(1), 10, 10); err != nil {
		t.Fatal(err)
	}
	const each = 40
	var wg sync.WaitGroup
	errs := make(chan error, 2*each)
	for w, s := range []*Rooms{a, b, a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each / 2 {
				_, err := s.Update(ctx, "room-1", func(r *room.Room) error {
					if r.Attendees == nil {
						r.Attendees = map[string]time.Time{}
					}
					r.Attendees[fmt.Sprintf("w%d-%d", w, i)] = time.Time{}
					r.Version++
					return nil
				})
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	r, err := b.Get(ctx, "room-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Attendees) != 2*each || r.Version != 2*each {
		t.Errorf("after %d updates from two replicas: %d attendees, version %d, want %d and %d", 2*each, len(r.Attendees), r.Version, 2*each, 2*each)
	}
}

func TestRoomsWatchSeesChangesFromAnotherReplica(t *testing.T) {
	ctx := context.Background()
	e := startServer(t, t.TempDir())
	a, b := openRooms(t, e), openRooms(t, e)
	if err := a.Create(ctx, newRoom(1), 10, 10); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, err := b.Watch(wctx, "room-1")
	if err != nil {
		t.Fatal(err)
	}
	bump := func(r *room.Room) error { r.Version++; return nil }
	for step := 1; step <= 3; step++ {
		if _, err := a.Update(ctx, "room-1", bump); err != nil {
			t.Fatal(err)
		}
		if closed := within(t, ch, fmt.Sprintf("step %d", step)); closed {
			t.Fatalf("step %d: the watch closed on an update", step)
		}
		if r, _ := b.Get(ctx, "room-1"); r.Version != uint64(step) {
			t.Errorf("step %d: the other replica reads version %d", step, r.Version)
		}
	}
	// A slow watcher that misses several changes learns once that
	// something changed.
	for range 5 {
		if _, err := a.Update(ctx, "room-1", bump); err != nil {
			t.Fatal(err)
		}
	}
	// They reach this replica over the network, one notice or a few;
	// that a watcher holds at most one pending is watchKey's own
	// (TestWatchKeyHoldsOnePendingNotice). Each notice leads to the
	// newest room.
	for notices := 1; ; notices++ {
		if closed := within(t, ch, fmt.Sprintf("notice %d after five changes", notices)); closed {
			t.Fatal("the watch closed on an update")
		}
		if r, _ := b.Get(ctx, "room-1"); r.Version == 8 {
			break
		}
		if notices == 5 {
			t.Fatal("five notices, and the other replica still does not read version 8")
		}
	}
	if err := a.Delete(ctx, "room-1"); err != nil {
		t.Fatal(err)
	}
	// Notices of the changes before may still be pending: read through them.
	for n := 0; !within(t, ch, "after Delete"); n++ {
		if n == 8 {
			t.Fatal("deleting the room did not close its watch")
		}
	}
	ch2, err := a.Watch(wctx, "missing")
	if !errors.Is(err, room.ErrNotFound) || ch2 != nil {
		t.Errorf("watching a deleted room: %v, want ErrNotFound", err)
	}
}

func TestRoomsWatchEndsWithItsContext(t *testing.T) {
	ctx := context.Background()
	s := openRooms(t, startServer(t, t.TempDir()))
	if err := s.Create(ctx, newRoom(1), 10, 10); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	ch, err := s.Watch(wctx, "room-1")
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if closed := within(t, ch, "after cancel"); !closed {
		t.Error("the watch gave a value instead of closing when its context ended")
	}
}

// A restart of the server on the same directory keeps every room.
func TestRoomsSurviveARestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := StartEmbedded(EmbeddedOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	s := openRooms(t, e)
	r := newRoom(1)
	r.Asked = 3
	if err := s.Create(ctx, r, 10, 10); err != nil {
		t.Fatal(err)
	}
	e.Close()
	s2 := openRooms(t, startServer(t, dir))
	got, err := s2.GetByCode(ctx, "C0001")
	if err != nil || got.Asked != 3 {
		t.Fatalf("after a restart, GetByCode = %+v, %v, want the room with 3 questions asked", got, err)
	}
}

func TestRoomsRefuseAValueNATSCannotCarry(t *testing.T) {
	ctx := context.Background()
	s := openRooms(t, startServer(t, t.TempDir()))
	if err := s.Create(ctx, newRoom(1), 10, 10); err != nil {
		t.Fatal(err)
	}
	_, err := s.Update(ctx, "room-1", func(r *room.Room) error {
		r.Attendees = map[string]time.Time{}
		for i := range 40000 {
			r.Attendees[fmt.Sprintf("attendee-%08d", i)] = time.Time{}
		}
		return nil
	})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("an update past 1 MiB: %v, want ErrTooLarge", err)
	}
	if r, err := s.Get(ctx, "room-1"); err != nil || len(r.Attendees) != 0 {
		t.Errorf("after a refused update the room reads %d attendees, %v; want the room as it was", len(r.Attendees), err)
	}
}

// TestFollowersOfADeadReplicaStopCounting: a replica that stops saying
// its streams are open (it died) stops counting after room.FollowersStale,
// and one that says so again counts again, whole.
func TestFollowersOfADeadReplicaStopCounting(t *testing.T) {
	ctx := context.Background()
	e := startServer(t, t.TempDir())
	a, b := openRooms(t, e), openRooms(t, e)
	if err := a.Create(ctx, newRoom(1), 10, 10); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for range 3 {
		if _, err := a.Follow(ctx, "room-1", room.Screens{Phones: 1}, at, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Follow(ctx, "room-1", room.Screens{Projectors: 1, Presenters: 1}, at.Add(room.FollowersStale), nil); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		what string
		at   time.Time
		want room.Screens
	}{
		{"both replicas said so within the stale time", at.Add(room.FollowersStale), room.Screens{Phones: 3, Projectors: 1, Presenters: 1}},
		{"replica 1 silent for longer", at.Add(room.FollowersStale + time.Second), room.Screens{Projectors: 1, Presenters: 1}},
	}
	for i, s := range steps {
		if got, err := b.Followers(ctx, "room-1", s.at); err != nil || got != s.want {
			t.Errorf("step %d (%s): %+v, %v; want %+v", i+1, s.what, got, err, s.want)
		}
	}
	later := at.Add(room.FollowersStale + time.Second)
	if got, err := a.Follow(ctx, "room-1", room.Screens{}, later, nil); err != nil || got.Phones != 3 {
		t.Errorf("replica 1 says its streams are open again: %+v, %v; want its 3 phones counted", got, err)
	}
}

// A second server on a directory another holds is refused before it reads
// or writes anything there, naming the directory and its holder; the
// directory is free again once the first has closed.
func TestEmbeddedLocksItsDirectory(t *testing.T) {
	dir := t.TempDir()
	first, err := StartEmbedded(EmbeddedOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	_, err = StartEmbedded(EmbeddedOptions{Dir: dir})
	var inUse *DirInUseError
	if !errors.As(err, &inUse) {
		first.Close()
		t.Fatalf("a second server on a held directory: %v, want a *DirInUseError", err)
	}
	holder := fmt.Sprintf("process %d ", os.Getpid())
	if !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), holder) {
		t.Errorf("the refusal says %q, want it to name %s and %q", err, dir, holder)
	}
	first.Close()
	again, err := StartEmbedded(EmbeddedOptions{Dir: dir})
	if err != nil {
		t.Fatalf("after the first server closed, a new one on its directory: %v", err)
	}
	again.Close()
}

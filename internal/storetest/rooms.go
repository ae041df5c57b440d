package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/windowlab/playground/room"
)

// NewRooms makes an empty room store and returns n handles on it (n >= 1),
// as n replicas sharing one backend would each hold one.
type NewRooms func(t *testing.T, n int) []room.Store

// RunRooms runs the room.Store contract (see room.Store) against stores
// made by newStore. The bounds a store keeps are Create's limit and the
// uniqueness of ids and codes; idling and eviction are the caller's, through
// DeleteIf (room.Rooms forgets a room its presenter left), so that is what
// is checked of them here.
func RunRooms(t *testing.T, newStore NewRooms) {
	t.Run("creates within the limit, ids and codes unique", func(t *testing.T) { roomsCreate(t, newStore) })
	t.Run("concurrent creators on two handles keep the limits", func(t *testing.T) { roomsConcurrentCreate(t, newStore) })
	t.Run("streams from two handles are counted together within the bound", func(t *testing.T) { roomsFollowers(t, newStore) })
	t.Run("reads are copies", func(t *testing.T) { roomsCopies(t, newStore) })
	t.Run("a refused update changes nothing", func(t *testing.T) { roomsRefusedUpdate(t, newStore) })
	t.Run("concurrent updates of one room lose no change", func(t *testing.T) { roomsConcurrentUpdates(t, newStore) })
	t.Run("watchers hear of changes on every handle", func(t *testing.T) { roomsWatchers(t, newStore) })
	t.Run("idle rooms are forgotten by DeleteIf, their watchers closed", func(t *testing.T) { roomsIdle(t, newStore) })
}

func rooms(t *testing.T, newStore NewRooms, n int) []room.Store {
	t.Helper()
	hs := newStore(t, n)
	if len(hs) != n {
		t.Fatalf("NewRooms(%d) returned %d handles", n, len(hs))
	}
	return hs
}

func newRoom(id, code, session string, seen time.Time) *room.Room {
	return &room.Room{ID: id, Code: code, Session: session, Created: seen, PresenterSeen: seen, Pointer: -1}
}

func roomsCreate(t *testing.T, newStore NewRooms) {
	ctx := context.Background()
	hs := rooms(t, newStore, 2)
	at := NewClock().Now()
	const limit = 3
	for i := range limit {
		if err := hs[i%2].Create(ctx, newRoom(fmt.Sprint("id", i), fmt.Sprint("CODE", i), "s", at), limit, limit); err != nil {
			t.Fatalf("room %d: Create = %v", i+1, err)
		}
	}
	owned := func(id, code, owner string) *room.Room {
		r := newRoom(id, code, "s", at)
		r.Owner = owner
		return r
	}
	steps := []struct {
		what            string
		r               *room.Room
		limit, perOwner int
		want            error
	}{
		{"a fourth room, over the limit", newRoom("id9", "CODE9", "s", at), limit, limit + 1, room.ErrFull},
		{"a taken code, under a higher limit", newRoom("id8", "CODE1", "s", at), limit + 1, limit + 1, room.ErrCodeTaken},
		{"a fourth room of the owner of three, at a share of three", newRoom("id7", "CODE7", "s", at), limit + 1, limit, room.ErrClientRooms},
		{"another owner's first room, within the limit", owned("id6", "CODE6", "B"), limit + 1, 1, nil},
		{"that owner's second, at a share of one", owned("id5", "CODE5", "B"), limit + 2, 1, room.ErrClientRooms},
	}
	for i, s := range steps {
		if err := hs[1].Create(ctx, s.r, s.limit, s.perOwner); !errors.Is(err, s.want) {
			t.Errorf("step %d (%s): Create = %v, want %v", i+1, s.what, err, s.want)
		}
	}
	if err := hs[0].Create(ctx, newRoom("id1", "CODE8", "s", at), limit+2, limit+2); err == nil {
		t.Error("a second room with a taken id was created")
	}
	if err := hs[0].Delete(ctx, "id0"); err != nil {
		t.Fatal(err)
	}
	if err := hs[1].Create(ctx, newRoom("id9", "CODE0", "s", at), limit+1, limit+1); err != nil {
		t.Errorf("after a delete, Create with the freed code = %v, want room", err)
	}
	if err := hs[1].Delete(ctx, "no-such-room"); err != nil {
		t.Errorf("deleting an absent room: %v, want no error", err)
	}
	got, err := hs[0].GetByCode(ctx, "CODE0")
	if err != nil || got.ID != "id9" {
		t.Errorf("GetByCode(CODE0) = %v, %v; want room id9", got, err)
	}
	for _, f := range []func() error{
		func() error { _, err := hs[0].Get(ctx, "id0"); return err },
		func() error { _, err := hs[1].GetByCode(ctx, "NOPE"); return err },
		func() error { _, err := hs[0].Update(ctx, "id0", func(*room.Room) error { return nil }); return err },
		func() error { _, err := hs[1].Watch(ctx, "id0"); return err },
	} {
		if err := f(); !errors.Is(err, room.ErrNotFound) {
			t.Errorf("a deleted room: %v, want room.ErrNotFound", err)
		}
	}
}

func roomsCopies(t *testing.T, newStore NewRooms) {
	ctx := context.Background()
	st := rooms(t, newStore, 1)[0]
	if err := st.Create(ctx, newRoom("r", "CODE", "s", NewClock().Now()), 10, 10); err != nil {
		t.Fatal(err)
	}
	got, err := st.Get(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	got.Pointer, got.Presenters = 7, append(got.Presenters, "mine")
	updated, err := st.Update(ctx, "r", func(r *room.Room) error { r.Asked++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	updated.Asked = 99
	again, err := st.Get(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	if again.Pointer != -1 || len(again.Presenters) != 0 || again.Asked != 1 {
		t.Errorf("changing copies reached the store: pointer %d, presenters %v, asked %d; want -1, none, 1", again.Pointer, again.Presenters, again.Asked)
	}
	if _, err := st.Update(ctx, "r", func(r *room.Room) error { r.Code = "OTHER"; return nil }); err == nil {
		t.Error("an update changed the room's code")
	}
}

func roomsRefusedUpdate(t *testing.T, newStore NewRooms) {
	ctx := context.Background()
	st := rooms(t, newStore, 1)[0]
	if err := st.Create(ctx, newRoom("r", "CODE", "s", NewClock().Now()), 10, 10); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, err := st.Watch(wctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	no := errors.New("no")
	if _, err := st.Update(ctx, "r", func(r *room.Room) error { r.Asked = 5; return no }); !errors.Is(err, no) {
		t.Fatalf("Update = %v, want the function's error", err)
	}
	if got, _ := st.Get(ctx, "r"); got.Asked != 0 {
		t.Errorf("a refused update left asked = %d, want 0", got.Asked)
	}
	select {
	case <-ch:
		t.Error("a refused update notified a watcher")
	default:
	}
}

func roomsConcurrentUpdates(t *testing.T, newStore NewRooms) {
	ctx := context.Background()
	hs := rooms(t, newStore, 2)
	if err := hs[0].Create(ctx, newRoom("r", "CODE", "s", NewClock().Now()), 10, 10); err != nil {
		t.Fatal(err)
	}
	const writers, each = 4, 25
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				// Each update adds an attendee of its own and counts: a
				// lost change shows as a missing attendee or count.
				name := fmt.Sprintf("w%d-%d", w, i)
				if _, err := hs[w%2].Update(ctx, "r", func(r *room.Room) error {
					if r.Attendees == nil {
						r.Attendees = map[string]time.Time{}
					}
					r.Attendees[name] = time.Time{}
					r.Asked++
					return nil
				}); err != nil {
					t.Errorf("writer %d, update %d: %v", w, i+1, err)
					return
				}
			}
		})
	}
	wg.Wait()
	got, err := hs[1].Get(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	if got.Asked != writers*each || len(got.Attendees) != writers*each {
		t.Errorf("after %d updates: asked %d, %d attendees; want %d of each", writers*each, got.Asked, len(got.Attendees), writers*each)
	}
}

func roomsWatchers(t *testing.T, newStore NewRooms) {
	ctx := context.Background()
	hs := rooms(t, newStore, 2)
	if err := hs[0].Create(ctx, newRoom("r", "CODE", "s", NewClock().Now()), 10, 10); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	ch, err := hs[1].Watch(wctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := hs[0].Update(ctx, "r", func(r *room.Room) error { r.Pointer = i; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	// A store spanning replicas delivers each change a moment later: let
	// all three arrive before looking, or a late one reads as a second.
	time.Sleep(settle)
	wait(t, ch, "three updates on the other handle")
	// At most one pending: three changes were one notice.
	select {
	case <-ch:
		t.Error("three changes unread left more than one notice")
	case <-time.After(50 * time.Millisecond):
	}
	if got, _ := hs[1].Get(ctx, "r"); got.Pointer != 2 {
		t.Errorf("the watching handle reads pointer %d, want 2", got.Pointer)
	}
	cancel()
	closed(t, ch, "after the watcher's context ended")
}

// closed waits for ch to close, failing the test after notified.
func closed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	if !closesWithin(ch, notified) {
		t.Fatalf("%s: the channel is still open after %v", what, notified)
	}
}

// closesWithin reports whether ch closes within d, draining the notices
// sent before it does.
func closesWithin(ch <-chan struct{}, d time.Duration) bool {
	deadline := time.After(d)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return true
			}
		case <-deadline:
			return false
		}
	}
}

func roomsIdle(t *testing.T, newStore NewRooms) {
	ctx := context.Background()
	hs := rooms(t, newStore, 2)
	start := NewClock().Now()
	for i, seen := range []time.Duration{0, 10 * time.Minute, 20 * time.Minute} {
		if err := hs[0].Create(ctx, newRoom(fmt.Sprint("r", i), fmt.Sprint("CODE", i), fmt.Sprint("s", i%2), start.Add(seen)), 10, 10); err != nil {
			t.Fatal(err)
		}
	}
	ch, err := hs[1].Watch(ctx, "r0")
	if err != nil {
		t.Fatal(err)
	}
	showing, err := hs[1].ShowingSession(ctx, "s0")
	slices.Sort(showing)
	if err != nil || !slices.Equal(showing, []string{"r0", "r2"}) {
		t.Errorf("ShowingSession(s0) = %v, %v; want [r0 r2]", showing, err)
	}
	// Forget the rooms whose presenter was last seen 15 minutes before
	// the newest: r0 and r1.
	cut := start.Add(15 * time.Minute)
	n, err := hs[1].DeleteIf(ctx, func(r *room.Room) bool { return r.PresenterSeen.Before(cut) })
	if err != nil || n != 2 {
		t.Errorf("DeleteIf = %d, %v; want 2 rooms forgotten", n, err)
	}
	closed(t, ch, "the watcher of a room DeleteIf forgot")
	for _, id := range []string{"r0", "r1"} {
		if _, err := hs[0].Get(ctx, id); !errors.Is(err, room.ErrNotFound) {
			t.Errorf("room %s, idle: Get = %v, want room.ErrNotFound", id, err)
		}
	}
	if _, err := hs[0].GetByCode(ctx, "CODE2"); err != nil {
		t.Errorf("room r2, recent: GetByCode = %v", err)
	}
}

// roomsConcurrentCreate creates rooms from three owners on two handles at
// once, more than the limits allow: no owner passes its share, the store
// passes no limit, and every refusal was due (as many rooms are stored as
// the limit allows).
func roomsConcurrentCreate(t *testing.T, newStore NewRooms) {
	ctx := context.Background()
	hs := rooms(t, newStore, 2)
	at := NewClock().Now()
	const limit, perOwner, owners, each = 7, 3, 3, 8
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		owned = map[string]int{}
	)
	for w := range 2 * owners {
		wg.Go(func() {
			owner := fmt.Sprint("owner", w%owners)
			for i := range each {
				r := newRoom(fmt.Sprintf("id-%d-%d", w, i), fmt.Sprintf("C%d-%d", w, i), "s", at)
				r.Owner = owner
				err := hs[w%2].Create(ctx, r, limit, perOwner)
				switch {
				case err == nil:
					mu.Lock()
					owned[owner]++
					mu.Unlock()
				case errors.Is(err, room.ErrFull), errors.Is(err, room.ErrClientRooms):
				default:
					t.Errorf("writer %d, room %d: Create = %v", w, i+1, err)
					return
				}
			}
		})
	}
	wg.Wait()
	total := 0
	for o, n := range owned {
		if n > perOwner {
			t.Errorf("%s holds %d rooms, want at most %d", o, n, perOwner)
		}
		total += n
	}
	if total != limit {
		t.Errorf("%d rooms were created, want the limit, %d (%d owners of %d could fill it)", total, limit, owners, perOwner)
	}
	stored, err := hs[1].DeleteIf(ctx, func(*room.Room) bool { return true })
	if err != nil || stored != total {
		t.Errorf("DeleteIf of every room = %d, %v; want the %d created", stored, err, total)
	}
}

// roomsFollowers opens streams of one room on two handles at once, more
// than the bound allows: as many are admitted as the bound, both handles
// count the room's streams (not their own), a watcher hears of a change on
// the other handle, and streams taken back free their places.
func roomsFollowers(t *testing.T, newStore NewRooms) {
	ctx := context.Background()
	hs := rooms(t, newStore, 2)
	now := NewClock().Now()
	if err := hs[0].Create(ctx, newRoom("r", "CODE", "s", now), 10, 10); err != nil {
		t.Fatal(err)
	}
	const bound, each = 12, 10
	fits := func(total room.Screens) error {
		if total.Phones > bound {
			return room.ErrStreamsFull
		}
		return nil
	}
	phone := room.Screens{Phones: 1}
	var (
		wg       sync.WaitGroup
		admitted [2]int
		mu       sync.Mutex
	)
	for w := range 4 {
		wg.Go(func() {
			for i := range each {
				_, err := hs[w%2].Follow(ctx, "r", phone, now, fits)
				switch {
				case err == nil:
					mu.Lock()
					admitted[w%2]++
					mu.Unlock()
				case errors.Is(err, room.ErrStreamsFull):
				default:
					t.Errorf("writer %d, stream %d: Follow = %v", w, i+1, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if got := admitted[0] + admitted[1]; got != bound {
		t.Errorf("%d streams were admitted (%d and %d on the two handles), want the bound, %d", got, admitted[0], admitted[1], bound)
	}
	for h := range hs {
		if got, err := hs[h].Followers(ctx, "r", now); err != nil || got.Phones != bound {
			t.Errorf("handle %d counts %+v, %v; want the room's %d phones", h+1, got, err, bound)
		}
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, err := hs[0].Watch(wctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	// The handle that admitted one takes it back: its place is free.
	from := 1
	if admitted[1] == 0 {
		from = 0
	}
	if _, err := hs[from].Follow(ctx, "r", phone.Neg(), now, nil); err != nil {
		t.Fatal(err)
	}
	wait(t, ch, "a stream taken back on the other handle")
	if got, err := hs[0].Followers(ctx, "r", now); err != nil || got.Phones != bound-1 {
		t.Errorf("after one stream left: %+v, %v; want %d phones", got, err, bound-1)
	}
	if _, err := hs[0].Follow(ctx, "r", phone, now, fits); err != nil {
		t.Errorf("a stream in the freed place: Follow = %v", err)
	}
	if _, err := hs[1].Follow(ctx, "r", phone, now, fits); !errors.Is(err, room.ErrStreamsFull) {
		t.Errorf("a stream past the bound again: Follow = %v, want room.ErrStreamsFull", err)
	}
}

// Package storetest holds contract tests for stores: behaviour that every
// implementation of an interface must show, written against the interface
// alone, so that the in-memory store and a later one (NATS) pass the same
// tests. RunSessions checks a play.Sessions, RunRooms a room.Store.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
)

// Bounds configure a store under test: small ones, so that the tests reach
// them quickly. Now is the store's clock; the tests move it.
type Bounds struct {
	Now         func() time.Time
	MaxSessions int
	PerClient   int
	Idle        time.Duration
}

// NewSessions makes an empty store with bounds b and returns n handles on
// it (n >= 1), as n replicas sharing one backend would each hold one: the
// tests check that what is done through one handle is seen through every
// other, and that the bounds hold across them. Every handle reads time from
// b.Now.
type NewSessions func(t *testing.T, b Bounds, n int) []play.Sessions

// one makes a store and returns its only handle.
func one(t *testing.T, newStore NewSessions, b Bounds) play.Sessions {
	t.Helper()
	hs := newStore(t, b, 1)
	if len(hs) != 1 {
		t.Fatalf("NewSessions(1) returned %d handles", len(hs))
	}
	return hs[0]
}

// replicas makes a store and returns n handles on it.
func replicas(t *testing.T, newStore NewSessions, b Bounds, n int) []play.Sessions {
	t.Helper()
	hs := newStore(t, b, n)
	if len(hs) != n {
		t.Fatalf("NewSessions(%d) returned %d handles", n, len(hs))
	}
	return hs
}

// Clock is a test clock that only moves when told, safe for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock at a fixed instant.
func NewClock() *Clock { return NewClockAt(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)) }

// NewClockAt returns a clock at t.
func NewClockAt(t time.Time) *Clock { return &Clock{now: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// notified is how long a test waits for a change to reach a watcher: a
// store spanning replicas hears of it over the network.
const notified = 5 * time.Second

// settle is how long a test lets changes already made reach every
// watcher before it counts notices: a store spanning replicas delivers
// them a moment after the write returns.
const settle = 300 * time.Millisecond

// RunSessions runs the play.Sessions contract (see play.Sessions) against
// stores made by newStore.
func RunSessions(t *testing.T, newStore NewSessions) {
	t.Run("opens sessions and finds them by id", func(t *testing.T) { opensAndFinds(t, newStore) })
	t.Run("an unknown id is not found", func(t *testing.T) { unknownID(t, newStore) })
	t.Run("changes reach every handle and its watchers", func(t *testing.T) { changesReachEveryHandle(t, newStore) })
	t.Run("a refused update changes nothing", func(t *testing.T) { refusedUpdate(t, newStore) })
	t.Run("a session handed out is a copy", func(t *testing.T) { copiesAreValues(t, newStore) })
	t.Run("concurrent updates of one session lose no change", func(t *testing.T) { concurrentUpdates(t, newStore) })
	t.Run("replicas agree on a playing clock nobody ticks", func(t *testing.T) { replicasAgreeOnTheClock(t, newStore) })
	t.Run("a forgotten session closes its watchers", func(t *testing.T) { forgottenClosesWatchers(t, newStore) })
	t.Run("an idle session ends, a used one lives", func(t *testing.T) { idleSessionsEnd(t, newStore) })
	t.Run("a watched session never idles out", func(t *testing.T) { watchedSessionsStay(t, newStore) })
	t.Run("a client at its cap loses its least recently used", func(t *testing.T) { perClientCap(t, newStore) })
	t.Run("a full store forgets an abandoned session", func(t *testing.T) { fullForgetsAbandoned(t, newStore) })
	t.Run("a full busy store takes from the largest client", func(t *testing.T) { fullTakesFromLargest(t, newStore) })
	t.Run("a flood from one client leaves room for others", func(t *testing.T) { floodLeavesRoom(t, newStore) })
	t.Run("concurrent use stays within the bounds", func(t *testing.T) { concurrentWithinBounds(t, newStore) })
	t.Run("a concurrent flood on two replicas keeps no newcomer out", func(t *testing.T) { concurrentFloodIsFair(t, newStore) })
}

// open opens a session for client, failing the test if it cannot.
func open(t *testing.T, st play.Sessions, client string) *play.Session {
	t.Helper()
	s, err := st.NewFor(context.Background(), client, scenario.Scenario{})
	if err != nil {
		t.Fatalf("NewFor(%q): %v", client, err)
	}
	return s
}

// live reports whether id is found; finding it marks it used, so tests ask
// only when that no longer matters.
func live(t *testing.T, st play.Sessions, id string) bool {
	t.Helper()
	_, err := st.Get(context.Background(), id)
	switch {
	case err == nil:
		return true
	case errors.Is(err, play.ErrNotFound):
		return false
	}
	t.Fatalf("Get(%q): %v, want a session or play.ErrNotFound", id, err)
	return false
}

// expect checks, in order, which sessions are still found.
func expect(t *testing.T, st play.Sessions, want map[string]bool, names map[string]string) {
	t.Helper()
	ids := make([]string, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int {
		if names[a] < names[b] {
			return -1
		}
		return 1
	})
	for _, id := range ids {
		if got := live(t, st, id); got != want[id] {
			t.Errorf("session %s: found = %v, want %v", names[id], got, want[id])
		}
	}
}

func opensAndFinds(t *testing.T, newStore NewSessions) {
	ctx := context.Background()
	clock := NewClock()
	st := one(t, newStore, Bounds{Now: clock.Now, MaxSessions: 60, PerClient: 60, Idle: time.Hour})
	s := open(t, st, "A")
	v := s.View()
	def := play.DefaultScenario()
	if v.Scenario.Limit != def.Limit || v.Scenario.WindowMs != def.WindowMs || !slices.Equal(v.Scenario.Policies, def.Policies) || len(v.Scenario.Requests) != 0 {
		t.Errorf("NewFor with an empty scenario holds %+v, want the default scenario", v.Scenario)
	}
	sc := scenario.Scenario{Limit: 3, WindowMs: 10_000, Policies: []scenario.PolicySpec{{Name: "token-bucket"}},
		Requests: []scenario.Request{{At: 100, Key: "bob", Cost: 2, Count: 1}, {At: 500, Cost: 1, Count: 2}}}
	given, err := st.NewFor(ctx, "A", sc)
	if err != nil {
		t.Fatalf("NewFor with a scenario: %v", err)
	}
	got, err := st.Get(ctx, given.ID())
	if err != nil {
		t.Fatalf("Get of a new session: %v", err)
	}
	if g := got.Scenario(); g.Limit != 3 || g.WindowMs != 10_000 || !slices.Equal(g.Policies, sc.Policies) || !slices.Equal(g.Requests, sc.Requests) {
		t.Errorf("the session found holds %+v, want %+v", g, sc)
	}
	if got.ID() != given.ID() {
		t.Errorf("Get(%q) returned session %q", given.ID(), got.ID())
	}
	seen := map[string]bool{}
	for i := range 50 {
		s := open(t, st, fmt.Sprint("client", i%5))
		if len(s.ID()) < 22 { // 128 bits in base64
			t.Fatalf("id %q: want at least 128 bits", s.ID())
		}
		if seen[s.ID()] {
			t.Fatalf("session %d: id %q issued twice", i+1, s.ID())
		}
		seen[s.ID()] = true
	}
}

func unknownID(t *testing.T, newStore NewSessions) {
	st := one(t, newStore, Bounds{Now: NewClock().Now, MaxSessions: 4, PerClient: 4, Idle: time.Hour})
	s := open(t, st, "A")
	ctx := context.Background()
	for _, id := range []string{"", "no-such-session", s.ID() + "x"} {
		if _, err := st.Get(ctx, id); !errors.Is(err, play.ErrNotFound) {
			t.Errorf("Get(%q) = %v, want play.ErrNotFound", id, err)
		}
		if _, err := st.Update(ctx, id, func(s *play.Session) error { return s.Fire(1) }); !errors.Is(err, play.ErrNotFound) {
			t.Errorf("Update(%q) = %v, want play.ErrNotFound", id, err)
		}
		if _, err := st.Watch(ctx, id); !errors.Is(err, play.ErrNotFound) {
			t.Errorf("Watch(%q) = %v, want play.ErrNotFound", id, err)
		}
		if err := st.Touch(ctx, id); !errors.Is(err, play.ErrNotFound) {
			t.Errorf("Touch(%q) = %v, want play.ErrNotFound", id, err)
		}
	}
}

// wait waits for a notice on ch, failing the test after notified.
func wait(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(notified):
		t.Fatalf("%s: no notice within %v", what, notified)
	}
}

// watch watches id through st, failing the test if it cannot, and returns
// the channel and a function that stops watching and waits until the store
// has let the watcher go (the channel closes).
func watch(t *testing.T, st play.Sessions, id string) (<-chan struct{}, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := st.Watch(ctx, id)
	if err != nil {
		cancel()
		t.Fatalf("Watch(%q): %v", id, err)
	}
	// Errorf, not closed's Fatalf: stop runs deferred, often many at once.
	return ch, func() {
		cancel()
		if !closesWithin(ch, notified) {
			t.Errorf("Watch(%q): the channel is still open %v after its context ended", id, notified)
		}
	}
}

// update runs fn on the session id through st, failing the test if it fails.
func update(t *testing.T, st play.Sessions, id, what string, fn func(*play.Session) error) *play.Session {
	t.Helper()
	s, err := st.Update(context.Background(), id, fn)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return s
}

// get reads the session id through st, failing the test if it cannot.
func get(t *testing.T, st play.Sessions, id string) *play.Session {
	t.Helper()
	s, err := st.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("Get(%q): %v", id, err)
	}
	return s
}

func changesReachEveryHandle(t *testing.T, newStore NewSessions) {
	clock := NewClock()
	hs := replicas(t, newStore, Bounds{Now: clock.Now, MaxSessions: 4, PerClient: 4, Idle: time.Hour}, 2)
	actor, follower := hs[0], hs[1]
	id := open(t, actor, "A").ID()
	changes, stop := watch(t, follower, id)
	defer stop()
	last := get(t, follower, id).Version()
	steps := []struct {
		what string
		do   func(s *play.Session) error
	}{
		{"fire 2", func(s *play.Session) error { return s.Fire(2) }},
		{"step 1 s", func(s *play.Session) error { return s.Step(1000) }},
		{"fire 1", func(s *play.Session) error { return s.Fire(1) }},
		{"select request 2", func(s *play.Session) error { return s.Select(1) }},
	}
	for i, st := range steps {
		want := update(t, actor, id, fmt.Sprintf("step %d (%s)", i+1, st.what), st.do).View()
		wait(t, changes, fmt.Sprintf("step %d (%s)", i+1, st.what))
		got := get(t, follower, id).View()
		if got.Version != last+1 {
			t.Errorf("step %d (%s): version = %d, want %d", i+1, st.what, got.Version, last+1)
		}
		if got.Version != want.Version || got.Total != want.Total || got.Clock.Now != want.Clock.Now {
			t.Errorf("step %d (%s): the follower shows version %d, %d requests at %d ms; the actor version %d, %d requests at %d ms",
				i+1, st.what, got.Version, got.Total, got.Clock.Now, want.Version, want.Total, want.Clock.Now)
		}
		last = got.Version
	}
	if sel := get(t, follower, id).View().Selected; sel == nil || sel.Index != 1 {
		t.Errorf("the follower's selection = %+v, want request 2", sel)
	}
}

func refusedUpdate(t *testing.T, newStore NewSessions) {
	st := one(t, newStore, Bounds{Now: NewClock().Now, MaxSessions: 4, PerClient: 4, Idle: time.Hour})
	id := open(t, st, "A").ID()
	update(t, st, id, "fire 2", func(s *play.Session) error { return s.Fire(2) })
	changes, stop := watch(t, st, id)
	defer stop()
	before := get(t, st, id)
	refusal := errors.New("refused")
	_, err := st.Update(context.Background(), id, func(s *play.Session) error {
		if err := s.Fire(3); err != nil {
			return err
		}
		return refusal // after a change: the store must keep none of it
	})
	if !errors.Is(err, refusal) {
		t.Fatalf("Update = %v, want the function's own error", err)
	}
	after := get(t, st, id)
	if after.Version() != before.Version() || !slices.Equal(after.Scenario().Requests, before.Scenario().Requests) {
		t.Errorf("a refused update left version %d with %d requests, want version %d with %d",
			after.Version(), len(after.Scenario().Requests), before.Version(), len(before.Scenario().Requests))
	}
	select {
	case <-changes:
		t.Error("a refused update notified a watcher")
	default:
	}
}

func copiesAreValues(t *testing.T, newStore NewSessions) {
	st := one(t, newStore, Bounds{Now: NewClock().Now, MaxSessions: 4, PerClient: 4, Idle: time.Hour})
	id := open(t, st, "A").ID()
	// One request an update, as a page fires them: a store that appends
	// in place has room past the end by now.
	for i, at := range []int64{0, 1000, 2000, 3000, 4000} {
		update(t, st, id, fmt.Sprintf("fire %d", i+1), func(s *play.Session) error { return errors.Join(s.Jump(at), s.Fire(1)) })
	}
	held := get(t, st, id)
	want := held.Scenario().Requests
	// Changed outside Update: only the copy changes.
	if err := errors.Join(held.Jump(500), held.Fire(4), held.RenameClient("bob")); err != nil {
		t.Fatal(err)
	}
	if got := get(t, st, id).Scenario().Requests; !slices.Equal(got, want) {
		t.Errorf("actions on a copy outside Update reached the store: %+v, want %+v", got, want)
	}
	// Changed by later Updates: the copy held stays as it was.
	held = get(t, st, id)
	kept := held.View()
	update(t, st, id, "fire before the end, then rename", func(s *play.Session) error {
		return errors.Join(s.Jump(500), s.Fire(1), s.RenameClient("carol"))
	})
	if got := held.Scenario().Requests; !slices.Equal(got, want) {
		t.Errorf("an update changed a copy handed out before it: %+v, want %+v", got, want)
	}
	if got := kept.Scenario.Requests; !slices.Equal(got, want) {
		t.Errorf("an update changed a view made before it: %+v, want %+v", got, want)
	}
}

func concurrentUpdates(t *testing.T, newStore NewSessions) {
	const writers, each = 4, 25
	hs := replicas(t, newStore, Bounds{Now: NewClock().Now, MaxSessions: 4, PerClient: 4, Idle: time.Hour}, 2)
	opened := open(t, hs[0], "A")
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			st := hs[w%len(hs)]
			for i := range each {
				// Each writer fires from a client of its own, selected
				// in the same update: a lost change shows as a missing
				// request, or one fired from another writer's client.
				client := fmt.Sprint("writer", w)
				if _, err := st.Update(context.Background(), opened.ID(), func(s *play.Session) error {
					if err := s.SelectClient(client); err != nil {
						return err
					}
					return s.Fire(1)
				}); err != nil {
					t.Errorf("writer %d, update %d: %v", w, i+1, err)
					return
				}
			}
		})
	}
	wg.Wait()
	got := get(t, hs[1], opened.ID())
	if got.Version() != opened.Version()+writers*each {
		t.Errorf("after %d updates: version %d, want %d", writers*each, got.Version(), opened.Version()+writers*each)
	}
	per := map[string]int64{}
	for _, r := range got.Scenario().Requests {
		per[r.KeyName()] += r.Count
	}
	for w := range writers {
		if n := per[fmt.Sprint("writer", w)]; n != each {
			t.Errorf("writer %d: %d requests kept, want %d", w, n, each)
		}
	}
}

func replicasAgreeOnTheClock(t *testing.T, newStore NewSessions) {
	clock := NewClock()
	hs := replicas(t, newStore, Bounds{Now: clock.Now, MaxSessions: 4, PerClient: 4, Idle: time.Hour}, 2)
	id := open(t, hs[0], "A").ID()
	update(t, hs[0], id, "jump to 2 s", func(s *play.Session) error { return s.Jump(2000) })
	update(t, hs[0], id, "play", func(s *play.Session) error { return s.Play() })
	steps := []struct {
		what    string
		on      int // the replica that acts, -1 for none
		do      func(s *play.Session) error
		advance time.Duration
		want    int64
		playing bool
	}{
		{"1.25 s pass at 1×", -1, nil, 1250 * time.Millisecond, 3250, true},
		{"another 0.75 s", -1, nil, 750 * time.Millisecond, 4000, true},
		{"replica 2 sets 16×, 0.5 s pass", 1, func(s *play.Session) error { return s.SetSpeed(play.FastestSpeed) }, 500 * time.Millisecond, 12_000, true},
		{"replica 1 fires, 0.1 ms pass", 0, func(s *play.Session) error { return s.Fire(1) }, 100 * time.Microsecond, 12_001, true},
		{"0.3 ms pass: the part of a millisecond carried", -1, nil, 300 * time.Microsecond, 12_006, true},
		{"replica 2 pauses, 1 min passes", 1, func(s *play.Session) error { return s.Pause() }, time.Minute, 12_006, false},
		{"replica 1 plays at 0.25×, 4 s pass", 0, func(s *play.Session) error {
			return errors.Join(s.SetSpeed(play.QuarterSpeed), s.Play())
		}, 4 * time.Second, 13_006, true},
	}
	for i, st := range steps {
		if st.do != nil {
			update(t, hs[st.on], id, fmt.Sprintf("step %d (%s)", i+1, st.what), st.do)
		}
		clock.Advance(st.advance)
		for r, h := range hs {
			c := get(t, h, id).View().Clock
			if c.Now != st.want || c.Playing != st.playing {
				t.Errorf("step %d (%s): replica %d reads %d ms, playing %v; want %d ms, playing %v",
					i+1, st.what, r+1, c.Now, c.Playing, st.want, st.playing)
			}
		}
	}
	fired := get(t, hs[1], id).Scenario().Requests
	if len(fired) != 1 || fired[0].At != 12_000 {
		t.Errorf("replica 2 sees requests %+v, want one fired at 12000 ms (the clock as replica 1 read it)", fired)
	}
}

func forgottenClosesWatchers(t *testing.T, newStore NewSessions) {
	clock := NewClock()
	st := one(t, newStore, Bounds{Now: clock.Now, MaxSessions: 4, PerClient: 1, Idle: time.Hour})
	first := open(t, st, "A")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := st.Watch(ctx, first.ID())
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	open(t, st, "A") // A's cap is 1: the first, watched or not, goes
	closed(t, ch, "the watcher of a forgotten session")
}

func idleSessionsEnd(t *testing.T, newStore NewSessions) {
	clock := NewClock()
	const idle = 10 * time.Minute
	st := one(t, newStore, Bounds{Now: clock.Now, MaxSessions: 4, PerClient: 4, Idle: idle})
	got, touched, left := open(t, st, "A"), open(t, st, "A"), open(t, st, "A")
	for i := range 2 {
		clock.Advance(idle - time.Minute)
		if err := st.Touch(context.Background(), touched.ID()); err != nil {
			t.Fatalf("step %d: Touch: %v", i+1, err)
		}
		if !live(t, st, got.ID()) {
			t.Errorf("step %d: a session used every %v is not found", i+1, idle-time.Minute)
		}
	}
	if live(t, st, left.ID()) {
		t.Errorf("a session left for %v is still found", 2*(idle-time.Minute))
	}
	clock.Advance(idle + time.Second)
	if live(t, st, got.ID()) || live(t, st, touched.ID()) {
		t.Errorf("sessions used and touched, then idle for %v, are still found", idle+time.Second)
	}
	fresh := open(t, st, "A")
	if !live(t, st, fresh.ID()) {
		t.Error("a session opened after the others idled out is not found")
	}
}

func watchedSessionsStay(t *testing.T, newStore NewSessions) {
	clock := NewClock()
	const idle = 10 * time.Minute
	st := one(t, newStore, Bounds{Now: clock.Now, MaxSessions: 4, PerClient: 4, Idle: idle})
	s := open(t, st, "A")
	_, stop := watch(t, st, s.ID())
	clock.Advance(3 * idle)
	if !live(t, st, s.ID()) {
		t.Fatalf("a watched session idle for %v is not found", 3*idle)
	}
	stop()
	clock.Advance(idle + time.Second)
	if live(t, st, s.ID()) {
		t.Errorf("a session unwatched and idle for %v is still found", idle+time.Second)
	}
}

func perClientCap(t *testing.T, newStore NewSessions) {
	clock := NewClock()
	st := one(t, newStore, Bounds{Now: clock.Now, MaxSessions: 10, PerClient: 3, Idle: time.Hour})
	names := map[string]string{}
	named := func(name string, s *play.Session) *play.Session { names[s.ID()] = name; return s }
	b1 := named("B1", open(t, st, "B"))
	clock.Advance(time.Second)
	a1 := named("A1", open(t, st, "A"))
	clock.Advance(time.Second)
	a2 := named("A2", open(t, st, "A"))
	_, stop := watch(t, st, a2.ID()) // watched or not, a client's own cap applies
	defer stop()
	clock.Advance(time.Second)
	a3 := named("A3", open(t, st, "A"))
	clock.Advance(time.Second)
	if err := st.Touch(context.Background(), a1.ID()); err != nil { // A2 is now A's least recently used
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	a4 := named("A4", open(t, st, "A"))
	expect(t, st, map[string]bool{b1.ID(): true, a1.ID(): true, a2.ID(): false, a3.ID(): true, a4.ID(): true}, names)
}

func fullForgetsAbandoned(t *testing.T, newStore NewSessions) {
	clock := NewClock()
	st := one(t, newStore, Bounds{Now: clock.Now, MaxSessions: 3, PerClient: 3, Idle: time.Hour})
	names := map[string]string{}
	named := func(name string, s *play.Session) *play.Session { names[s.ID()] = name; return s }
	a := named("A", open(t, st, "A"))
	_, stop := watch(t, st, a.ID())
	defer stop()
	clock.Advance(time.Second)
	b := named("B", open(t, st, "B"))
	clock.Advance(time.Second)
	c := named("C", open(t, st, "C"))
	clock.Advance(play.MinIdleForEviction / 2)
	// Everyone is recent: D takes from the largest client, and all hold
	// one, as D would.
	if _, err := st.NewFor(context.Background(), "D", scenario.Scenario{}); !errors.Is(err, play.ErrFull) {
		t.Fatalf("a full store of recent sessions, one per client: NewFor = %v, want play.ErrFull", err)
	}
	clock.Advance(play.MinIdleForEviction)
	// B and C are now abandoned; B, the least recently used, makes room.
	d := named("D", open(t, st, "D"))
	expect(t, st, map[string]bool{a.ID(): true, b.ID(): false, c.ID(): true, d.ID(): true}, names)
}

func fullTakesFromLargest(t *testing.T, newStore NewSessions) {
	clock := NewClock()
	st := one(t, newStore, Bounds{Now: clock.Now, MaxSessions: 6, PerClient: 6, Idle: time.Hour})
	var ids []string
	names := map[string]string{}
	for i, client := range []string{"big", "big", "big", "big", "small", "small"} {
		s := open(t, st, client)
		ids = append(ids, s.ID())
		names[s.ID()] = fmt.Sprintf("%s #%d", client, i+1)
		clock.Advance(time.Second)
	}
	// Each newcomer takes the least recently used session of the client
	// holding the most, until all hold one.
	for i, client := range []string{"new1", "new2", "new3", "new4"} {
		s, err := st.NewFor(context.Background(), client, scenario.Scenario{})
		if err != nil {
			t.Fatalf("step %d: NewFor(%q) = %v, want a session taken from the largest client", i+1, client, err)
		}
		ids = append(ids, s.ID())
		names[s.ID()] = client
		clock.Advance(time.Second)
	}
	if _, err := st.NewFor(context.Background(), "new5", scenario.Scenario{}); !errors.Is(err, play.ErrFull) {
		t.Errorf("six clients holding one each: NewFor(new5) = %v, want play.ErrFull", err)
	}
	want := map[string]bool{}
	for i, id := range ids {
		// big #4, small #6 and the four newcomers remain.
		want[id] = i == 3 || i >= 5
	}
	expect(t, st, want, names)
}

func floodLeavesRoom(t *testing.T, newStore NewSessions) {
	clock := NewClock()
	const maxSessions, perClient = 20, 8
	st := one(t, newStore, Bounds{Now: clock.Now, MaxSessions: maxSessions, PerClient: perClient, Idle: time.Hour})
	var floods, others []string
	for i := range 3 * maxSessions {
		s := open(t, st, "flood")
		_, stop := watch(t, st, s.ID()) // every one watched and just used
		defer stop()
		floods = append(floods, s.ID())
		if i%10 == 9 {
			b := open(t, st, "other")
			_, stop := watch(t, st, b.ID())
			defer stop()
			others = append(others, b.ID())
		}
		clock.Advance(time.Second)
	}
	n := 0
	for _, id := range floods {
		if live(t, st, id) {
			n++
		}
	}
	if n > perClient {
		t.Errorf("the flooding client holds %d sessions, want at most %d", n, perClient)
	}
	for i, id := range others {
		if !live(t, st, id) {
			t.Errorf("the other client's session %d was forgotten during the flood", i+1)
		}
	}
}

func concurrentWithinBounds(t *testing.T, newStore NewSessions) {
	clock := NewClock()
	const maxSessions, perClient, clients, each = 12, 5, 4, 25
	hs := replicas(t, newStore, Bounds{Now: clock.Now, MaxSessions: maxSessions, PerClient: perClient, Idle: time.Hour}, 2)
	st := hs[0]
	ids := make([][]string, clients)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := range each {
				st := hs[c%len(hs)] // the bounds hold across replicas
				s, err := st.NewFor(context.Background(), fmt.Sprint("client", c), scenario.Scenario{})
				if errors.Is(err, play.ErrFull) {
					continue
				}
				if err != nil {
					t.Errorf("client %d, session %d: %v", c, i+1, err)
					return
				}
				ids[c] = append(ids[c], s.ID())
				// Forgotten meanwhile by another client's NewFor is fine.
				_, _ = st.Update(context.Background(), s.ID(), func(s *play.Session) error { return s.Fire(1) })
				_ = st.Touch(context.Background(), s.ID())
				clock.Advance(time.Second)
			}
		})
	}
	wg.Wait()
	total := 0
	for c := range clients {
		n := 0
		for _, id := range ids[c] {
			if live(t, st, id) {
				n++
			}
		}
		if n > perClient {
			t.Errorf("client %d holds %d sessions, want at most %d", c, n, perClient)
		}
		total += n
	}
	if total > maxSessions {
		t.Errorf("%d sessions are live, want at most %d", total, maxSessions)
	}
}

// concurrentFloodIsFair floods the store from one client on both replicas
// at once while newcomers open a session each, also on both: the flood
// stays within its share, the store within its bound, and no newcomer is
// refused or loses its session while the flood holds more than it would.
// The clock stays within a second, so no session is abandoned (idle for
// play.MinIdleForEviction): the only room there is comes from the rules
// under test.
func concurrentFloodIsFair(t *testing.T, newStore NewSessions) {
	clock := NewClock()
	// Eight places: the flood's five and six newcomers cannot all fit, so
	// the last newcomers are admitted only by taking from the flood.
	const maxSessions, perClient, floodEach, newcomers = 8, 5, 20, 6
	hs := replicas(t, newStore, Bounds{Now: clock.Now, MaxSessions: maxSessions, PerClient: perClient, Idle: time.Hour}, 2)
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		floods []string
		theirs = make([]string, newcomers)
	)
	for r := range hs {
		wg.Go(func() {
			for i := range floodEach {
				s, err := hs[r].NewFor(context.Background(), "flood", scenario.Scenario{})
				if errors.Is(err, play.ErrFull) {
					continue // a full store refuses the client holding the most
				}
				if err != nil {
					t.Errorf("flood on replica %d, session %d: %v", r+1, i+1, err)
					return
				}
				mu.Lock()
				floods = append(floods, s.ID())
				mu.Unlock()
				clock.Advance(time.Millisecond)
			}
		})
	}
	for c := range newcomers {
		wg.Go(func() {
			s, err := hs[c%len(hs)].NewFor(context.Background(), fmt.Sprint("newcomer", c), scenario.Scenario{})
			if err != nil {
				t.Errorf("newcomer %d on replica %d: NewFor = %v, want a session (the flood holds more)", c+1, c%len(hs)+1, err)
				return
			}
			theirs[c] = s.ID()
			clock.Advance(time.Millisecond)
		})
	}
	wg.Wait()
	flooded := 0
	for _, id := range floods {
		if live(t, hs[1], id) {
			flooded++
		}
	}
	if flooded > perClient {
		t.Errorf("the flood holds %d sessions, want at most %d", flooded, perClient)
	}
	total := flooded
	for c, id := range theirs {
		if id == "" {
			continue
		}
		if !live(t, hs[0], id) {
			t.Errorf("newcomer %d's session was forgotten during the flood", c+1)
			continue
		}
		total++
	}
	if total > maxSessions {
		t.Errorf("%d sessions are live, want at most %d", total, maxSessions)
	}
}

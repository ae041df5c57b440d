// Package storetest holds contract tests for stores: behaviour that every
// implementation of an interface must show, written against the interface
// alone, so that the in-memory store and a later one (NATS) pass the same
// tests. RunSessions checks a play.Sessions.
package storetest

import (
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

// NewSessions makes an empty store with bounds b. A store spanning
// replicas may return a front that spreads the calls over several of them
// sharing one backend: the tests then check that handles from different
// replicas see each other's changes.
type NewSessions func(t *testing.T, b Bounds) play.Sessions

// Clock is a test clock that only moves when told, safe for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock at a fixed instant.
func NewClock() *Clock { return &Clock{now: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)} }

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

// RunSessions runs the play.Sessions contract (see play.Sessions) against
// stores made by newStore.
func RunSessions(t *testing.T, newStore NewSessions) {
	t.Run("opens sessions and finds them by id", func(t *testing.T) { opensAndFinds(t, newStore) })
	t.Run("an unknown id is not found", func(t *testing.T) { unknownID(t, newStore) })
	t.Run("changes reach every handle and its watchers", func(t *testing.T) { changesReachEveryHandle(t, newStore) })
	t.Run("an idle session ends, a used one lives", func(t *testing.T) { idleSessionsEnd(t, newStore) })
	t.Run("a watched session never idles out", func(t *testing.T) { watchedSessionsStay(t, newStore) })
	t.Run("a client at its cap loses its least recently used", func(t *testing.T) { perClientCap(t, newStore) })
	t.Run("a full store forgets an abandoned session", func(t *testing.T) { fullForgetsAbandoned(t, newStore) })
	t.Run("a full busy store takes from the largest client", func(t *testing.T) { fullTakesFromLargest(t, newStore) })
	t.Run("a flood from one client leaves room for others", func(t *testing.T) { floodLeavesRoom(t, newStore) })
	t.Run("concurrent use stays within the bounds", func(t *testing.T) { concurrentWithinBounds(t, newStore) })
}

// open opens a session for client, failing the test if it cannot.
func open(t *testing.T, st play.Sessions, client string) *play.Session {
	t.Helper()
	s, err := st.NewFor(client, scenario.Scenario{})
	if err != nil {
		t.Fatalf("NewFor(%q): %v", client, err)
	}
	return s
}

// live reports whether id is found; finding it marks it used, so tests ask
// only when that no longer matters.
func live(t *testing.T, st play.Sessions, id string) bool {
	t.Helper()
	_, err := st.Get(id)
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
	clock := NewClock()
	st := newStore(t, Bounds{Now: clock.Now, MaxSessions: 60, PerClient: 60, Idle: time.Hour})
	s := open(t, st, "A")
	v := s.View()
	def := play.DefaultScenario()
	if v.Scenario.Limit != def.Limit || v.Scenario.WindowMs != def.WindowMs || !slices.Equal(v.Scenario.Policies, def.Policies) || len(v.Scenario.Requests) != 0 {
		t.Errorf("NewFor with an empty scenario holds %+v, want the default scenario", v.Scenario)
	}
	sc := scenario.Scenario{Limit: 3, WindowMs: 10_000, Policies: []scenario.PolicySpec{{Name: "token-bucket"}},
		Requests: []scenario.Request{{At: 100, Key: "bob", Cost: 2, Count: 1}, {At: 500, Cost: 1, Count: 2}}}
	given, err := st.NewFor("A", sc)
	if err != nil {
		t.Fatalf("NewFor with a scenario: %v", err)
	}
	got, err := st.Get(given.ID())
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
	st := newStore(t, Bounds{Now: NewClock().Now, MaxSessions: 4, PerClient: 4, Idle: time.Hour})
	s := open(t, st, "A")
	for _, id := range []string{"", "no-such-session", s.ID() + "x"} {
		if _, err := st.Get(id); !errors.Is(err, play.ErrNotFound) {
			t.Errorf("Get(%q) = %v, want play.ErrNotFound", id, err)
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

func changesReachEveryHandle(t *testing.T, newStore NewSessions) {
	clock := NewClock()
	st := newStore(t, Bounds{Now: clock.Now, MaxSessions: 4, PerClient: 4, Idle: time.Hour})
	opened := open(t, st, "A")
	watcher, err := st.Get(opened.ID())
	if err != nil {
		t.Fatal(err)
	}
	changes, stop := watcher.Subscribe()
	defer stop()
	last := watcher.View().Version
	steps := []struct {
		what string
		do   func(s *play.Session) error
	}{
		{"fire 2", func(s *play.Session) error { return s.Fire(2) }},
		{"step 1 s", func(s *play.Session) error { return s.Step(1000) }},
		{"fire 1", func(s *play.Session) error { return s.Fire(1) }},
		{"select request 2", func(s *play.Session) error { return s.Select(1) }},
	}
	for i, st2 := range steps {
		actor, err := st.Get(opened.ID())
		if err != nil {
			t.Fatalf("step %d: Get: %v", i+1, err)
		}
		if err := st2.do(actor); err != nil {
			t.Fatalf("step %d (%s): %v", i+1, st2.what, err)
		}
		wait(t, changes, fmt.Sprintf("step %d (%s)", i+1, st2.what))
		want := actor.View()
		// The watcher's handle may hear of the change before it shows
		// it (a replica applies it after notifying): give it as long.
		deadline := time.Now().Add(notified)
		got := watcher.View()
		for got.Version != want.Version && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
			got = watcher.View()
		}
		if got.Version <= last {
			t.Errorf("step %d (%s): version = %d, want more than %d", i+1, st2.what, got.Version, last)
		}
		if got.Version != want.Version || got.Total != want.Total || got.Clock.Now != want.Clock.Now {
			t.Errorf("step %d (%s): the watcher shows version %d, %d requests at %d ms; the actor version %d, %d requests at %d ms",
				i+1, st2.what, got.Version, got.Total, got.Clock.Now, want.Version, want.Total, want.Clock.Now)
		}
		last = got.Version
	}
	if sel := watcher.View().Selected; sel == nil || sel.Index != 1 {
		t.Errorf("the watcher's selection = %+v, want request 2", sel)
	}
}

func idleSessionsEnd(t *testing.T, newStore NewSessions) {
	clock := NewClock()
	const idle = 10 * time.Minute
	st := newStore(t, Bounds{Now: clock.Now, MaxSessions: 4, PerClient: 4, Idle: idle})
	got, touched, left := open(t, st, "A"), open(t, st, "A"), open(t, st, "A")
	for i := range 2 {
		clock.Advance(idle - time.Minute)
		st.Touch(touched)
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
	st := newStore(t, Bounds{Now: clock.Now, MaxSessions: 4, PerClient: 4, Idle: idle})
	s := open(t, st, "A")
	_, stop := s.Subscribe()
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
	st := newStore(t, Bounds{Now: clock.Now, MaxSessions: 10, PerClient: 3, Idle: time.Hour})
	names := map[string]string{}
	named := func(name string, s *play.Session) *play.Session { names[s.ID()] = name; return s }
	b1 := named("B1", open(t, st, "B"))
	clock.Advance(time.Second)
	a1 := named("A1", open(t, st, "A"))
	clock.Advance(time.Second)
	a2 := named("A2", open(t, st, "A"))
	_, stop := a2.Subscribe() // watched or not, a client's own cap applies
	defer stop()
	clock.Advance(time.Second)
	a3 := named("A3", open(t, st, "A"))
	clock.Advance(time.Second)
	st.Touch(a1) // A2 is now A's least recently used
	clock.Advance(time.Second)
	a4 := named("A4", open(t, st, "A"))
	expect(t, st, map[string]bool{b1.ID(): true, a1.ID(): true, a2.ID(): false, a3.ID(): true, a4.ID(): true}, names)
}

func fullForgetsAbandoned(t *testing.T, newStore NewSessions) {
	clock := NewClock()
	st := newStore(t, Bounds{Now: clock.Now, MaxSessions: 3, PerClient: 3, Idle: time.Hour})
	names := map[string]string{}
	named := func(name string, s *play.Session) *play.Session { names[s.ID()] = name; return s }
	a := named("A", open(t, st, "A"))
	_, stop := a.Subscribe()
	defer stop()
	clock.Advance(time.Second)
	b := named("B", open(t, st, "B"))
	clock.Advance(time.Second)
	c := named("C", open(t, st, "C"))
	clock.Advance(play.MinIdleForEviction / 2)
	// Everyone is recent: D takes from the largest client, and all hold
	// one, as D would.
	if _, err := st.NewFor("D", scenario.Scenario{}); !errors.Is(err, play.ErrFull) {
		t.Fatalf("a full store of recent sessions, one per client: NewFor = %v, want play.ErrFull", err)
	}
	clock.Advance(play.MinIdleForEviction)
	// B and C are now abandoned; B, the least recently used, makes room.
	d := named("D", open(t, st, "D"))
	expect(t, st, map[string]bool{a.ID(): true, b.ID(): false, c.ID(): true, d.ID(): true}, names)
}

func fullTakesFromLargest(t *testing.T, newStore NewSessions) {
	clock := NewClock()
	st := newStore(t, Bounds{Now: clock.Now, MaxSessions: 6, PerClient: 6, Idle: time.Hour})
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
		s, err := st.NewFor(client, scenario.Scenario{})
		if err != nil {
			t.Fatalf("step %d: NewFor(%q) = %v, want a session taken from the largest client", i+1, client, err)
		}
		ids = append(ids, s.ID())
		names[s.ID()] = client
		clock.Advance(time.Second)
	}
	if _, err := st.NewFor("new5", scenario.Scenario{}); !errors.Is(err, play.ErrFull) {
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
	st := newStore(t, Bounds{Now: clock.Now, MaxSessions: maxSessions, PerClient: perClient, Idle: time.Hour})
	var floods, others []string
	for i := range 3 * maxSessions {
		s := open(t, st, "flood")
		_, stop := s.Subscribe() // every one watched and just used
		defer stop()
		floods = append(floods, s.ID())
		if i%10 == 9 {
			b := open(t, st, "other")
			_, stop := b.Subscribe()
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
	st := newStore(t, Bounds{Now: clock.Now, MaxSessions: maxSessions, PerClient: perClient, Idle: time.Hour})
	ids := make([][]string, clients)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := range each {
				s, err := st.NewFor(fmt.Sprint("client", c), scenario.Scenario{})
				if errors.Is(err, play.ErrFull) {
					continue
				}
				if err != nil {
					t.Errorf("client %d, session %d: %v", c, i+1, err)
					return
				}
				ids[c] = append(ids[c], s.ID())
				if got, err := st.Get(s.ID()); err == nil {
					_ = got.Fire(1)
					st.Touch(got)
				}
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

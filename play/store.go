package play

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/windowlab/playground/scenario"
)

// Bounds of a Store.
const (
	// MaxSessions is how many playgrounds may be open at once. Each holds
	// at most MaxRequests requests, so the store's memory stays in the tens
	// of megabytes, plus at most MaxReplayCacheBytes of kept replay for each
	// watched session (250 MB if all 500 were watched and full).
	MaxSessions = 500
	// IdleTimeout is how long a session lives without an action or an
	// open stream.
	IdleTimeout = 30 * time.Minute
	// MaxSessionsPerClient is how many sessions one client (one network
	// address, see NewFor) may hold at once; opening one more forgets its
	// own least recently used session, watched or not. A workshop's
	// attendees often share one public address, so this is sized for a
	// class of about a hundred with a spare tab each, while a flood from
	// one address still leaves 350 sessions for everyone else. Followers of
	// a workshop room (to come) count against the room's own bound, not
	// their address's.
	MaxSessionsPerClient = 150
)

// ErrFull is returned by Store.NewFor when MaxSessions are live, every one
// of them is watched or was used in the last MinIdleForEviction, and no
// client holds more than the asking one would.
var ErrFull = errors.New("play: the playground is full: too many open sessions; try again in a few minutes")

// ErrNotFound is returned for an id the store does not hold (never issued,
// or evicted after IdleTimeout).
var ErrNotFound = errors.New("play: no such session (it may have been closed after being idle)")

// Sessions is a store of playground sessions, the shape room.Store has: a
// session is a value (see Session); the store hands out copies and keeps a
// change only when it is made inside Update. *Store, in memory, implements
// it; a store kept elsewhere (a NATS JetStream key-value bucket, so that
// sessions survive restarts and span replicas) must honour the same
// contract, which internal/storetest checks:
//
//   - NewFor opens a session for client holding sc (the default scenario
//     when sc is empty), with an id of at least 128 random bits, within the
//     bounds of the package doc: at most MaxSessions live; a client at
//     MaxSessionsPerClient loses its own least recently used session,
//     watched or not; a full store forgets the least recently used session
//     that nobody watches and that has been idle for MinIdleForEviction,
//     or else the least recently used one of the client holding the most
//     when that client holds more than the asking one would, or else
//     refuses with ErrFull and changes nothing.
//   - Get returns a copy of the session with id, its clock read at the
//     store's time, and marks it used; ErrNotFound for an id never issued
//     or forgotten. A session is forgotten once idle for IdleTimeout with
//     nobody watching it, never while someone does.
//   - Update runs fn on a copy of the session (its clock read at the
//     store's time) and keeps the copy, its version one more, only if fn
//     returns nil; it returns a copy of what it kept, or fn's error with
//     nothing changed. fn may run more than once (a key-value store runs it
//     again when another writer changed the session first, checking the
//     revision it read), so it must depend only on the session it is
//     given. Concurrent Updates of one id never lose a change.
//   - Watch returns a channel that receives a value after each kept change
//     (at most one pending: a slow watcher learns once that there is
//     something new and reads the newest with Get), closed when the
//     session is forgotten or ctx ends. A watched session counts as
//     watched for the bounds until then.
//   - Touch marks a session used, as Get does, without reading it.
//
// The clock is data (see Clock): no watcher ticks it, and every replica
// reads a playing clock by computing, so any number of readers agree.
//
// For a key-value store: keep each session's Saved (Opened makes a new
// session; Restore rebuilds one and At reads its clock at the store's time;
// Session.ShareDerived keeps this process's replay across versions) and map
// Update onto a revision-checked write of the copy Kept marks, retried on a
// mismatch. Idle expiry maps onto a per-key TTL renewed by Touch; each open
// stream calls Touch ten times a second, so write lastUsed only once it is a
// few seconds old. Whether a stream watches need not be shared between
// replicas: the watching replica keeps lastUsed within those few seconds,
// so no replica finds the session idle for MinIdleForEviction, let alone
// IdleTimeout. Saved is at most MaxSavedBytes of JSON, over NATS's default
// 1 MB message size: compress it (5,000 requests fired as patterns make some
// 170 KB of JSON, 21 KB deflated) or refuse it by the bounds. The control
// token's hash is in Saved, the token never.
type Sessions interface {
	NewFor(ctx context.Context, client string, sc scenario.Scenario) (*Session, error)
	Get(ctx context.Context, id string) (*Session, error)
	Update(ctx context.Context, id string, fn func(*Session) error) (*Session, error)
	Watch(ctx context.Context, id string) (<-chan struct{}, error)
	Touch(ctx context.Context, id string) error
}

var _ Sessions = (*Store)(nil)

// Store is the in-memory Sessions. Ids are 128 random bits, so a session is
// reachable only by whoever holds its id.
//
// Fairness: each session remembers the client that opened it. A client at
// its cap makes room from its own sessions, and a full store takes room from
// the client holding the most, so no single address can lock others out.
//
// A Store is one handle on its sessions; Replica makes another on the same
// ones, with a wall clock and derived replays of its own, as a second server
// sharing a backend would hold.
type Store struct {
	now func() time.Time
	*memSessions
	// derived is what this handle's process derived from each session
	// (see derived), guarded by memSessions.mu.
	derived map[string]*derived
}

// memSessions is what every handle of a Store shares.
type memSessions struct {
	max       int
	perClient int
	ttl       time.Duration

	keep func(id string) bool // see HoldWith; nil holds none

	mu       sync.Mutex
	sessions map[string]*entry
	held     map[string]int // client → sessions it holds (see Session.owner)
	handles  []*Store
}

// entry is one stored session: the master copy, which no one outside the
// store's lock holds, and its watchers.
type entry struct {
	s        *Session
	watchers map[chan struct{}]struct{}
	// unwatched are Unwatched's channels, closed when the last watcher
	// leaves or the session is forgotten.
	unwatched []chan struct{}
}

// NewStore returns a store with the documented bounds, reading time from
// now (time.Now in production; tests inject their own).
func NewStore(now func() time.Time) *Store {
	return NewStoreWithBounds(now, MaxSessions, IdleTimeout).WithPerClient(MaxSessionsPerClient)
}

// NewStoreWithBounds is NewStore with other bounds, for tests; a client may
// hold the whole store unless WithPerClient says otherwise.
func NewStoreWithBounds(now func() time.Time, maxSessions int, idle time.Duration) *Store {
	if maxSessions < 1 || idle <= 0 {
		panic("play: NewStoreWithBounds expects maxSessions > 0 and idle > 0")
	}
	m := &memSessions{max: maxSessions, perClient: maxSessions, ttl: idle,
		sessions: map[string]*entry{}, held: map[string]int{}}
	return m.handle(now)
}

func (m *memSessions) handle(now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	st := &Store{now: now, memSessions: m, derived: map[string]*derived{}}
	m.mu.Lock()
	m.handles = append(m.handles, st)
	m.mu.Unlock()
	return st
}

// Replica returns another handle on st's sessions reading time from now,
// with replays of its own: what a second server sharing st's backend would
// hold. The handles see each other's changes and bounds at once.
func (st *Store) Replica(now func() time.Time) *Store { return st.handle(now) }

// WithPerClient sets how many sessions one client may hold (tests use small
// stores) and returns st.
func (st *Store) WithPerClient(n int) *Store {
	if n < 1 {
		panic("play: WithPerClient expects n > 0")
	}
	st.perClient = n
	return st
}

// HoldWith makes the store ask held before it forgets a session, for any
// reason (idle, a full store, its client's share): a session held is kept.
// Workshop rooms hold the sessions they show, so a flood of new sessions
// cannot end a room whose screens are closed for a while. held is called
// with the store's lock held and must not call the store. Call HoldWith
// before the store is used.
func (st *Store) HoldWith(held func(id string) bool) { st.keep = held }

func (m *memSessions) isHeld(id string) bool { return m.keep != nil && m.keep(id) }

// New opens a session holding sc for an unnamed client: NewFor("", sc).
func (st *Store) New(sc scenario.Scenario) (*Session, error) {
	return st.NewFor(context.Background(), "", sc)
}

// NewFor opens a session holding sc (the default scenario when sc has no
// policies and no settings) for client, the network address of whoever asks.
// When client already holds its share, its own least recently used session
// is forgotten; when the store is full, an unwatched idle session is, or
// else the least recently used one of the client holding the most.
func (st *Store) NewFor(_ context.Context, client string, sc scenario.Scenario) (*Session, error) {
	id, err := newID()
	if err != nil {
		return nil, err
	}
	now := st.now()
	s, err := Opened(id, client, sc, now)
	if err != nil {
		return nil, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.evictLocked(now)
	if st.held[client] >= st.perClient && st.perClient < st.max {
		st.removeLocked(st.leastRecentLocked(client))
	}
	if len(st.sessions) >= st.max && !st.evictOldestUnwatchedLocked(now) && !st.evictFromLargestLocked(client) {
		return nil, ErrFull
	}
	st.sessions[id] = &entry{s: s, watchers: map[chan struct{}]struct{}{}}
	st.held[client]++
	return st.copyLocked(s, now), nil
}

// Opened returns a new session for a store to keep: sc (the default
// scenario when sc has no policies and no settings) under id, opened by
// client, used and its clock read at now.
func Opened(id, client string, sc scenario.Scenario, now time.Time) (*Session, error) {
	if sc.Limit == 0 && sc.WindowMs == 0 && len(sc.Policies) == 0 && len(sc.Requests) == 0 {
		sc = DefaultScenario()
	}
	s, err := NewSession(id, sc)
	if err != nil {
		return nil, err
	}
	s.owner, s.lastUsed, s.at = client, now, now
	s.clock.Wall = now
	return s, nil
}

// Kept makes s, a copy of prev that an Update's function changed, what a
// store keeps at now: one version past prev's, used at now. It refuses a
// copy whose id or owner is not prev's.
func (s *Session) Kept(prev *Session, now time.Time) error {
	if s.id != prev.id || s.owner != prev.owner {
		return errors.New("play: an update may not change a session's id or owner")
	}
	s.version, s.lastUsed = prev.version+1, now
	return nil
}

// Used marks s used at now, as a store's Get and Touch do.
func (s *Session) Used(now time.Time) { s.lastUsed = now }

// copyLocked is the copy of master this handle gives out, read at now.
func (st *Store) copyLocked(master *Session, now time.Time) *Session {
	c := master.At(now)
	d := st.derived[master.id]
	if d == nil {
		d = &derived{}
		st.derived[master.id] = d
	}
	c.derived = d
	return c
}

// Held reports how many live sessions client holds.
func (st *Store) Held(client string) int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.held[client]
}

// removeLocked forgets a session: its watchers' channels close, and every
// handle lets its replay go.
func (m *memSessions) removeLocked(id string) {
	e, ok := m.sessions[id]
	if !ok {
		return
	}
	delete(m.sessions, id)
	for w := range e.watchers {
		close(w)
	}
	e.watchers = nil // closed: a watcher's context ending finds it gone
	e.tellUnwatched()
	for _, h := range m.handles {
		delete(h.derived, id)
	}
	client := e.s.owner
	if m.held[client]--; m.held[client] <= 0 {
		delete(m.held, client)
	}
}

// leastRecentLocked returns the id of client's least recently used session.
func (m *memSessions) leastRecentLocked(client string) string {
	oldestID := ""
	var oldest time.Time
	for id, e := range m.sessions {
		if e.s.owner != client || m.isHeld(id) {
			continue
		}
		if used := e.s.lastUsed; oldestID == "" || used.Before(oldest) {
			oldestID, oldest = id, used
		}
	}
	return oldestID
}

// evictFromLargestLocked makes room in a full store, all of whose sessions
// are in use, by forgetting the least recently used session of the client
// holding the most, when that client holds more than newcomer would after
// being served: a flood pays for itself, a fair share is kept.
func (m *memSessions) evictFromLargestLocked(newcomer string) bool {
	largest, most := "", 0
	for client, n := range m.held {
		if n > most {
			largest, most = client, n
		}
	}
	if most <= m.held[newcomer]+1 {
		return false
	}
	id := m.leastRecentLocked(largest)
	if id == "" { // every one of its sessions is held
		return false
	}
	m.removeLocked(id)
	return true
}

// liveLocked returns the entry of id, forgetting it if it has idled out.
func (st *Store) liveLocked(id string, now time.Time) (*entry, error) {
	e, ok := st.sessions[id]
	if !ok {
		return nil, ErrNotFound
	}
	if st.expired(e, now) && !st.isHeld(id) {
		st.removeLocked(id)
		return nil, ErrNotFound
	}
	return e, nil
}

// Get returns a copy of the session with id and marks it used.
func (st *Store) Get(_ context.Context, id string) (*Session, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	now := st.now()
	e, err := st.liveLocked(id, now)
	if err != nil {
		return nil, err
	}
	e.s.Used(now)
	return st.copyLocked(e.s, now), nil
}

// Update implements Sessions. It holds the store's lock while fn runs: an
// action is quick (no replay), and a session changes a few times a second.
func (st *Store) Update(_ context.Context, id string, fn func(*Session) error) (*Session, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	now := st.now()
	e, err := st.liveLocked(id, now)
	if err != nil {
		return nil, err
	}
	// fn works on the master's own list of requests, unclipped, so that
	// firing appends in place instead of copying 5,000 requests: every
	// copy handed out holds a clipped prefix of it, which appending past
	// its end leaves alone, and only one Update runs at a time.
	w := *e.s
	w.sc.Policies = slices.Clone(e.s.sc.Policies)
	w.clients = slices.Clone(e.s.clients)
	w.at = now
	if err := fn(&w); err != nil {
		return nil, err
	}
	if err := w.Kept(e.s, now); err != nil {
		return nil, err
	}
	e.s = &w
	for ch := range e.watchers {
		select {
		case ch <- struct{}{}:
		default: // one change is already pending: the watcher reads the newest
		}
	}
	return st.copyLocked(&w, now), nil
}

// Watch implements Sessions.
func (st *Store) Watch(ctx context.Context, id string) (<-chan struct{}, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	e, err := st.liveLocked(id, st.now())
	if err != nil {
		return nil, err
	}
	ch := make(chan struct{}, 1)
	e.watchers[ch] = struct{}{}
	context.AfterFunc(ctx, func() {
		st.mu.Lock()
		defer st.mu.Unlock()
		if _, ok := e.watchers[ch]; !ok {
			return // forgotten with its session
		}
		delete(e.watchers, ch)
		if len(e.watchers) == 0 {
			// The kept replay only spares a watched session's
			// updates.
			for _, h := range st.handles {
				if d := h.derived[id]; d != nil {
					d.drop() // a View holds d.mu but never waits for st.mu
				}
			}
		}
		close(ch) // last: whoever waits for it finds the replay let go
		if len(e.watchers) == 0 {
			e.tellUnwatched()
		}
	})
	return ch, nil
}

// tellUnwatched closes the Unwatched channels of e, under the store's lock.
func (e *entry) tellUnwatched() {
	for _, ch := range e.unwatched {
		close(ch)
	}
	e.unwatched = nil
}

// Touch marks a session used without reading it: streams call it while
// they are open.
func (st *Store) Touch(_ context.Context, id string) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	now := st.now()
	e, err := st.liveLocked(id, now)
	if err != nil {
		return err
	}
	e.s.Used(now)
	return nil
}

// Watchers reports how many watch the session with id.
func (st *Store) Watchers(id string) int {
	st.mu.Lock()
	defer st.mu.Unlock()
	if e := st.sessions[id]; e != nil {
		return len(e.watchers)
	}
	return 0
}

// Unwatched returns a channel closed once nobody watches the session with
// id (closed already when nobody does, or the store does not hold it). A
// stream lets its watch go in a goroutine of its own after its request
// ends; tests wait on this instead of polling Watchers.
func (st *Store) Unwatched(id string) <-chan struct{} {
	st.mu.Lock()
	defer st.mu.Unlock()
	ch := make(chan struct{})
	if e := st.sessions[id]; e != nil && len(e.watchers) > 0 {
		e.unwatched = append(e.unwatched, ch)
	} else {
		close(ch)
	}
	return ch
}

// Len reports the live sessions, after evicting idle ones.
func (st *Store) Len() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.evictLocked(st.now())
	return len(st.sessions)
}

// Evict forgets every session idle for longer than the timeout. New calls
// it; a server may also call it on a timer.
func (st *Store) Evict() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.evictLocked(st.now())
}

func (m *memSessions) expired(e *entry, now time.Time) bool {
	return now.Sub(e.s.lastUsed) > m.ttl && len(e.watchers) == 0
}

func (m *memSessions) evictLocked(now time.Time) {
	for id, e := range m.sessions {
		if m.expired(e, now) && !m.isHeld(id) {
			m.removeLocked(id)
		}
	}
}

// MinIdleForEviction is how long a session without an open stream must have
// been idle before a full store forgets it to make room for a new one.
const MinIdleForEviction = time.Minute

// evictOldestUnwatchedLocked makes room in a full store by forgetting the
// least recently used session that nobody watches and that has been idle
// for MinIdleForEviction (a page closed or never opened its stream). It
// reports whether it found one.
func (m *memSessions) evictOldestUnwatchedLocked(now time.Time) bool {
	oldestID := ""
	var oldest time.Time
	for id, e := range m.sessions {
		used := e.s.lastUsed
		if len(e.watchers) > 0 || now.Sub(used) < MinIdleForEviction || m.isHeld(id) {
			continue
		}
		if oldestID == "" || used.Before(oldest) {
			oldestID, oldest = id, used
		}
	}
	if oldestID == "" {
		return false
	}
	m.removeLocked(oldestID)
	return true
}

func newID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

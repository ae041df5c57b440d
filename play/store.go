package play

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
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

// Sessions is what the web layer needs of a session store: open a session
// for a client, find one by id, and keep one alive while a stream shows it.
// Everything else (the actions, watching) is on the Session. *Store, in
// memory, implements it; a store kept elsewhere (a NATS key-value bucket,
// to come, so that sessions survive restarts and span replicas) must honour
// the same contract, which internal/storetest checks:
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
//   - Get returns the session with id and marks it used; ErrNotFound for
//     an id never issued or forgotten. A session is forgotten once idle
//     for IdleTimeout with no stream watching it, never while one is.
//   - Touch marks a session used, as Get does.
//   - Every session Get returns for one id shows every change made through
//     any other (its View.Version never goes back and counts every change),
//     and its Subscribe hears of them: a stream on one replica follows the
//     actions posted to another.
//
// What a second implementation would add: it keeps each session's Saved
// (Session.Saved; Restore rebuilds the session) and writes it after every
// change. The Session will need a hook to tell it of changes; the
// in-memory store has no use for one, so none exists yet. Each open stream
// calls Touch ten times a second: a store may write lastUsed only once it
// is a few seconds old. Whether a stream watches then need not be shared
// between replicas: the watching replica keeps lastUsed within those few
// seconds, so no replica finds the session idle for MinIdleForEviction,
// let alone IdleTimeout. Saved is at most MaxSavedBytes of JSON, over
// NATS's default 1 MB message size: compress it (5,000 requests fired as
// patterns make some 170 KB of JSON, 21 KB deflated) or write the scenario
// only when Saved.ScenarioRev changes. The control token's hash is in
// Saved, the token never.
type Sessions interface {
	NewFor(client string, sc scenario.Scenario) (*Session, error)
	Get(id string) (*Session, error)
	Touch(s *Session)
}

var _ Sessions = (*Store)(nil)

// Store is the in-memory Sessions: it holds the live sessions themselves.
// Ids are 128 random bits, so a session is reachable only by whoever holds
// its id.
//
// Fairness: each session remembers the client that opened it. A client at
// its cap makes room from its own sessions, and a full store takes room from
// the client holding the most, so no single address can lock others out.
type Store struct {
	now       func() time.Time
	max       int
	perClient int
	ttl       time.Duration

	keep func(id string) bool // see HoldWith; nil holds none

	mu       sync.Mutex
	sessions map[string]*Session
	held     map[string]int // client → sessions it holds (see Session.owner)
}

// NewStore returns a store with the documented bounds, reading time from
// now (time.Now in production; tests inject their own).
func NewStore(now func() time.Time) *Store {
	return NewStoreWithBounds(now, MaxSessions, IdleTimeout).WithPerClient(MaxSessionsPerClient)
}

// NewStoreWithBounds is NewStore with other bounds, for tests; a client may
// hold the whole store unless WithPerClient says otherwise.
func NewStoreWithBounds(now func() time.Time, maxSessions int, idle time.Duration) *Store {
	if now == nil {
		now = time.Now
	}
	if maxSessions < 1 || idle <= 0 {
		panic("play: NewStoreWithBounds expects maxSessions > 0 and idle > 0")
	}
	return &Store{now: now, max: maxSessions, perClient: maxSessions, ttl: idle,
		sessions: map[string]*Session{}, held: map[string]int{}}
}

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

func (st *Store) isHeld(id string) bool { return st.keep != nil && st.keep(id) }

// New opens a session holding sc for an unnamed client: NewFor("", sc).
func (st *Store) New(sc scenario.Scenario) (*Session, error) { return st.NewFor("", sc) }

// NewFor opens a session holding sc (the default scenario when sc has no
// policies and no settings) for client, the network address of whoever asks.
// When client already holds its share, its own least recently used session
// is forgotten; when the store is full, an unwatched idle session is, or
// else the least recently used one of the client holding the most.
func (st *Store) NewFor(client string, sc scenario.Scenario) (*Session, error) {
	if sc.Limit == 0 && sc.WindowMs == 0 && len(sc.Policies) == 0 && len(sc.Requests) == 0 {
		sc = DefaultScenario()
	}
	id, err := newID()
	if err != nil {
		return nil, err
	}
	s, err := NewSession(id, sc)
	if err != nil {
		return nil, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.evictLocked()
	if st.held[client] >= st.perClient && st.perClient < st.max {
		st.removeLocked(st.leastRecentLocked(client))
	}
	if len(st.sessions) >= st.max && !st.evictOldestUnwatchedLocked() && !st.evictFromLargestLocked(client) {
		return nil, ErrFull
	}
	s.owner = client // before anyone else holds s, so read without its lock
	s.touch(st.now())
	st.sessions[id] = s
	st.held[client]++
	return s, nil
}

// Held reports how many live sessions client holds.
func (st *Store) Held(client string) int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.held[client]
}

func (st *Store) removeLocked(id string) {
	s, ok := st.sessions[id]
	if !ok {
		return
	}
	delete(st.sessions, id)
	client := s.owner
	if st.held[client]--; st.held[client] <= 0 {
		delete(st.held, client)
	}
}

// leastRecentLocked returns the id of client's least recently used session.
func (st *Store) leastRecentLocked(client string) string {
	oldestID := ""
	var oldest time.Time
	for id, s := range st.sessions {
		if s.owner != client || st.isHeld(id) {
			continue
		}
		if used := s.idleSince(); oldestID == "" || used.Before(oldest) {
			oldestID, oldest = id, used
		}
	}
	return oldestID
}

// evictFromLargestLocked makes room in a full store, all of whose sessions
// are in use, by forgetting the least recently used session of the client
// holding the most, when that client holds more than newcomer would after
// being served: a flood pays for itself, a fair share is kept.
func (st *Store) evictFromLargestLocked(newcomer string) bool {
	largest, most := "", 0
	for client, n := range st.held {
		if n > most {
			largest, most = client, n
		}
	}
	if most <= st.held[newcomer]+1 {
		return false
	}
	id := st.leastRecentLocked(largest)
	if id == "" { // every one of its sessions is held
		return false
	}
	st.removeLocked(id)
	return true
}

// Get returns the session with id and marks it used.
func (st *Store) Get(id string) (*Session, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	s, ok := st.sessions[id]
	if !ok {
		return nil, ErrNotFound
	}
	if st.expired(s) && !st.isHeld(id) {
		st.removeLocked(id)
		return nil, ErrNotFound
	}
	s.touch(st.now())
	return s, nil
}

// Touch marks a session used without looking it up again: streams call it
// while they are open, so a watched session never idles out.
func (st *Store) Touch(s *Session) { s.touch(st.now()) }

// Len reports the live sessions, after evicting idle ones.
func (st *Store) Len() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.evictLocked()
	return len(st.sessions)
}

// Evict forgets every session idle for longer than the timeout. New calls
// it; a server may also call it on a timer.
func (st *Store) Evict() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.evictLocked()
}

func (st *Store) expired(s *Session) bool {
	return st.now().Sub(s.idleSince()) > st.ttl && s.Subscribers() == 0
}

func (st *Store) evictLocked() {
	for id, s := range st.sessions {
		if st.expired(s) && !st.isHeld(id) {
			st.removeLocked(id)
		}
	}
}

// MinIdleForEviction is how long a session without an open stream must have
// been idle before a full store forgets it to make room for a new one.
const MinIdleForEviction = time.Minute

// evictOldestUnwatchedLocked makes room in a full store by forgetting the
// least recently used session that no stream watches and that has been idle
// for MinIdleForEviction (a page closed or never opened its stream). It
// reports whether it found one.
func (st *Store) evictOldestUnwatchedLocked() bool {
	oldestID := ""
	var oldest time.Time
	for id, s := range st.sessions {
		used := s.idleSince()
		if s.Subscribers() > 0 || st.now().Sub(used) < MinIdleForEviction || st.isHeld(id) {
			continue
		}
		if oldestID == "" || used.Before(oldest) {
			oldestID, oldest = id, used
		}
	}
	if oldestID == "" {
		return false
	}
	st.removeLocked(oldestID)
	return true
}

func newID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

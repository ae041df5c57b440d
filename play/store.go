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
	// of megabytes.
	MaxSessions = 500
	// IdleTimeout is how long a session lives without an action or an
	// open stream.
	IdleTimeout = 30 * time.Minute
)

// ErrFull is returned by Store.New when MaxSessions are live and every one
// of them is watched or was used in the last MinIdleForEviction.
var ErrFull = errors.New("play: the playground is full: too many open sessions; try again in a few minutes")

// ErrNotFound is returned for an id the store does not hold (never issued,
// or evicted after IdleTimeout).
var ErrNotFound = errors.New("play: no such session (it may have been closed after being idle)")

// Store holds the live sessions. Ids are 128 random bits, so a session is
// reachable only by whoever holds its id.
type Store struct {
	now func() time.Time
	max int
	ttl time.Duration

	mu       sync.Mutex
	sessions map[string]*Session
}

// NewStore returns a store with the documented bounds, reading time from
// now (time.Now in production; tests inject their own).
func NewStore(now func() time.Time) *Store {
	return NewStoreWithBounds(now, MaxSessions, IdleTimeout)
}

// NewStoreWithBounds is NewStore with other bounds, for tests.
func NewStoreWithBounds(now func() time.Time, maxSessions int, idle time.Duration) *Store {
	if now == nil {
		now = time.Now
	}
	if maxSessions < 1 || idle <= 0 {
		panic("play: NewStoreWithBounds expects maxSessions > 0 and idle > 0")
	}
	return &Store{now: now, max: maxSessions, ttl: idle, sessions: map[string]*Session{}}
}

// New opens a session holding sc (the default scenario when sc has no
// policies and no settings).
func (st *Store) New(sc scenario.Scenario) (*Session, error) {
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
	if len(st.sessions) >= st.max && !st.evictOldestUnwatchedLocked() {
		return nil, ErrFull
	}
	s.touch(st.now())
	st.sessions[id] = s
	return s, nil
}

// Get returns the session with id and marks it used.
func (st *Store) Get(id string) (*Session, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	s, ok := st.sessions[id]
	if !ok {
		return nil, ErrNotFound
	}
	if st.expired(s) {
		delete(st.sessions, id)
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
		if st.expired(s) {
			delete(st.sessions, id)
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
		if s.Subscribers() > 0 || st.now().Sub(used) < MinIdleForEviction {
			continue
		}
		if oldestID == "" || used.Before(oldest) {
			oldestID, oldest = id, used
		}
	}
	if oldestID == "" {
		return false
	}
	delete(st.sessions, oldestID)
	return true
}

func newID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

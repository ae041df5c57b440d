package natsstore

import (
	"bytes"
	"cmp"
	"compress/flate"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
)

// SessionsOptions configure a sessions bucket and the bounds a handle
// keeps; zero values mean play's documented bounds.
type SessionsOptions struct {
	Bucket      string // "" means "sessions"
	MaxSessions int    // play.MaxSessions
	PerClient   int    // play.MaxSessionsPerClient
	Idle        time.Duration
	Now         func() time.Time // time.Now
	Memory      bool             // keep the bucket in the server's memory (tests)
}

// Sessions is a play.Sessions in a JetStream key-value bucket. Each
// session is two keys: "s.<hex id>" holds its play.Saved (JSON, deflated
// when large), written only by Update and NewFor; "u.<hex id>" holds who
// opened it and when it was last used, small and written often, so that
// marking a session used never rewrites its requests. The key "index"
// counts the sessions admitted and their owners (see index): NewFor
// decides the bounds on it, reading the usage keys of only the sessions
// it may have to take out.
//
// Watching. A handle knows the streams it serves itself: a session one of
// them watches never idles out on it, and the handle writes the session's
// last use every keepAlive while it is watched, so that every other
// replica sees it in use too (within keepAlive, far inside
// play.MinIdleForEviction). Which replica watches is never shared.
//
// Idling. A session unused for Idle and watched by no one is forgotten by
// the first handle that reads it or opens another session; the bucket's
// maximum age (a day, renewed by keepAlive's rewrite of a watched
// session's data) is only a safety net behind that.
type Sessions struct {
	kv        jetstream.KeyValue
	now       func() time.Time
	keep      func(id string) bool // see HoldWith
	max       int
	perClient int
	idle      time.Duration

	admitting sync.Mutex // see admit

	mu sync.Mutex
	// watched counts this handle's watchers of each session.
	watched map[string]int
	// seen is the last session this handle read of each id: a session
	// decoded afresh continues its replay (play.Session.ShareDerived). It
	// holds only sessions this handle read and forgets them with the
	// session, so it is bounded by the store's sessions.
	seen map[string]*play.Session
	stop chan struct{}
	done chan struct{}
}

var _ play.Sessions = (*Sessions)(nil)

// sessionsMaxAge is the sessions bucket's maximum age (see Sessions).
const sessionsMaxAge = 24 * time.Hour

// keepAlive is how often a handle marks the sessions it watches used.
const keepAlive = 5 * time.Second

// touchEvery is how old a session's last use must be before Get or Touch
// write it again: streams touch ten times a second, and the bounds only
// need the second.
const touchEvery = time.Second

// compressAbove is the size of Saved past which it is deflated: a new
// session is under 1 KB, 5,000 requests some 170 KB of JSON (21 KB
// deflated), and play.MaxSavedBytes is over a NATS message.
const compressAbove = 16 << 10

// OpenSessions opens (creating if needed) the sessions bucket over nc.
// Close stops the handle's keep-alive.
func OpenSessions(ctx context.Context, nc *nats.Conn, opts SessionsOptions) (*Sessions, error) {
	kv, err := openBucket(ctx, nc, opts.Bucket, "sessions", sessionsMaxAge, opts.Memory)
	if err != nil {
		return nil, err
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	s := &Sessions{
		kv: kv, now: now,
		max: cmp.Or(opts.MaxSessions, play.MaxSessions), perClient: cmp.Or(opts.PerClient, play.MaxSessionsPerClient),
		idle:    cmp.Or(opts.Idle, play.IdleTimeout),
		watched: map[string]int{}, seen: map[string]*play.Session{},
		stop: make(chan struct{}), done: make(chan struct{}),
	}
	go s.keepWatchedAlive()
	return s, nil
}

// Close stops the keep-alive; the bucket and the connection stay open.
func (s *Sessions) Close() {
	close(s.stop)
	<-s.done
}

func dataKey(id string) string  { return keyOf("s", id) }
func usageKey(id string) string { return keyOf("u", id) }

// usage is the small key of a session.
type usage struct {
	ID       string    `json:"id"`
	Owner    string    `json:"owner"`
	LastUsed time.Time `json:"lastUsed"`
	rev      uint64    // the revision it was read at; 0 for a new one
}

// encodeSaved is the stored form of a session: a format byte, then the
// JSON of Saved, deflated when large.
func encodeSaved(sv play.Saved) ([]byte, error) {
	js, err := json.Marshal(sv)
	if err != nil {
		return nil, fmt.Errorf("natsstore: encoding a session: %w", err)
	}
	if len(js) <= compressAbove {
		return append([]byte{'j'}, js...), nil
	}
	var b bytes.Buffer
	b.WriteByte('z')
	w, _ := flate.NewWriter(&b, flate.DefaultCompression)
	_, _ = w.Write(js)
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("natsstore: compressing a session: %w", err)
	}
	if b.Len() > MaxValueBytes {
		return nil, ErrTooLarge
	}
	return b.Bytes(), nil
}

func decodeSaved(b []byte) (play.Saved, error) {
	var sv play.Saved
	if len(b) == 0 {
		return sv, errors.New("natsstore: an empty session value")
	}
	js := b[1:]
	switch b[0] {
	case 'j':
	case 'z':
		// play.MaxSavedBytes bounds what a session can encode to; more is
		// not a session this code wrote.
		r := io.LimitReader(flate.NewReader(bytes.NewReader(js)), play.MaxSavedBytes+1)
		var err error
		if js, err = io.ReadAll(r); err != nil {
			return sv, fmt.Errorf("natsstore: decompressing a session: %w", err)
		}
		if len(js) > play.MaxSavedBytes {
			return sv, errors.New("natsstore: a stored session is larger than any session can be")
		}
	default:
		return sv, fmt.Errorf("natsstore: a session value of unknown form %q", b[0])
	}
	if err := json.Unmarshal(js, &sv); err != nil {
		return sv, fmt.Errorf("natsstore: decoding a session: %w", err)
	}
	return sv, nil
}

// newID is 128 random bits, as play's own ids.
func newID() string { return rand.Text()[:22] }

// NewFor implements play.Sessions with the bounds play.Sessions
// documents, counted in the bucket's index (see index): the session's keys
// are written, then its id enters the index in one revision-checked write
// that also takes out the sessions the bounds make room from, so
// concurrent creators on any number of replicas are counted one after the
// other, as the in-memory store's lock counts them. The sessions taken
// out are purged after the index no longer counts them.
func (s *Sessions) NewFor(ctx context.Context, client string, sc scenario.Scenario) (*play.Session, error) {
	id := newID()
	now := s.now()
	sess, err := play.Opened(id, client, sc, now)
	if err != nil {
		return nil, err
	}
	b, err := encodeSaved(sess.Saved())
	if err != nil {
		return nil, err
	}
	if _, err := s.kv.Create(ctx, dataKey(id), b); err != nil {
		return nil, fmt.Errorf("natsstore: writing a session: %w", err)
	}
	if err := s.putUsage(ctx, usage{ID: id, Owner: client, LastUsed: now}); err != nil {
		s.purge(id)
		return nil, err
	}
	victims, err := s.admit(ctx, id, client, now)
	if err != nil {
		s.purge(id)
		return nil, err
	}
	for _, v := range victims {
		s.purge(v)
	}
	s.remember(sess)
	return sess, nil
}

// admit enters id, client's, into the index, making room by play's rules
// (see play.Sessions) and returning the sessions it took out for that,
// or play.ErrFull with the index unchanged. One admission at a time runs
// on a handle, so that a replica's own creators do not race each other
// for the key; replicas race, and the revision check orders them.
func (s *Sessions) admit(ctx context.Context, id, client string, now time.Time) ([]string, error) {
	s.admitting.Lock()
	defer s.admitting.Unlock()
	// Uses read in one admission are kept across its tries: which
	// session was used last may be a moment old, the count never is.
	uses := map[string]*usage{}
	var victims []string
	err := changeIndex(ctx, s.kv, func(ix *index) error {
		victims = victims[:0]
		// usagesOf reads the uses of ids, dropping from the index those
		// whose keys are gone (dead, see index) and those that idled out.
		usagesOf := func(ids []string) ([]usage, error) {
			out := make([]usage, 0, len(ids))
			for _, id := range ids {
				u, ok := uses[id]
				if !ok {
					var err error
					if u, err = s.readUsage(ctx, id); err != nil {
						return nil, err
					}
					uses[id] = u
				}
				switch {
				case u == nil:
					delete(ix.Owners, id)
				case s.expired(*u, now):
					delete(ix.Owners, id)
					victims = append(victims, id)
				default:
					out = append(out, *u)
				}
			}
			return out, nil
		}
		if mine := ownedBy(ix, client); len(mine) >= s.perClient && s.perClient < s.max {
			us, err := usagesOf(mine)
			if err != nil {
				return err
			}
			if len(us) >= s.perClient {
				if v := s.leastRecentUnheld(us); v != "" {
					delete(ix.Owners, v)
					victims = append(victims, v)
				}
			}
		}
		if len(ix.Owners) >= s.max {
			all, err := usagesOf(sortedIDs(ix))
			if err != nil {
				return err
			}
			if len(all) >= s.max {
				v := s.abandoned(all, now)
				if v == "" {
					v = s.fromLargest(all, client)
				}
				if v == "" {
					return play.ErrFull
				}
				delete(ix.Owners, v)
				victims = append(victims, v)
			}
		}
		ix.Owners[id] = client
		return nil
	})
	if err != nil {
		return nil, err
	}
	return victims, nil
}

// ownedBy lists the ids client owns in ix, in id order.
func ownedBy(ix *index, client string) []string {
	var ids []string
	for id, o := range ix.Owners {
		if o == client {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

func sortedIDs(ix *index) []string {
	ids := make([]string, 0, len(ix.Owners))
	for id := range ix.Owners {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// readUsage reads id's usage key; nil when it is gone.
func (s *Sessions) readUsage(ctx context.Context, id string) (*usage, error) {
	e, err := s.kv.Get(ctx, usageKey(id))
	if gone(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("natsstore: reading a session's use: %w", err)
	}
	var u usage
	if err := json.Unmarshal(e.Value(), &u); err != nil {
		return nil, fmt.Errorf("natsstore: decoding a session's use: %w", err)
	}
	u.rev = e.Revision()
	return &u, nil
}

// putUsage writes u: a new key for a new session, else only over the
// revision u was read at, so that marking a session used can never bring
// back one another handle forgot meanwhile (nor undo a later use, which
// is as good as this one).
func (s *Sessions) putUsage(ctx context.Context, u usage) error {
	b, err := json.Marshal(u)
	if err != nil {
		return err
	}
	if u.rev == 0 {
		_, err = s.kv.Create(ctx, usageKey(u.ID), b)
	} else {
		_, err = s.kv.Update(ctx, usageKey(u.ID), b, u.rev)
		if errors.Is(err, jetstream.ErrKeyRevisionMismatch) || errors.Is(err, jetstream.ErrKeyExists) || gone(err) {
			return nil
		}
	}
	if err != nil {
		return fmt.Errorf("natsstore: writing a session's use: %w", err)
	}
	return nil
}

// watchedHere reports whether one of this handle's streams watches id.
func (s *Sessions) watchedHere(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.watched[id] > 0
}

// HoldWith makes the store ask held before it forgets a session, for any
// reason, as play.Store.HoldWith does: workshop rooms hold the sessions
// they show. Call it before the store is used.
func (s *Sessions) HoldWith(held func(id string) bool) { s.keep = held }

func (s *Sessions) held(id string) bool { return s.keep != nil && s.keep(id) }

// leastRecentUnheld is the least recently used of us that no room holds,
// or "". Asking whether a room holds a session reads the rooms, so it asks
// in order of use and stops at the first that is free, not of every one.
func (s *Sessions) leastRecentUnheld(us []usage) string {
	us = slices.Clone(us)
	slices.SortStableFunc(us, func(a, b usage) int { return a.LastUsed.Compare(b.LastUsed) })
	for _, u := range us {
		if !s.held(u.ID) {
			return u.ID
		}
	}
	return ""
}

// expired is play's rule: unused for the idle time, watched by no one and
// held by no room.
func (s *Sessions) expired(u usage, now time.Time) bool {
	return now.Sub(u.LastUsed) > s.idle && !s.watchedHere(u.ID) && !s.held(u.ID)
}

// abandoned is the least recently used session nobody watches or holds
// that has been idle for play.MinIdleForEviction, or "".
func (s *Sessions) abandoned(all []usage, now time.Time) string {
	var idle []usage
	for _, u := range all {
		if now.Sub(u.LastUsed) >= play.MinIdleForEviction && !s.watchedHere(u.ID) {
			idle = append(idle, u)
		}
	}
	return s.leastRecentUnheld(idle)
}

// fromLargest is the least recently used session of the client holding
// the most, when it holds more than newcomer would once served, or "".
func (s *Sessions) fromLargest(all []usage, newcomer string) string {
	held := map[string]int{}
	for _, u := range all {
		held[u.Owner]++
	}
	largest, most := "", 0
	for _, u := range all { // in the listing's order, so ties are stable
		if n := held[u.Owner]; n > most {
			largest, most = u.Owner, n
		}
	}
	if most <= held[newcomer]+1 {
		return ""
	}
	var theirs []usage
	for _, u := range all {
		if u.Owner == largest {
			theirs = append(theirs, u)
		}
	}
	return s.leastRecentUnheld(theirs)
}

// forget forgets a session: its keys are purged, which closes its
// watchers on every replica, then the index stops counting it. Like
// Rooms.forget it runs with a context of its own.
func (s *Sessions) forget(id string) {
	s.purge(id)
	unindex(s.kv, id)
}

// purge deletes a session's keys (and this handle's replay of it) but
// leaves the index alone: for a session the index never counted, or no
// longer counts.
func (s *Sessions) purge(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = s.kv.Purge(ctx, usageKey(id))
	_ = s.kv.Purge(ctx, dataKey(id))
	s.mu.Lock()
	delete(s.seen, id)
	s.mu.Unlock()
}

// remember keeps sess as the last read of its id, for ShareDerived.
func (s *Sessions) remember(sess *play.Session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen[sess.ID()] = sess
}

// live reads id's usage and forgets the session if it has idled out.
func (s *Sessions) live(ctx context.Context, id string, now time.Time) (usage, error) {
	if !named(id) {
		return usage{}, play.ErrNotFound
	}
	u, err := s.readUsage(ctx, id)
	if err != nil {
		return usage{}, err
	}
	if u == nil {
		return usage{}, play.ErrNotFound
	}
	if s.expired(*u, now) {
		s.forget(id)
		return usage{}, play.ErrNotFound
	}
	return *u, nil
}

// used marks u used at now, unless it was within touchEvery.
func (s *Sessions) used(ctx context.Context, u usage, now time.Time) error {
	if now.Sub(u.LastUsed) < touchEvery {
		return nil
	}
	u.LastUsed = now
	return s.putUsage(ctx, u)
}

// read decodes the stored session id with the revision it was read at.
func (s *Sessions) read(ctx context.Context, id string) (play.Saved, uint64, error) {
	e, err := s.kv.Get(ctx, dataKey(id))
	if gone(err) {
		return play.Saved{}, 0, play.ErrNotFound
	}
	if err != nil {
		return play.Saved{}, 0, fmt.Errorf("natsstore: reading a session: %w", err)
	}
	sv, err := decodeSaved(e.Value())
	return sv, e.Revision(), err
}

// restored turns sv into the session this handle gives out at now,
// continuing the replay it derived from an earlier read.
func (s *Sessions) restored(sv play.Saved, now time.Time) (*play.Session, error) {
	sess, err := play.Restore(sv)
	if err != nil {
		return nil, fmt.Errorf("natsstore: a stored session does not restore: %w", err)
	}
	s.mu.Lock()
	sess.ShareDerived(s.seen[sv.ID])
	s.mu.Unlock()
	sess = sess.At(now)
	s.remember(sess)
	return sess, nil
}

// Get implements play.Sessions.
func (s *Sessions) Get(ctx context.Context, id string) (*play.Session, error) {
	now := s.now()
	u, err := s.live(ctx, id, now)
	if err != nil {
		return nil, err
	}
	if err := s.used(ctx, u, now); err != nil {
		return nil, err
	}
	sv, _, err := s.read(ctx, id)
	if err != nil {
		return nil, err
	}
	return s.restored(sv, now)
}

// Update implements play.Sessions: read the session with its revision,
// run fn on it, and write the result only at that revision, from the read
// again when another replica wrote first.
func (s *Sessions) Update(ctx context.Context, id string, fn func(*play.Session) error) (*play.Session, error) {
	now := s.now()
	u, err := s.live(ctx, id, now)
	if err != nil {
		return nil, err
	}
	for range maxRetries {
		sv, rev, err := s.read(ctx, id)
		if err != nil {
			return nil, err
		}
		prev, err := s.restored(sv, now)
		if err != nil {
			return nil, err
		}
		w := prev.Copy()
		if err := fn(w); err != nil {
			return nil, err
		}
		if err := w.Kept(prev, now); err != nil {
			return nil, err
		}
		next := w.Saved()
		b, err := encodeSaved(next)
		if err != nil {
			return nil, err
		}
		_, err = s.kv.Update(ctx, dataKey(id), b, rev)
		if errors.Is(err, jetstream.ErrKeyRevisionMismatch) || errors.Is(err, jetstream.ErrKeyExists) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("natsstore: writing a session: %w", err)
		}
		if err := s.used(ctx, u, now); err != nil {
			return nil, err
		}
		return s.restored(next, now)
	}
	return nil, fmt.Errorf("natsstore: session changed under %d tries in a row", maxRetries)
}

// Watch implements play.Sessions.
func (s *Sessions) Watch(ctx context.Context, id string) (<-chan struct{}, error) {
	if _, err := s.live(ctx, id, s.now()); err != nil {
		return nil, err
	}
	ch, err := watchKey(ctx, s.kv, dataKey(id))
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.watched[id]++
	s.mu.Unlock()
	out := make(chan struct{}, 1)
	go func() {
		defer close(out)
		defer func() {
			s.mu.Lock()
			if s.watched[id]--; s.watched[id] <= 0 {
				delete(s.watched, id)
			}
			s.mu.Unlock()
		}()
		for range ch {
			select {
			case out <- struct{}{}:
			default:
			}
		}
	}()
	return out, nil
}

// Touch implements play.Sessions.
func (s *Sessions) Touch(ctx context.Context, id string) error {
	now := s.now()
	u, err := s.live(ctx, id, now)
	if err != nil {
		return err
	}
	return s.used(ctx, u, now)
}

// keepWatchedAlive marks the sessions this handle's streams watch used,
// every keepAlive, so that other replicas see them in use.
func (s *Sessions) keepWatchedAlive() {
	defer close(s.done)
	t := time.NewTicker(keepAlive)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		s.mu.Lock()
		ids := make([]string, 0, len(s.watched))
		for id := range s.watched {
			ids = append(ids, id)
		}
		s.mu.Unlock()
		for _, id := range ids {
			ctx, cancel := context.WithTimeout(context.Background(), keepAlive)
			if err := s.Touch(ctx, id); err == nil {
				s.renewData(ctx, id)
			}
			cancel()
		}
		ctx, cancel := context.WithTimeout(context.Background(), keepAlive)
		renewIndex(ctx, s.kv, sessionsMaxAge)
		cancel()
	}
}

// renewData rewrites a watched session's data once it is half the
// bucket's age old, so that the safety net never drops a session in use.
func (s *Sessions) renewData(ctx context.Context, id string) {
	e, err := s.kv.Get(ctx, dataKey(id))
	if err != nil || time.Since(e.Created()) < 12*time.Hour {
		return
	}
	_, _ = s.kv.Update(ctx, dataKey(id), e.Value(), e.Revision())
}

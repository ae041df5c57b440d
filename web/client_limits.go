package web

import (
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/windowlab/playground/explain"
	"github.com/windowlab/playground/limiter"
	"github.com/windowlab/playground/policies"
)

// The server limits its own visitors with the policies it teaches, each in
// its concurrent form, keyed by client (ClientAddress, or an attendee's
// device). A refusal is 429 with Retry-After and the RateLimit-Policy and
// RateLimit fields, serialised by explain.Headers, the code the lessons
// show them with: a visitor can open the browser's network panel and read
// the server doing what the lesson says. Every answer a limit admits
// carries the two RateLimit fields too.
//
// Why each policy (docs/reliability.md, "Abuse", gives the figures):
//
//   - join codes (a code looked up, a device joining): GCRA, 120 a minute
//     with a burst of 120. A class behind one public address joins at
//     once (two each: the code, then the room's page), so the burst is a
//     class of 60, and 120 join in the first minute; after it the allowance is spread
//     evenly, which is what turns guessing into days of work (50 rooms
//     among 28.6 million codes: one found in about three days at 2 a
//     second), with no window boundary where twice the limit passes, as a
//     fixed window would allow.
//   - pairing redemptions: sliding log, 10 in 5 minutes. A security
//     counter of a few tries wants the exact count over the trailing
//     window, and a log of 10 instants is 80 bytes a key.
//   - answers per device: token bucket, a burst of 20 refilled at one a
//     second. A phone sends a burst of taps as its owner changes their
//     mind, then nothing: a bucket allows exactly that.
//   - rooms opened: GCRA, 10 in 10 minutes per address, on top of the
//     RoomsPerClient share of the room bound.
//   - playground sessions opened: sliding counter, 300 a minute per
//     address: two counters a key, and an estimate that never lets a
//     flood through a window's edge; the store's per-address share
//     (play.MaxSessionsPerClient) bounds what is held, this bounds churn.
//   - /api/simulate: token bucket, a burst of 10 refilled at one a second
//     per address: scripts send batches, and the run slots, not this,
//     bound the CPU.
//
// clientLimits holds each Limit's own, indexed by the Limit.
type clientLimits [limitCount]*clientLimit

func newClientLimits(now func() time.Time) *clientLimits {
	must := func(name, pol string, p policies.Params) *clientLimit {
		l, err := newClientLimit(name, pol, p, now)
		if err != nil {
			panic("web: " + err.Error()) // the parameters are constants, checked by TestClientLimitsBuild
		}
		return l
	}
	return &clientLimits{
		LimitJoin:     must("join", policies.GCRA, policies.Params{Limit: 120, WindowMs: 60_000, Burst: 120}),
		LimitPair:     must("pair", policies.SlidingLog, policies.Params{Limit: 10, WindowMs: 300_000}),
		LimitAnswer:   must("answer", policies.TokenBucket, policies.Params{Limit: 60, WindowMs: 60_000, Burst: 20}),
		LimitRooms:    must("rooms", policies.GCRA, policies.Params{Limit: 10, WindowMs: 600_000, Burst: 10}),
		LimitSessions: must("sessions", policies.SlidingCounter, policies.Params{Limit: 300, WindowMs: 60_000}),
		LimitSimulate: must("simulate", policies.TokenBucket, policies.Params{Limit: 60, WindowMs: 60_000, Burst: 10}),
	}
}

// maxLimitKeys bounds the clients one limit remembers: a concurrent policy
// never forgets a key, so once this many are held the limit starts again
// empty. At some 100 bytes a key (the sliding log's 10 instants the most)
// each limit holds at most about 5 MB. Starting again forgives everyone at
// once, which a flood of new addresses could force; the bounds on what is
// held (rooms, sessions, streams) stay whole.
const maxLimitKeys = 50_000

// clientLimit is one named limit, per client key.
type clientLimit struct {
	name  string
	pol   explain.Policy
	now   func() time.Time // the server's clock (Config.Now)
	start time.Time

	cur   atomic.Pointer[limiter.Concurrent]
	calls atomic.Uint64
	mu    sync.Mutex // serialises a reset
}

func newClientLimit(name, pol string, p policies.Params, now func() time.Time) (*clientLimit, error) {
	c, err := limiter.NewConcurrent(pol, p, 0)
	if err != nil {
		return nil, err
	}
	l := &clientLimit{name: name, pol: explain.Policy{Name: pol, Params: c.Params()}, now: now, start: now()}
	l.cur.Store(c)
	return l, nil
}

// decide takes one permit for key now, returning the verdict and the
// header fields that say it.
func (l *clientLimit) decide(key string, now time.Time) (bool, []explain.Header) {
	c := l.cur.Load()
	if l.calls.Add(1)%1024 == 0 && c.Stats().Keys >= maxLimitKeys {
		l.mu.Lock()
		if l.cur.Load() == c {
			fresh, _ := limiter.NewConcurrent(l.pol.Name, l.pol.Params, 0) // built once already with these
			l.cur.Store(fresh)
		}
		c = l.cur.Load()
		l.mu.Unlock()
	}
	// Key 0 is the table's empty mark: the high bit keeps every hash off it.
	k := policies.Key(policies.Mix32(l.name+"\x00"+key)) | 1<<32
	at := now.Sub(l.start).Milliseconds()
	det := c.Decide(k, at, 1)
	return det.Allowed, explain.Headers(l.pol, det, c, k)
}

// allow decides for key and writes the fields onto w's headers: the two
// RateLimit fields always, Retry-After on a refusal. The caller answers
// 429 in its own format when it returns false.
func (l *clientLimit) allow(w http.ResponseWriter, _ *http.Request, key string) bool {
	ok, hs := l.decide(key, l.now())
	for _, h := range hs[1:] { // hs[0] is the status line
		w.Header().Set(h.Name, h.Value)
	}
	return ok
}

// Retry-After of capacity refusals (503), each the time in which what is
// full usually frees some room: a run ends within RunTimeout, a stream's
// place as a page closes, a playground session or a room only as a
// visitor leaves.
const (
	StreamRetryAfter = 10 * time.Second
	PlaceRetryAfter  = 60 * time.Second // a room, or a playground session
)

// NoteCapacity says Retry-After for a 503 refusal for capacity and notes
// it in the sampled log; the caller writes the answer.
func (s *Server) NoteCapacity(w http.ResponseWriter, r *http.Request, retry time.Duration) {
	s.refusals.note(s.log, r)
	w.Header().Set("Retry-After", explain.RetryAfter(retry.Milliseconds()))
}

// TooMany answers a plain-text 429 for a limit that allow refused.
func TooMany(w http.ResponseWriter, what string) {
	http.Error(w, "Too many "+what+" from this network just now: wait "+w.Header().Get("Retry-After")+" s and try again.", http.StatusTooManyRequests)
}

// A Limit is one of the server's own limits on its visitors (see
// clientLimits for which policy each is and why).
type Limit int

// The limits a feature asks Admit about.
const (
	LimitJoin     Limit = iota // a join code looked up, a device joining
	LimitPair                  // a pairing code redeemed
	LimitAnswer                // an attendee's answer, keyed by device
	LimitRooms                 // a room opened
	LimitSessions              // a playground session opened
	LimitSimulate              // a POST /api/simulate
	limitCount
)

// Admit decides limit l for key (ClientAddress, or an attendee's device)
// and writes the RateLimit fields onto w's headers, with Retry-After on a
// refusal. The caller answers 429 in its own format when it returns false.
func (s *Server) Admit(w http.ResponseWriter, r *http.Request, l Limit, key string) bool {
	if l < 0 || l >= limitCount {
		panic("web: Admit of an unknown limit") // a programming error: the set is closed
	}
	cl := s.limits[l]
	return cl.allow(w, r, key)
}

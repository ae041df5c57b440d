package onredis

import (
	"container/list"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/windowlab/playground/scenario"
)

// The Mirror's bounds (docs/playground.md, "Redis beside each lane").
const (
	// MaxRequests is how many of a session's requests (after expanding
	// counts, probes among them) each lane decides on Redis; the later
	// ones are Go's alone, and the lane says so.
	MaxRequests = 2000
	// MaxDifferences is how many differences from Go a lane keeps: at
	// the last, its replay stops there, and the lane says so. Redis that
	// disagrees that often is broken, and the drawing of a thousand ≠
	// would say no more.
	MaxDifferences = 50
	// MaxSessions is how many sessions' replays the Mirror keeps; the one
	// shown least recently is forgotten (its keys deleted) for a new one.
	MaxSessions = 64
	// Timeout bounds one replay: every lane of a session, after one change.
	Timeout = 3 * time.Second
	// RetryAfter is how long, after Redis failed, no session asks it again:
	// a Redis that is away costs the pages one failed call per RetryAfter,
	// not one per update.
	RetryAfter = 5 * time.Second
	// freshAfter is the age past which a replay starts again rather than
	// continuing: every key it wrote then still has at least half of
	// TTLPadMs to live, so a continuation never meets a key Redis let go.
	freshAfter = TTLPadMs / 2 * time.Millisecond
)

// The timeouts of NewClient's calls: a Redis that is away must cost a
// page's update little, so each call gives up quickly (and the Mirror
// then leaves Redis alone for RetryAfter).
const (
	DialTimeout = 500 * time.Millisecond
	IOTimeout   = time.Second
)

// NewClient is a client for a Mirror: opts with calls that give up soon and
// are not retried, since a page waits on them.
func NewClient(opts *redis.Options) *redis.Client {
	o := *opts
	o.MaxRetries, o.DialerRetries = -1, 1
	o.DialTimeout, o.ReadTimeout, o.WriteTimeout = DialTimeout, IOTimeout, IOTimeout
	// Without it go-redis reads with IOTimeout alone and a replay's
	// context (Timeout) would not bound it.
	o.ContextTimeoutEnabled = true
	return redis.NewClient(&o)
}

// Mirror replays the playground's sessions on Redis, each lane through its
// Redis form, on the session's virtual clock, and keeps each session's
// latest replay: the page asks for it at every update, and Redis is asked
// only when the scenario has changed. A session whose requests were only
// appended to continues where it left off (Redis keeps the state); any
// other change replays it from its first request under a new key prefix.
// It is safe for concurrent use; a session's replays take turns.
type Mirror struct {
	rdb redis.UniversalClient
	log *slog.Logger
	now func() time.Time
	run string // this Mirror's part of every key prefix

	mu       sync.Mutex
	sessions map[string]*list.Element // of *mirrored, most recently shown first
	order    list.List
	gen      uint64
	// downUntil is when Redis may be asked again after a failure, and
	// downWhy the failure in words.
	downUntil time.Time
	downWhy   string
}

// NewMirror replays sessions on rdb (best made by NewClient), logging
// Redis's failures to log.
func NewMirror(rdb redis.UniversalClient, log *slog.Logger) *Mirror {
	var b [6]byte
	_, _ = rand.Read(b[:]) // crypto/rand does not fail (Go 1.24)
	return &Mirror{rdb: rdb, log: log, now: time.Now, run: hex.EncodeToString(b[:]), sessions: map[string]*list.Element{}}
}

// Replayed is a session's scenario as Redis decided it, lane by lane (in
// the order of the scenario's Specs).
type Replayed struct {
	Lanes []LaneReplayed
}

// Lane is lane i, or a zero LaneReplayed (which says nothing was
// replayed) when the replay has no such lane.
func (r *Replayed) Lane(i int) LaneReplayed {
	if r == nil || i < 0 || i >= len(r.Lanes) {
		return LaneReplayed{}
	}
	return r.Lanes[i]
}

// LaneReplayed is one lane decided on Redis.
type LaneReplayed struct {
	// Unavailable, when set, is why Redis decided nothing: the lane shows
	// Go's decisions alone.
	Unavailable string
	// Skipped, when set, is why the lane is not decided on Redis at all.
	Skipped string
	// Through is how many requests (by Index) were replayed: a request
	// whose Index is at or past it is Go's alone.
	Through int
	// Total is the lane's requests, after expanding counts.
	Total int
	// Compared is how the replayed requests' decisions compare with Go's.
	Compared Compared
	// Stopped is true once the lane met MaxDifferences differences: its
	// replay ends at the last of them.
	Stopped bool
}

// Replayed reports whether the request at index was decided on Redis.
func (l LaneReplayed) Replayed(index int) bool {
	return l.Unavailable == "" && l.Skipped == "" && index < l.Through
}

// Differs returns Redis's difference from Go on the request at index, if
// there is one.
func (l LaneReplayed) Differs(index int) (Difference, bool) {
	i, found := slices.BinarySearchFunc(l.Compared.Differences, index, func(d Difference, index int) int { return d.Index - index })
	if !found {
		return Difference{}, false
	}
	return l.Compared.Differences[i], true
}

// Status is the lane's Redis line in words.
func (l LaneReplayed) Status() string {
	switch {
	case l.Unavailable != "":
		return "Redis unavailable: " + l.Unavailable
	case l.Skipped != "":
		return "Redis: " + l.Skipped + "."
	case l.Through == 0:
		return "Redis: no requests yet."
	}
	s := "Redis: " + l.Compared.Summary() + "."
	if l.Stopped {
		s += fmt.Sprintf(" The replay stopped at the %dth difference (the playground's bound).", MaxDifferences)
	} else if l.Total > l.Through {
		s += fmt.Sprintf(" Requests after the first %d are not replayed on Redis (the playground's bound).", l.Through)
	}
	return s
}

// mirrored is one session's replay as it stands.
type mirrored struct {
	id string

	mu      sync.Mutex
	rev     uint64
	shown   *Replayed // the replay of rev; nil before the first
	retryAt time.Time // when a replay that failed may be tried again

	// What Redis holds of the session: the generation whose keys hold
	// the state after reqs (the bounded scenario's requests, decided),
	// under the settings of sc. gen 0 holds nothing.
	gen     uint64
	started time.Time
	sc      scenario.Scenario
	lanes   []LaneReplayed
	keys    []string // every key of gen, its marker first
}

// Replay is session id's scenario at revision rev (play.View's
// ScenarioRev), decided on Redis. It asks Redis only when rev is new (or a
// failed replay's RetryAfter has passed), and then within Timeout,
// whatever becomes of ctx: other pages of the session wait for the same
// replay.
func (m *Mirror) Replay(ctx context.Context, id string, rev uint64, s scenario.Scenario) *Replayed {
	e, evicted := m.entry(id)
	if evicted != nil {
		m.forget(ctx, evicted)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	now := m.now()
	if e.shown != nil && e.rev == rev && (e.retryAt.IsZero() || now.Before(e.retryAt)) {
		return e.shown
	}
	e.rev, e.retryAt = rev, time.Time{}
	if why, down := m.isDown(now); down {
		e.shown, e.retryAt, e.gen = unavailable(s, why), now.Add(RetryAfter), 0
		return e.shown
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), Timeout)
	defer cancel()
	shown, err := m.advance(ctx, e, bounded(s), s)
	if err != nil {
		why := reason(err)
		m.log.Warn("redis mirror: replay failed", "session", id, "reason", why, slog.Any("error", err))
		m.setDown(now, why)
		// Redis may have decided part of the replay: start afresh.
		e.shown, e.retryAt, e.gen = unavailable(s, why), now.Add(RetryAfter), 0
		return e.shown
	}
	e.shown = shown
	return shown
}

// advance brings Redis's copy of the session to cut (s bounded by
// MaxRequests), continuing the kept replay when cut only appends to it.
func (m *Mirror) advance(ctx context.Context, e *mirrored, cut, s scenario.Scenario) (*Replayed, error) {
	goRes, err := scenario.RunContext(ctx, cut)
	if err != nil {
		return nil, err
	}
	if !m.continues(ctx, e, cut) {
		if len(e.keys) > 0 {
			// Best effort: what is left expires with its TTL.
			_ = m.rdb.Del(ctx, e.keys...).Err()
		}
		m.mu.Lock()
		m.gen++
		e.gen = m.gen
		m.mu.Unlock()
		e.started, e.lanes = m.now(), make([]LaneReplayed, len(cut.Specs()))
		e.keys = []string{m.prefix(e.gen) + "alive"}
		if err := m.rdb.Set(ctx, e.keys[0], 1, TTLPadMs*time.Millisecond).Err(); err != nil {
			e.gen = 0
			return nil, err
		}
	}
	total := total(s)
	for lane := range cut.Specs() {
		l := &e.lanes[lane]
		decided := goRes.Results[lane].Decisions
		form, err := LaneForm(m.rdb, cut, lane, fmt.Sprintf("%s%d:", m.prefix(e.gen), lane))
		var skipped Skipped
		if errors.As(err, &skipped) {
			l.Skipped = skipped.Reason
			continue
		}
		if l.Stopped {
			continue
		}
		c, err := Replay(ctx, form, decided[l.Through:])
		if err != nil {
			e.gen = 0
			return nil, err
		}
		for _, k := range c.Keys {
			if !slices.Contains(e.keys, k) {
				e.keys = append(e.keys, k)
			}
		}
		l.Compared.Decided += c.Decided
		l.Compared.Differences = append(l.Compared.Differences, c.Differences...)
		l.Through = len(decided)
		if len(l.Compared.Differences) >= MaxDifferences {
			l.stop(decided)
		}
	}
	e.sc = cut
	out := &Replayed{Lanes: slices.Clone(e.lanes)}
	for i := range out.Lanes {
		out.Lanes[i].Total = total
		out.Lanes[i].Compared.Differences = slices.Clip(out.Lanes[i].Compared.Differences)
		out.Lanes[i].Compared.Keys = nil
	}
	return out, nil
}

// stop ends the lane's replay at its MaxDifferences-th difference, keeping
// only what was decided up to it.
func (l *LaneReplayed) stop(decided []scenario.Decision) {
	l.Compared.Differences = slices.Clip(l.Compared.Differences[:MaxDifferences])
	l.Through = l.Compared.Differences[MaxDifferences-1].Index + 1
	l.Compared.Decided = 0
	for _, d := range decided[:l.Through] {
		if !d.Probe {
			l.Compared.Decided++
		}
	}
	l.Stopped = true
}

// continues reports whether cut carries on from the replay Redis holds:
// the same settings, the same requests and more, a generation young
// enough that none of its keys has expired, and a Redis that still holds
// it (one restarted since has forgotten every key).
func (m *Mirror) continues(ctx context.Context, e *mirrored, cut scenario.Scenario) bool {
	if e.gen == 0 || m.now().Sub(e.started) > freshAfter {
		return false
	}
	if cut.Limit != e.sc.Limit || cut.WindowMs != e.sc.WindowMs || !reflect.DeepEqual(cut.Specs(), e.sc.Specs()) {
		return false
	}
	if len(cut.Requests) < len(e.sc.Requests) || !slices.Equal(cut.Requests[:len(e.sc.Requests)], e.sc.Requests) {
		return false
	}
	n, err := m.rdb.Exists(ctx, e.keys[0]).Result()
	return err == nil && n == 1
}

func (m *Mirror) prefix(gen uint64) string { return fmt.Sprintf("wl:play:%s:%d:", m.run, gen) }

// entry is session id's replay, made if new and moved to the front; a
// replay pushed out by it (past MaxSessions) is returned to be forgotten.
func (m *Mirror) entry(id string) (*mirrored, *mirrored) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.sessions[id]; ok {
		m.order.MoveToFront(el)
		return el.Value.(*mirrored), nil
	}
	e := &mirrored{id: id}
	m.sessions[id] = m.order.PushFront(e)
	if m.order.Len() <= MaxSessions {
		return e, nil
	}
	last := m.order.Back()
	m.order.Remove(last)
	old := last.Value.(*mirrored)
	delete(m.sessions, old.id)
	return e, old
}

// forget deletes what Redis holds of a replay pushed out of the Mirror.
func (m *Mirror) forget(ctx context.Context, e *mirrored) {
	e.mu.Lock()
	keys := e.keys
	e.keys, e.gen = nil, 0
	e.mu.Unlock()
	if len(keys) == 0 {
		return
	}
	if _, down := m.isDown(m.now()); down {
		return // the keys expire with their TTL
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), Timeout)
	defer cancel()
	_ = m.rdb.Del(ctx, keys...).Err()
}

// Sessions is how many sessions' replays the Mirror keeps.
func (m *Mirror) Sessions() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.order.Len()
}

func (m *Mirror) isDown(now time.Time) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.downWhy, now.Before(m.downUntil)
}

func (m *Mirror) setDown(now time.Time, why string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.downUntil, m.downWhy = now.Add(RetryAfter), why
}

// unavailable is every lane of s unavailable for why.
func unavailable(s scenario.Scenario, why string) *Replayed {
	out := &Replayed{Lanes: make([]LaneReplayed, len(s.Specs()))}
	for i := range out.Lanes {
		out.Lanes[i] = LaneReplayed{Unavailable: why, Total: total(s)}
	}
	return out
}

// reason words a Redis failure for a visitor, who should not read the
// server's addresses or the client's internals (the log has those).
func reason(err error) string {
	var rerr redis.Error
	var nerr net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &nerr) && nerr.Timeout():
		// A call's own IOTimeout and the replay's Timeout both end here,
		// and the error does not say which ended first.
		return fmt.Sprintf("no answer in time (%s a call, %s a replay); the lane above is Go's alone.", IOTimeout, Timeout)
	case errors.As(err, &rerr):
		return "Redis answered with an error; the lane above is Go's alone."
	default:
		return "the server cannot reach Redis; the lane above is Go's alone."
	}
}

// bounded is s with only its first MaxRequests requests, after expanding
// counts (Validate makes every Count at least 1).
func bounded(s scenario.Scenario) scenario.Scenario {
	n := int64(0)
	for i, r := range s.Requests {
		if n+r.Count <= MaxRequests {
			n += r.Count
			continue
		}
		cut := slices.Clone(s.Requests[:i])
		if left := MaxRequests - n; left > 0 {
			r.Count = left
			cut = append(cut, r)
		}
		s.Requests = cut
		return s
	}
	return s
}

// total is the requests of s after expanding counts.
func total(s scenario.Scenario) int {
	n := 0
	for _, r := range s.Requests {
		n += int(r.Count)
	}
	return n
}

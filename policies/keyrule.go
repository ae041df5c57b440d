package policies

import (
	"sync/atomic"
	"unsafe"
)

// A KeyRule is one policy's decision rule on one key's state, for a caller
// that keeps the keys itself: the concurrent form in package limiter keeps
// each key's state in a slot of its own table, and a store outside the
// process (a Redis form) can be held to the same rule state by state. It is
// the same code the single-goroutine policy New builds runs (decideOn,
// peekOn, snapshotOn and, for the ring policies, allowOn), so a caller that
// gives a key's requests to one rule in order gets exactly the decisions
// that policy gives them.
//
// NewRule returns one of seven types, each implementing Rule[S] for its own
// state type S: *FixedWindowRule, *SlidingLogRule, *SlidingCounterRule,
// *SlidingBucketsRule, *TokenBucketRule, *GCRARule and *LeakyBucketRule. S is opaque: a
// caller holds states it got from Fresh and passes pointers to them back.
type KeyRule interface {
	// Name is the policy's name; Params its parameters, normalised as the
	// Params of the policy New builds.
	Name() string
	Params() Params
	keyRule()
}

// Rule is a KeyRule on states of type S. A rule is safe for concurrent use
// on different states; one state must not be used by two goroutines at
// once (the caller locks it). Where the policy keeps a cache (a window
// clock, a remembered retry), each call keeps its own on the stack, or one
// shared line written about once a window (see sharedClock): a cache every
// decision wrote would be a line handed between processors.
type Rule[S any] interface {
	KeyRule
	// Decide decides a request of cost at now on st, as Policy.Decide does,
	// and changes nothing for a request that never fits.
	Decide(st *S, now, cost int64) Decision
	// Allow is Decide's verdict and change of state, without building
	// the explanation.
	Allow(st *S, now, cost int64) Verdict
	// Never reports whether a request of cost can never be admitted.
	Never(cost int64) bool
	// Unseen is the decision for such a request on a key never seen, which
	// a caller should not then add (New's policies add none).
	Unseen(now, cost int64) Decision
	// Peek and Snapshot describe st at now; st nil is a key never seen.
	Peek(st *S, now int64) Fraction
	Snapshot(st *S, now int64) State
	// Stats is Stats of keys keys, without the heap.
	Stats(keys int) Stats
	// RingLen is the int64 ring a new key's state holds (0 for none), and
	// Fresh a new key's state holding ring, which must be that long and
	// zero. A ring stays where it is: the state keeps it.
	RingLen() int64
	Fresh(ring []int64) S
}

// NewRule builds the named policy's per-key rule, validating p as New does
// (errors are New's).
func NewRule(name string, p Params) (KeyRule, error) {
	pol, err := newPolicy(name, p)
	if err != nil {
		return nil, err
	}
	info, _ := Lookup(name) // newPolicy has found it
	return info.rule(pol), nil
}

// Each policy's rule is written twice, no more: decideOn, which builds
// Decide's explanation, and the verdict-only path Allow takes, which a
// server needs fast (through decideOn a verdict cost about twice as much a
// decision at 1e6 keys, with the time in cache misses, where the fewer the
// instructions between one decision's miss and the next, the more of the
// two the processor overlaps). A rule's Allow and its policy's Allow share
// that second path: the ring policies' allowOn, gcra's allowOn, fixed-
// window's allowIn, token-bucket's take, sliding-counter's countsIn and
// admits, each small enough for the compiler to inline into both, since a
// call there cost the single-goroutine hot key about 1 ns of 4. What each
// Allow keeps of its own is the plumbing: where the window's start comes
// from (the policy's window clock, or the rule's shared one) and where a
// refusal's retry is solved (the policy's remembered one, or a copy on the
// stack). TestRuleCopiesAgree holds the two paths and every caller of them
// to Decide, state by state over a small domain.

// sharedClock is a windowClock for the concurrent form: the latest window
// any decision found, read by every decision and written only when one
// finds a later window, so that its line is written about once a window
// however many processors read it. Without it each decision divides (about
// 25 ns of a hot key's 45 on the machine measured). Like windowClock it is
// a cache, not state: any index it holds gives the same answers.
type sharedClock struct {
	width int64
	index atomic.Int64 // start / width of the latest window found; -1 before any
}

func newSharedClock(width int64) *sharedClock {
	c := &sharedClock{width: width}
	c.index.Store(-1)
	return c
}

// load is a windowClock starting from the latest window found.
func (c *sharedClock) load() windowClock {
	i := c.index.Load()
	return windowClock{width: c.width, start: i * c.width, index: i}
}

// keep publishes w's window if it is later than the one held. It never
// goes back: one decision at a far-future instant leaves it there, and
// every decision at the present then divides again (a cost, never a
// wrong answer). A window clock that followed time back would be written
// by decisions at both instants, the shared line this exists to avoid.
func (c *sharedClock) keep(w windowClock) {
	for {
		i := c.index.Load()
		if w.index <= i || c.index.CompareAndSwap(i, w.index) {
			return
		}
	}
}

// FixedWindowRule is fixed-window's KeyRule (see fixedWindowPolicy).
type FixedWindowRule struct {
	p     Params
	clock *sharedClock
	base  fixedWindowPolicy // read only, for allowIn
}

func newFixedWindowRule(p Params) *FixedWindowRule {
	return &FixedWindowRule{p, newSharedClock(p.WindowMs), fixedWindowPolicy{p: p}}
}

func (k *FixedWindowRule) rules() fixedWindowPolicy {
	return fixedWindowPolicy{p: k.p, window: k.clock.load()}
}

func (k *FixedWindowRule) Decide(st *fixedWindowState, now, cost int64) (d Decision) {
	r := k.rules()
	r.decideOn(st, now, cost, &d)
	k.clock.keep(r.window)
	return d
}

func (k *FixedWindowRule) Allow(st *fixedWindowState, now, cost int64) Verdict {
	if k.Never(cost) {
		return Verdict{Never: true}
	}
	now = clampTime(now)
	at, _ := decideAt(now, st.latest)
	clock := k.clock.load()
	start := clock.startOf(at)
	k.clock.keep(clock)
	return k.base.allowIn(st, now, at, start, cost)
}

func (k *FixedWindowRule) Never(cost int64) bool { return neverFits(cost, k.p.Limit) }

func (k *FixedWindowRule) Unseen(now, cost int64) Decision {
	var st fixedWindowState
	return k.Decide(&st, now, cost)
}

func (k *FixedWindowRule) Peek(st *fixedWindowState, now int64) Fraction {
	r := k.rules()
	return r.peekOn(valueOrZero(st), now)
}

func (k *FixedWindowRule) Snapshot(st *fixedWindowState, now int64) State {
	r := k.rules()
	return r.snapshotOn(valueOrZero(st), now)
}

func (*FixedWindowRule) Stats(keys int) Stats           { return fixedWindowStats(keys) }
func (*FixedWindowRule) RingLen() int64                 { return 0 }
func (*FixedWindowRule) Fresh([]int64) fixedWindowState { return fixedWindowState{} }
func (k *FixedWindowRule) Params() Params               { return k.p }
func (*FixedWindowRule) Name() string                   { return FixedWindow }
func (*FixedWindowRule) keyRule()                       {}

// valueOrZero is *p, or the zero state (a key never seen) for nil.
func valueOrZero[S any](p *S) S {
	if p == nil {
		var zero S
		return zero
	}
	return *p
}

// SlidingCounterRule is sliding-counter's KeyRule (see slidingCounterPolicy).
type SlidingCounterRule struct {
	p     Params
	clock *sharedClock
	base  slidingCounterPolicy // read only, for countsIn and admits
}

func newSlidingCounterRule(p Params) *SlidingCounterRule {
	return &SlidingCounterRule{p, newSharedClock(p.WindowMs), slidingCounterPolicy{p: p, exact: p.Arithmetic == Exact}}
}

func (k *SlidingCounterRule) rules() slidingCounterPolicy {
	return slidingCounterPolicy{p: k.p, exact: k.p.Arithmetic == Exact, window: k.clock.load()}
}

func (k *SlidingCounterRule) Decide(st *slidingCounterState, now, cost int64) (d Decision) {
	r := k.rules()
	r.decideOn(st, now, cost, &d)
	k.clock.keep(r.window)
	return d
}

func (k *SlidingCounterRule) Allow(st *slidingCounterState, now, cost int64) Verdict {
	if k.Never(cost) {
		return Verdict{Never: true}
	}
	now = clampTime(now)
	at, _ := decideAt(now, st.latest)
	clock := k.clock.load()
	start := clock.startOf(at)
	k.clock.keep(clock)
	previous, current := k.base.countsIn(*st, start)
	if !k.base.admits(previous, current, at-start, cost) {
		*st = slidingCounterState{latest: at, previous: previous, current: current}
		return k.refuse(start, previous, current, cost, now)
	}
	*st = slidingCounterState{latest: at, previous: previous, current: current + cost}
	return Verdict{Allowed: true}
}

// refuse is Allow's refusal, solved on a policy value of its own: the
// policy's remembered refusal, shared, would be a line every refusal
// writes.
func (k *SlidingCounterRule) refuse(start, previous, current, cost, now int64) Verdict {
	r := k.rules()
	return Verdict{RetryAfterMs: r.retryAt(start, previous, current, cost) - now}
}

func (k *SlidingCounterRule) Never(cost int64) bool { return neverFits(cost, k.p.Limit) }

func (k *SlidingCounterRule) Unseen(now, cost int64) Decision {
	var st slidingCounterState
	return k.Decide(&st, now, cost)
}

func (k *SlidingCounterRule) Peek(st *slidingCounterState, now int64) Fraction {
	r := k.rules()
	return r.peekOn(valueOrZero(st), now)
}

func (k *SlidingCounterRule) Snapshot(st *slidingCounterState, now int64) State {
	r := k.rules()
	return r.snapshotOn(valueOrZero(st), now)
}

func (*SlidingCounterRule) Stats(keys int) Stats              { return slidingCounterStats(keys) }
func (*SlidingCounterRule) RingLen() int64                    { return 0 }
func (*SlidingCounterRule) Fresh([]int64) slidingCounterState { return slidingCounterState{} }
func (k *SlidingCounterRule) Params() Params                  { return k.p }
func (*SlidingCounterRule) Name() string                      { return SlidingCounter }
func (*SlidingCounterRule) keyRule()                          {}

// TokenBucketRule is token-bucket's KeyRule (see tokenBucketPolicy).
type TokenBucketRule struct {
	p    Params
	base tokenBucketPolicy // read only, for take; copied to solve a retry
}

func (k *TokenBucketRule) rules() tokenBucketPolicy { return k.base }

func (k *TokenBucketRule) Decide(st *tokenBucketState, now, cost int64) (d Decision) {
	r := k.rules()
	r.decideOn(st, now, cost, &d)
	return d
}

func (k *TokenBucketRule) Allow(st *tokenBucketState, now, cost int64) Verdict {
	if k.Never(cost) {
		return Verdict{Never: true}
	}
	now = clampTime(now)
	at, _ := decideAt(now, st.latest)
	if used, ok := k.base.take(st, at, cost); !ok {
		r := k.rules()
		return Verdict{RetryAfterMs: r.retryAt(at, used, cost) - now}
	}
	return Verdict{Allowed: true}
}

func (k *TokenBucketRule) Never(cost int64) bool { return neverFits(cost, k.p.Burst) }

func (k *TokenBucketRule) Unseen(now, cost int64) Decision {
	var st tokenBucketState
	return k.Decide(&st, now, cost)
}

func (k *TokenBucketRule) Peek(st *tokenBucketState, now int64) Fraction {
	r := k.rules()
	return r.peekOn(valueOrZero(st), now)
}

func (k *TokenBucketRule) Snapshot(st *tokenBucketState, now int64) State {
	r := k.rules()
	return r.snapshotOn(valueOrZero(st), now)
}

func (*TokenBucketRule) Stats(keys int) Stats           { return tokenBucketStats(keys) }
func (*TokenBucketRule) RingLen() int64                 { return 0 }
func (*TokenBucketRule) Fresh([]int64) tokenBucketState { return tokenBucketState{} }
func (k *TokenBucketRule) Params() Params               { return k.p }
func (*TokenBucketRule) Name() string                   { return TokenBucket }
func (*TokenBucketRule) keyRule()                       {}

// GCRARule is gcra's KeyRule. It shares a policy value: gcra keeps no
// cache, so its calls write nothing but the key's state.
type GCRARule struct{ g *gcraPolicy }

func (k *GCRARule) Decide(st *gcraState, now, cost int64) (d Decision) {
	k.g.decideOn(st, now, cost, &d)
	return d
}

func (k *GCRARule) Allow(st *gcraState, now, cost int64) Verdict {
	if k.Never(cost) {
		return Verdict{Never: true}
	}
	return k.g.allowOn(st, clampTime(now), cost)
}

func (k *GCRARule) Never(cost int64) bool { return neverFits(cost, k.g.p.Burst) }

func (k *GCRARule) Unseen(now, cost int64) Decision {
	var st gcraState
	return k.Decide(&st, now, cost)
}

func (k *GCRARule) Peek(st *gcraState, now int64) Fraction { return k.g.peekOn(valueOrZero(st), now) }
func (k *GCRARule) Snapshot(st *gcraState, now int64) State {
	return k.g.snapshotOn(valueOrZero(st), now)
}
func (*GCRARule) Stats(keys int) Stats    { return gcraStats(keys) }
func (*GCRARule) RingLen() int64          { return 0 }
func (*GCRARule) Fresh([]int64) gcraState { return gcraState{} }
func (k *GCRARule) Params() Params        { return k.g.p }
func (*GCRARule) Name() string            { return GCRA }
func (*GCRARule) keyRule()                {}

// slidingLogSlot is a sliding-log key's state for its rule: the ring
// (limit int64) is the one the caller gave Fresh, held by the state.
// The state's ring index is unused.
type slidingLogSlot struct {
	st   slidingLogState
	ring []int64
}

// SlidingLogRule is sliding-log's KeyRule. It shares a policy value:
// sliding-log keeps no cache.
type SlidingLogRule struct{ l *slidingLogPolicy }

func (k *SlidingLogRule) Decide(s *slidingLogSlot, now, cost int64) (d Decision) {
	k.l.decideOn(&s.st, s.ring, now, cost, &d)
	return d
}

func (k *SlidingLogRule) Allow(s *slidingLogSlot, now, cost int64) Verdict {
	if k.Never(cost) {
		return Verdict{Never: true}
	}
	return k.l.allowOn(&s.st, s.ring, now, cost)
}

func (k *SlidingLogRule) Never(cost int64) bool { return neverFits(cost, k.l.p.Limit) }

func (k *SlidingLogRule) Unseen(now, cost int64) Decision { return k.l.unseenNever(now, cost) }

func (k *SlidingLogRule) Peek(s *slidingLogSlot, now int64) Fraction {
	if s == nil {
		return k.l.peekOn(nil, nil, now)
	}
	return k.l.peekOn(&s.st, s.ring, now)
}

func (k *SlidingLogRule) Snapshot(s *slidingLogSlot, now int64) State {
	if s == nil {
		return k.l.snapshotOn(nil, nil, now)
	}
	return k.l.snapshotOn(&s.st, s.ring, now)
}

func (k *SlidingLogRule) Stats(keys int) Stats { return k.l.statsOf(keys) }

func (k *SlidingLogRule) RingLen() int64                    { return k.l.p.Limit }
func (k *SlidingLogRule) Fresh(ring []int64) slidingLogSlot { return slidingLogSlot{ring: ring} }
func (k *SlidingLogRule) Params() Params                    { return k.l.p }
func (*SlidingLogRule) Name() string                        { return SlidingLog }
func (*SlidingLogRule) keyRule()                            {}

// slidingBucketsSlot is a sliding-buckets key's state for its rule: the
// ring of k+1 counts the caller gave Fresh (held by its first element, the
// length being the rule's), and the key's last refusal solved, so that a
// key refused again and again, the case a limiter must be fastest at,
// walks no buckets, as the single-goroutine policy's remembered retry does
// for its last key. Kept per key, it is written only with the key's own
// state; it holds for the state it was solved in (newest bucket and total),
// and is dropped whenever a decision changes that state. The state is 48
// bytes, so a concurrent table's slot stays 64. The state's ring index is unused.
type slidingBucketsSlot struct {
	st        slidingBucketsState
	ring      *int64
	retryAt   int64 // the remembered solution, from elapsed 0 in bucket st.newest
	retryCost int64 // its cost; 0 when nothing is remembered
}

// SlidingBucketsRule is sliding-buckets' KeyRule.
type SlidingBucketsRule struct {
	p     Params
	clock *sharedClock // of buckets
	// base is the policy value each call copies, its rules set once: the
	// value is some 300 bytes, and building it afresh in every call (and
	// returning it) was a third of a hot key's decision.
	base slidingBucketsPolicy
}

func newSlidingBucketsRule(p Params) *SlidingBucketsRule {
	width := p.WindowMs / p.Buckets
	return &SlidingBucketsRule{p: p, clock: newSharedClock(width),
		base: slidingBucketsPolicy{p: p, k: p.Buckets, n: p.Buckets + 1, width: width}}
}

func (k *SlidingBucketsRule) rules() slidingBucketsPolicy {
	r := k.base
	r.clock = k.clock.load()
	return r
}

func (k *SlidingBucketsRule) ringOf(s *slidingBucketsSlot) []int64 {
	return unsafe.Slice(s.ring, k.p.Buckets+1)
}

// recall sets up r, a copy of k.base, for one decision on s: the window
// clock, and s's remembered refusal as r's own last retry.
func (k *SlidingBucketsRule) recall(r *slidingBucketsPolicy, s *slidingBucketsSlot) {
	r.clock = k.clock.load()
	if s.retryCost != 0 {
		r.lastRetry = bucketsRetry{ring: s.st.ring, newest: s.st.newest, total: s.st.total, cost: s.retryCost, at: s.retryAt}
	}
}

// remember keeps r's last retry in s if it was solved for s's state as the
// decision left it, and forgets any other.
func (k *SlidingBucketsRule) remember(s *slidingBucketsSlot, r *slidingBucketsPolicy) {
	if m := r.lastRetry; m.cost != 0 && m.newest == s.st.newest && m.total == s.st.total {
		s.retryAt, s.retryCost = m.at, m.cost
		return
	}
	s.retryCost = 0
}

func (k *SlidingBucketsRule) Decide(s *slidingBucketsSlot, now, cost int64) (d Decision) {
	r := k.base
	k.recall(&r, s)
	r.decideOn(&s.st, k.ringOf(s), now, cost, &d)
	k.remember(s, &r)
	return d
}

func (k *SlidingBucketsRule) Allow(s *slidingBucketsSlot, now, cost int64) Verdict {
	if k.Never(cost) {
		return Verdict{Never: true}
	}
	r := k.base
	k.recall(&r, s)
	v := r.allowOn(&s.st, k.ringOf(s), now, cost)
	k.clock.keep(r.clock)
	k.remember(s, &r)
	return v
}

func (k *SlidingBucketsRule) Never(cost int64) bool { return neverFits(cost, k.p.Limit) }

func (k *SlidingBucketsRule) Unseen(now, cost int64) Decision {
	r := k.rules()
	return r.unseenNever(now, cost)
}

func (k *SlidingBucketsRule) Peek(s *slidingBucketsSlot, now int64) Fraction {
	r := k.rules()
	if s == nil {
		return r.peekOn(nil, nil, now)
	}
	return r.peekOn(&s.st, k.ringOf(s), now)
}

func (k *SlidingBucketsRule) Snapshot(s *slidingBucketsSlot, now int64) State {
	r := k.rules()
	if s == nil {
		return r.snapshotOn(nil, nil, now)
	}
	return r.snapshotOn(&s.st, k.ringOf(s), now)
}

func (k *SlidingBucketsRule) Stats(keys int) Stats {
	r := k.rules()
	return r.statsOf(keys)
}

func (k *SlidingBucketsRule) RingLen() int64 { return k.p.Buckets + 1 }
func (k *SlidingBucketsRule) Fresh(ring []int64) slidingBucketsSlot {
	return slidingBucketsSlot{ring: &ring[:k.p.Buckets+1][0]}
}
func (k *SlidingBucketsRule) Params() Params { return k.p }
func (*SlidingBucketsRule) Name() string     { return SlidingBuckets }
func (*SlidingBucketsRule) keyRule()         {}

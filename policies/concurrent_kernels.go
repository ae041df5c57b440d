package policies

import (
	"sync/atomic"
	"unsafe"
)

// The kernels of the concurrent form, one per policy. Each runs the
// single-goroutine policy's decideOn, peekOn and snapshotOn (and, for the
// two with rings, allowOn) on a slot's state. Where those use a cache
// (windowClock, a remembered retry), the kernel runs them on a policy value
// of its own, made on the stack for the call: shared, the cache would be a
// line every decision writes (see Concurrent). Starting cold costs a
// division or two per decision.
//
// allow is Allow's arithmetic for a request that fits (cost in [1,
// capacity]), returning only the verdict. For the four small-state
// policies it is written here from the policy's own helpers rather than
// shared with their Allow: sliding-counter's Allow answers a repeated
// refusal from one it remembers, a per-policy cache the concurrent form
// must not write, and the other three keep their arithmetic inside Allow
// because a call to a shared allowOn is not inlined there and cost their
// hot key about 1 ns of 4 (measured: gcra 3.6–4.0 → 5.2–5.3 ns, two test
// binaries alternating three times). The tests hold every form to Decide,
// decision by decision. Short matters beyond the instructions saved: with
// many keys the time is in cache misses, and the fewer instructions
// between one decision's miss and the next, the more of the two the
// processor overlaps (a verdict through Decide's 168-byte explanation took
// about twice as long a decision at 1e6 keys).

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

type fixedWindowKernel struct {
	p     Params
	clock *sharedClock
}

func newFixedWindowKernel(p Params) *fixedWindowKernel {
	return &fixedWindowKernel{p, newSharedClock(p.WindowMs)}
}

func (k *fixedWindowKernel) rules() fixedWindowPolicy {
	return fixedWindowPolicy{p: k.p, window: k.clock.load()}
}

func (k *fixedWindowKernel) decide(st *fixedWindowState, now, cost int64) (d Decision) {
	r := k.rules()
	r.decideOn(st, now, cost, &d)
	k.clock.keep(r.window)
	return d
}

func (k *fixedWindowKernel) allow(st *fixedWindowState, now, cost int64) Verdict {
	now = clampTime(now)
	at, _ := decideAt(now, st.latest)
	clock := k.clock.load()
	start := clock.startOf(at)
	k.clock.keep(clock)
	count := st.count // fixedWindowPolicy.view
	if st.latest < start {
		count = 0
	}
	if count+cost > k.p.Limit {
		*st = fixedWindowState{latest: at, count: count}
		return Verdict{RetryAfterMs: start + k.p.WindowMs - now}
	}
	*st = fixedWindowState{latest: at, count: count + cost}
	return Verdict{Allowed: true}
}

func (k *fixedWindowKernel) never(cost int64) bool { return neverFits(cost, k.p.Limit) }

func (k *fixedWindowKernel) unseen(now, cost int64) Decision {
	var st fixedWindowState
	return k.decide(&st, now, cost)
}

func (k *fixedWindowKernel) peek(st *fixedWindowState, now int64) Fraction {
	r := k.rules()
	return r.peekOn(valueOrZero(st), now)
}

func (k *fixedWindowKernel) snapshot(st *fixedWindowState, now int64) State {
	r := k.rules()
	return r.snapshotOn(valueOrZero(st), now)
}

func (*fixedWindowKernel) stats(keys int) Stats               { return fixedWindowStats(keys) }
func (*fixedWindowKernel) fresh(*ringChunks) fixedWindowState { return fixedWindowState{} }

// valueOrZero is *p, or the zero state (a key never seen) for nil.
func valueOrZero[S any](p *S) S {
	if p == nil {
		var zero S
		return zero
	}
	return *p
}

type slidingCounterKernel struct {
	p     Params
	clock *sharedClock
}

func newSlidingCounterKernel(p Params) *slidingCounterKernel {
	return &slidingCounterKernel{p, newSharedClock(p.WindowMs)}
}

func (k *slidingCounterKernel) rules() slidingCounterPolicy {
	return slidingCounterPolicy{p: k.p, exact: k.p.Arithmetic == Exact, window: k.clock.load()}
}

func (k *slidingCounterKernel) decide(st *slidingCounterState, now, cost int64) (d Decision) {
	r := k.rules()
	r.decideOn(st, now, cost, &d)
	k.clock.keep(r.window)
	return d
}

func (k *slidingCounterKernel) allow(st *slidingCounterState, now, cost int64) Verdict {
	now = clampTime(now)
	at, _ := decideAt(now, st.latest)
	clock := k.clock.load()
	start := clock.startOf(at)
	k.clock.keep(clock)
	previous, current := st.previous, st.current // slidingCounterPolicy.view
	switch {
	case st.latest >= start:
	case st.latest >= start-k.p.WindowMs:
		previous, current = st.current, 0
	default:
		previous, current = 0, 0
	}
	if !admitsWeighted(previous, k.p.Limit-current-cost, k.p.WindowMs, at-start, k.p.Arithmetic == Exact) {
		*st = slidingCounterState{latest: at, previous: previous, current: current}
		return k.refuse(start, previous, current, cost, now)
	}
	*st = slidingCounterState{latest: at, previous: previous, current: current + cost}
	return Verdict{Allowed: true}
}

// refuse is allow's refusal, solved on a policy value of its own.
func (k *slidingCounterKernel) refuse(start, previous, current, cost, now int64) Verdict {
	r := k.rules()
	return Verdict{RetryAfterMs: r.retryAt(start, previous, current, cost) - now}
}

func (k *slidingCounterKernel) never(cost int64) bool { return neverFits(cost, k.p.Limit) }

func (k *slidingCounterKernel) unseen(now, cost int64) Decision {
	var st slidingCounterState
	return k.decide(&st, now, cost)
}

func (k *slidingCounterKernel) peek(st *slidingCounterState, now int64) Fraction {
	r := k.rules()
	return r.peekOn(valueOrZero(st), now)
}

func (k *slidingCounterKernel) snapshot(st *slidingCounterState, now int64) State {
	r := k.rules()
	return r.snapshotOn(valueOrZero(st), now)
}

func (*slidingCounterKernel) stats(keys int) Stats { return slidingCounterStats(keys) }
func (*slidingCounterKernel) fresh(*ringChunks) slidingCounterState {
	return slidingCounterState{}
}

type tokenBucketKernel struct{ p Params }

func (k *tokenBucketKernel) rules() tokenBucketPolicy {
	return tokenBucketPolicy{p: k.p, capacity: k.p.Burst * k.p.WindowMs}
}

func (k *tokenBucketKernel) decide(st *tokenBucketState, now, cost int64) (d Decision) {
	r := k.rules()
	r.decideOn(st, now, cost, &d)
	return d
}

func (k *tokenBucketKernel) allow(st *tokenBucketState, now, cost int64) Verdict {
	now = clampTime(now)
	at, _ := decideAt(now, st.latest)
	used := max(0, st.used-k.p.Limit*(at-st.latest)) // tokenBucketPolicy.used
	if used+cost*k.p.WindowMs > k.p.Burst*k.p.WindowMs {
		*st = tokenBucketState{latest: at, used: used}
		r := k.rules()
		return Verdict{RetryAfterMs: r.retryAt(at, used, cost) - now}
	}
	*st = tokenBucketState{latest: at, used: used + cost*k.p.WindowMs}
	return Verdict{Allowed: true}
}

func (k *tokenBucketKernel) never(cost int64) bool { return neverFits(cost, k.p.Burst) }

func (k *tokenBucketKernel) unseen(now, cost int64) Decision {
	var st tokenBucketState
	return k.decide(&st, now, cost)
}

func (k *tokenBucketKernel) peek(st *tokenBucketState, now int64) Fraction {
	r := k.rules()
	return r.peekOn(valueOrZero(st), now)
}

func (k *tokenBucketKernel) snapshot(st *tokenBucketState, now int64) State {
	r := k.rules()
	return r.snapshotOn(valueOrZero(st), now)
}

func (*tokenBucketKernel) stats(keys int) Stats               { return tokenBucketStats(keys) }
func (*tokenBucketKernel) fresh(*ringChunks) tokenBucketState { return tokenBucketState{} }

// gcraKernel shares its policy: gcra keeps no cache, so its kernels write
// nothing but the key's state.
type gcraKernel struct{ g *gcraPolicy }

func (k *gcraKernel) decide(st *gcraState, now, cost int64) (d Decision) {
	k.g.decideOn(st, now, cost, &d)
	return d
}

func (k *gcraKernel) allow(st *gcraState, now, cost int64) Verdict {
	g := k.g
	now = clampTime(now)
	t := now * g.p.Limit
	tat := max(st.tat, t)
	next := tat + cost*g.p.WindowMs
	if next-t > g.capacity {
		st.tat = tat
		return Verdict{RetryAfterMs: ceilDiv(next-g.capacity, g.p.Limit) - now}
	}
	st.tat = next
	return Verdict{Allowed: true}
}

func (k *gcraKernel) never(cost int64) bool { return neverFits(cost, k.g.p.Burst) }

func (k *gcraKernel) unseen(now, cost int64) Decision {
	var st gcraState
	return k.decide(&st, now, cost)
}

func (k *gcraKernel) peek(st *gcraState, now int64) Fraction { return k.g.peekOn(valueOrZero(st), now) }
func (k *gcraKernel) snapshot(st *gcraState, now int64) State {
	return k.g.snapshotOn(valueOrZero(st), now)
}
func (*gcraKernel) stats(keys int) Stats        { return gcraStats(keys) }
func (*gcraKernel) fresh(*ringChunks) gcraState { return gcraState{} }

// slidingLogSlot is a sliding-log key's slot state: the ring lives in a
// chunk beside the table (it is limit int64 long) and the slot holds it.
// The state's ring index is unused.
type slidingLogSlot struct {
	st   slidingLogState
	ring []int64
}

// slidingLogKernel shares its policy: sliding-log keeps no cache.
type slidingLogKernel struct{ l *slidingLogPolicy }

func (k *slidingLogKernel) decide(s *slidingLogSlot, now, cost int64) (d Decision) {
	k.l.decideOn(&s.st, s.ring, now, cost, &d)
	return d
}

func (k *slidingLogKernel) allow(s *slidingLogSlot, now, cost int64) Verdict {
	return k.l.allowOn(&s.st, s.ring, now, cost)
}

func (k *slidingLogKernel) never(cost int64) bool { return neverFits(cost, k.l.p.Limit) }

func (k *slidingLogKernel) unseen(now, cost int64) Decision { return k.l.unseenNever(now, cost) }

func (k *slidingLogKernel) peek(s *slidingLogSlot, now int64) Fraction {
	if s == nil {
		return k.l.peekOn(nil, nil, now)
	}
	return k.l.peekOn(&s.st, s.ring, now)
}

func (k *slidingLogKernel) snapshot(s *slidingLogSlot, now int64) State {
	if s == nil {
		return k.l.snapshotOn(nil, nil, now)
	}
	return k.l.snapshotOn(&s.st, s.ring, now)
}

func (k *slidingLogKernel) stats(keys int) Stats { return k.l.statsOf(keys) }

func (k *slidingLogKernel) fresh(r *ringChunks) slidingLogSlot {
	return slidingLogSlot{ring: r.take(k.l.p.Limit)}
}

// slidingBucketsSlot is a sliding-buckets key's slot state: its ring of
// k+1 counts in a chunk beside the table (held by its first element, the
// length being the kernel's), and the key's last refusal solved, so that a
// key refused again and again, the case a limiter must be fastest at,
// walks no buckets, as the single-goroutine policy's remembered retry does
// for its last key. Kept per key, it is written only with the key's own
// slot; it holds for the state it was solved in (newest bucket and total),
// and is dropped whenever a decision changes that state. The slot stays 64
// bytes. The state's ring index is unused.
type slidingBucketsSlot struct {
	st        slidingBucketsState
	ring      *int64
	retryAt   int64 // the remembered solution, from elapsed 0 in bucket st.newest
	retryCost int64 // its cost; 0 when nothing is remembered
}

type slidingBucketsKernel struct {
	p     Params
	clock *sharedClock // of buckets
	// base is the policy value each call copies, its rules set once: the
	// value is some 300 bytes, and building it afresh in every call (and
	// returning it) was a third of a hot key's decision.
	base slidingBucketsPolicy
}

func newSlidingBucketsKernel(p Params) *slidingBucketsKernel {
	width := p.WindowMs / p.Buckets
	return &slidingBucketsKernel{p: p, clock: newSharedClock(width),
		base: slidingBucketsPolicy{p: p, k: p.Buckets, n: p.Buckets + 1, width: width}}
}

func (k *slidingBucketsKernel) rules() slidingBucketsPolicy {
	r := k.base
	r.clock = k.clock.load()
	return r
}

func (k *slidingBucketsKernel) ringOf(s *slidingBucketsSlot) []int64 {
	return unsafe.Slice(s.ring, k.p.Buckets+1)
}

// recall sets up r, a copy of k.base, for one decision on s: the window
// clock, and s's remembered refusal as r's own last retry.
func (k *slidingBucketsKernel) recall(r *slidingBucketsPolicy, s *slidingBucketsSlot) {
	r.clock = k.clock.load()
	if s.retryCost != 0 {
		r.lastRetry = bucketsRetry{ring: s.st.ring, newest: s.st.newest, total: s.st.total, cost: s.retryCost, at: s.retryAt}
	}
}

// remember keeps r's last retry in s if it was solved for s's state as the
// decision left it, and forgets any other.
func (k *slidingBucketsKernel) remember(s *slidingBucketsSlot, r *slidingBucketsPolicy) {
	if m := r.lastRetry; m.cost != 0 && m.newest == s.st.newest && m.total == s.st.total {
		s.retryAt, s.retryCost = m.at, m.cost
		return
	}
	s.retryCost = 0
}

func (k *slidingBucketsKernel) decide(s *slidingBucketsSlot, now, cost int64) (d Decision) {
	r := k.base
	k.recall(&r, s)
	r.decideOn(&s.st, k.ringOf(s), now, cost, &d)
	k.remember(s, &r)
	return d
}

func (k *slidingBucketsKernel) allow(s *slidingBucketsSlot, now, cost int64) Verdict {
	r := k.base
	k.recall(&r, s)
	v := r.allowOn(&s.st, k.ringOf(s), now, cost)
	k.clock.keep(r.clock)
	k.remember(s, &r)
	return v
}

func (k *slidingBucketsKernel) never(cost int64) bool { return neverFits(cost, k.p.Limit) }

func (k *slidingBucketsKernel) unseen(now, cost int64) Decision {
	r := k.rules()
	return r.unseenNever(now, cost)
}

func (k *slidingBucketsKernel) peek(s *slidingBucketsSlot, now int64) Fraction {
	r := k.rules()
	if s == nil {
		return r.peekOn(nil, nil, now)
	}
	return r.peekOn(&s.st, k.ringOf(s), now)
}

func (k *slidingBucketsKernel) snapshot(s *slidingBucketsSlot, now int64) State {
	r := k.rules()
	if s == nil {
		return r.snapshotOn(nil, nil, now)
	}
	return r.snapshotOn(&s.st, k.ringOf(s), now)
}

func (k *slidingBucketsKernel) stats(keys int) Stats {
	r := k.rules()
	return r.statsOf(keys)
}

func (k *slidingBucketsKernel) fresh(r *ringChunks) slidingBucketsSlot {
	return slidingBucketsSlot{ring: &r.take(k.p.Buckets + 1)[0]}
}

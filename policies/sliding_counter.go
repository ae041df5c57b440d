package policies

import "unsafe"

// slidingCounterPolicy is sliding-counter (vectors: testdata/sliding-counter-*.json):
// counts for the current epoch-aligned window and the previous one, the
// previous count fading out linearly as the current window fills.
//
// With elapsed = now - windowStart, W = windowMs and cost the request:
//
//	Floor (default; whole numbers, identical in every language):
//	    carried = previous*(W-elapsed) div W
//	    admit iff carried + current + cost <= limit
//	    Estimate = carried + current, a whole number
//	Exact (the lesson's fractions):
//	    admit iff previous*(W-elapsed) + (current+cost)*W <= limit*W
//	    Estimate = (previous*(W-elapsed) + current*W) / W, not reduced:
//	    its denominator is always W (use Fraction.Reduced to display it)
//
// Moving into the next window shifts current into previous; a gap of two
// windows or more clears both. Ties pass; a cost above limit is refused with
// Never set and changes nothing. RetryAfterMs is solved in closed form over
// the rest of this window, the next one and the one after, and is minimal:
// the same request waiting one millisecond less is still refused.
//
// Late rule: a now earlier than the key's latest instant is decided at that
// latest instant (Decision.At, Decision.Late); RetryAfterMs is counted from
// the caller's now.
//
// Each key holds three integers: its latest instant (which names its current
// window), previous and current. Keys are never forgotten.
type slidingCounterPolicy struct {
	p         Params
	exact     bool
	keys      keyTable[slidingCounterState]
	window    windowClock
	lastRetry retrySolution
}

type slidingCounterState struct {
	latest   int64
	previous int64
	current  int64
}

func newSlidingCounter(p Params) *slidingCounterPolicy {
	return &slidingCounterPolicy{p: p, exact: p.Arithmetic == Exact, keys: newKeyTable[slidingCounterState](),
		window: newWindowClock(p.WindowMs)}
}

// Name returns "sliding-counter".
func (s *slidingCounterPolicy) Name() string { return SlidingCounter }

// Params returns the parameters, with Arithmetic "" reported as Floor.
func (s *slidingCounterPolicy) Params() Params { return s.p }

// view moves the state to instant at >= st.latest and returns the window
// start with the two counts there.
func (s *slidingCounterPolicy) view(st slidingCounterState, at int64) (start, previous, current int64) {
	w := s.p.WindowMs
	start = s.window.startOf(at)
	switch { // latest <= at: in at's window, the one before, or older
	case st.latest >= start:
		return start, st.previous, st.current
	case st.latest >= start-w:
		return start, st.current, 0
	}
	return start, 0, 0
}

// estimate returns the weighted estimate and the carried part of previous at
// elapsed ms into the window.
func (s *slidingCounterPolicy) estimate(previous, current, elapsed int64) (est, carried Fraction) {
	w := s.p.WindowMs
	weighted := previous * (w - elapsed)
	if s.exact {
		return Fraction{weighted + current*w, w}, Fraction{weighted, w}
	}
	c := weighted / w
	return Whole(c + current), Whole(c)
}

// admits reports whether a request of cost passes against previous and
// current at elapsed ms into the window.
func (s *slidingCounterPolicy) admits(previous, current, elapsed, cost int64) bool {
	return admitsWeighted(previous, s.p.Limit-current-cost, s.p.WindowMs, elapsed, s.exact)
}

// admitsWeighted is the admission test shared with sliding-buckets: room is
// limit - (counts at full weight) - cost, and previous is weighted by
// (width-elapsed)/width. Exact: previous*(width-elapsed) <= room*width.
// Floor: previous*(width-elapsed) div width <= room.
func admitsWeighted(previous, room, width, elapsed int64, exact bool) bool {
	if room < 0 {
		return false
	}
	weighted := previous * (width - elapsed)
	if exact {
		return weighted <= room*width
	}
	// weighted div width <= room, without the division: weighted >= 0.
	return weighted < (room+1)*width
}

// firstElapsed solves admitsWeighted for the smallest elapsed in
// [0, width] at which it holds, or returns width+1 when none does (room < 0).
// The weighted term falls as elapsed grows, so the admitting elapsed values
// form the interval [firstElapsed, width].
//
//	exact: previous*(width-e) <= room*width
//	       <=> width-e <= ⌊room*width/previous⌋
//	floor: ⌊previous*(width-e)/width⌋ <= room
//	       <=> previous*(width-e) <= (room+1)*width - 1
//	       <=> width-e <= ⌊((room+1)*width-1)/previous⌋
func firstElapsed(previous, room, width int64, exact bool) int64 {
	if room < 0 {
		return width + 1
	}
	if previous == 0 {
		return 0
	}
	bound := room * width
	if !exact {
		bound = (room+1)*width - 1
	}
	e := width - bound/previous
	if e < 0 {
		return 0
	}
	return e
}

// retryAt is the first instant after a refusal at start+elapsed at which the
// same request is admitted, if nothing else arrives: later in this window,
// in the next one (previous = today's current, current = 0) or at the start
// of the one after, where both counts are zero and any cost <= limit passes.
//
// The solution depends only on the counts and the cost, which a refusal
// does not change, so the last one is remembered: a key refused again and
// again, the case a limiter must be fastest at, then costs no division.
// (retryAt is small enough to inline; the solving is in solveRetry.)
func (s *slidingCounterPolicy) retryAt(start, previous, current, cost int64) int64 {
	m := &s.lastRetry
	if m.previous != previous || m.current != current || m.cost != cost {
		s.solveRetry(previous, current, cost)
	}
	return start + m.offset
}

// retrySolution is a solved request for its counts and cost. first is the
// smallest elapsed at which it is admitted in this window (width or more
// when none is): the admitting elapsed values are [first, width], so
// admits(elapsed) is elapsed >= first. offset is the retry from the window
// start after a refusal, which happened at an elapsed below first. Its zero
// value solves nothing: cost is never 0.
type retrySolution struct {
	previous, current, cost int64
	first, offset           int64
}

func (s *slidingCounterPolicy) solveRetry(previous, current, cost int64) {
	w := s.p.WindowMs
	m := retrySolution{previous: previous, current: current, cost: cost}
	m.first = firstElapsed(previous, s.p.Limit-current-cost, w, s.exact)
	switch e := firstElapsed(current, s.p.Limit-cost, w, s.exact); {
	case m.first < w:
		m.offset = m.first
	case e < w:
		m.offset = w + e
	default:
		m.offset = 2 * w
	}
	s.lastRetry = m
}

// Decide implements Policy, filling its named result field by field (see
// fixedWindowPolicy.Decide).
func (s *slidingCounterPolicy) Decide(key Key, now, cost int64) (d Decision) {
	ps := s.keys.atHome(key)
	if ps == nil {
		ps = s.keys.find(key)
	}
	if ps != nil {
		s.decideOn(ps, now, cost, &d)
		return d
	}
	var st slidingCounterState
	if s.decideOn(&st, now, cost, &d) {
		*s.keys.insert(key) = st
	}
	return d
}

// decideOn is Decide on one key's state, shared with the concurrent form
// (see fixedWindowPolicy.decideOn). It uses s.window and s.lastRetry.
func (s *slidingCounterPolicy) decideOn(st *slidingCounterState, now, cost int64, d *Decision) bool {
	now = clampTime(now)
	at, late := decideAt(now, st.latest)
	start, previous, current := s.view(*st, at)
	elapsed := at - start
	est, carried := s.estimate(previous, current, elapsed)
	d.At, d.Late = at, late
	d.Estimate = est
	d.Capacity, d.Cost = s.p.Limit, cost
	d.Terms.WindowStart, d.Terms.Elapsed = start, elapsed
	d.Terms.Previous, d.Terms.Current, d.Terms.Carried = previous, current, carried
	if neverFits(cost, s.p.Limit) {
		d.Never = true // and changes nothing
		return false
	}
	if s.admits(previous, current, elapsed, cost) {
		d.Allowed = true
		current += cost
	} else {
		d.RetryAfterMs = s.retryAt(start, previous, current, cost) - now
	}
	*st = slidingCounterState{latest: at, previous: previous, current: current}
	return true
}

// Allow implements Policy: Decide's arithmetic, without the explanation.
func (s *slidingCounterPolicy) Allow(key Key, now, cost int64) Verdict {
	if neverFits(cost, s.p.Limit) {
		return Verdict{Never: true}
	}
	st := s.keys.atHome(key)
	if st == nil {
		st = s.keys.insert(key)
	}
	now = clampTime(now)
	at, _ := decideAt(now, st.latest)
	start, previous, current := s.view(*st, at)
	elapsed := at - start
	// A remembered solution for these counts and cost answers both the
	// admission test (elapsed >= first) and the retry: a key refused again
	// and again multiplies and divides nothing. retryAt, written out: the
	// compiler does not inline it. A solution not remembered is found in a
	// call whose result is returned as it is, so no value lives across it
	// and the remembered path saves nothing to the stack.
	if m := &s.lastRetry; m.previous == previous && m.current == current && m.cost == cost {
		if elapsed < m.first {
			*st = slidingCounterState{latest: at, previous: previous, current: current}
			return Verdict{RetryAfterMs: start + m.offset - now}
		}
	} else if !s.admits(previous, current, elapsed, cost) {
		*st = slidingCounterState{latest: at, previous: previous, current: current}
		return s.refuseSolving(start, previous, current, cost, now)
	}
	*st = slidingCounterState{latest: at, previous: previous, current: current + cost}
	return Verdict{Allowed: true}
}

// refuseSolving is Allow's refusal when the retry is not remembered.
//
//go:noinline
func (s *slidingCounterPolicy) refuseSolving(start, previous, current, cost, now int64) Verdict {
	return Verdict{RetryAfterMs: s.retryAt(start, previous, current, cost) - now}
}

// Peek implements Policy.
func (s *slidingCounterPolicy) Peek(key Key, now int64) Fraction {
	return s.peekOn(s.keys.get(key), now)
}

func (s *slidingCounterPolicy) peekOn(st slidingCounterState, now int64) Fraction {
	at, _ := decideAt(clampTime(now), st.latest)
	start, previous, current := s.view(st, at)
	est, _ := s.estimate(previous, current, at-start)
	return est
}

// Snapshot implements Policy.
func (s *slidingCounterPolicy) Snapshot(key Key, now int64) State {
	return s.snapshotOn(s.keys.get(key), now)
}

func (s *slidingCounterPolicy) snapshotOn(st slidingCounterState, now int64) State {
	at, _ := decideAt(clampTime(now), st.latest)
	start, previous, current := s.view(st, at)
	est, _ := s.estimate(previous, current, at-start)
	return State{Estimate: est, Capacity: s.p.Limit, WindowStart: start, Previous: previous, Current: current}
}

// Stats implements Policy: three integers per key.
func (s *slidingCounterPolicy) Stats() Stats {
	st := slidingCounterStats(s.keys.len())
	st.HeapBytes = s.keys.heapBytes()
	return st
}

// slidingCounterStats is Stats of keys keys, without the heap.
func slidingCounterStats(keys int) Stats {
	return Stats{Keys: keys, Entries: 3 * int64(keys), BytesPerKey: int64(unsafe.Sizeof(slidingCounterState{}))}
}

func (s *slidingCounterPolicy) clone() Policy {
	c := *s
	c.keys = s.keys.clone()
	return &c
}

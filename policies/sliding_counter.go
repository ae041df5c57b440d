package policies

import "unsafe"

// SlidingCounter is the policy's name in scenarios, URLs and JSON.
const SlidingCounter = "sliding-counter"

// slidingCounterTag marks the policy's terms in a Terms.
var slidingCounterTag = termsTag(SlidingCounter)

var slidingCounterInfo = Info{
	Name: SlidingCounter, Human: "sliding counter", Options: []Option{ArithmeticOption}, Windows: true,
	Words: []string{"counter"},
	make:  func(p Params) Policy { return newSlidingCounter(p) },
	rule:  func(p Policy) KeyRule { pol := p.(*slidingCounterPolicy); return newSlidingCounterRule(pol.p) },
}

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
	p      Params
	exact  bool
	keys   keyTable[slidingCounterState]
	window windowClock
	// lastRefusal is the last refusal solved, which the next ones usually
	// repeat (see retryAt and Allow).
	lastRefusal refusal
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
	start = s.window.startOf(at)
	previous, current = s.countsIn(st, start)
	return start, previous, current
}

// countsIn is the previous and current counts in the window starting at
// start, which holds an instant at or after st.latest.
func (s *slidingCounterPolicy) countsIn(st slidingCounterState, start int64) (previous, current int64) {
	switch { // latest <= at: in at's window, the one before, or older
	case st.latest >= start:
		return st.previous, st.current
	case st.latest >= start-s.p.WindowMs:
		return st.current, 0
	}
	return 0, 0
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
// The solution depends only on the window, the counts and the cost, which a
// refusal does not change, so the last one is remembered: a key refused
// again and again, the case a limiter must be fastest at, then costs no
// division.
func (s *slidingCounterPolicy) retryAt(start, previous, current, cost int64) int64 {
	if r := &s.lastRefusal; r.start != start || r.previous != previous || r.current != current || r.cost != cost {
		return s.solveRefusal(start, previous, current, cost)
	}
	return s.lastRefusal.retryAt
}

// refusal is a solved refusal: a request of cost against previous and
// current in the window at start is refused at every instant in
// [start, until) and, if nothing else arrives, admitted again at retryAt.
// until is at most the window's end, so an instant before it is in the
// same window, and at most MaxTime+1 (MaxTime's window may end after it),
// so such an instant needs no clamping. The zero value matches no request:
// an instant before its until, 0, is before every key's latest instant.
type refusal struct {
	start, until            int64
	previous, current, cost int64
	retryAt                 int64
}

// solveRefusal solves a refusal, remembers it and returns its retryAt.
// The admitting elapsed values in this window are [first, width] (first is
// width or more when there are none), so the refusal holds until
// start+first; the next window is solved only when this one has no
// admitting instant, so the common case costs one division, not two.
//
//go:noinline
func (s *slidingCounterPolicy) solveRefusal(start, previous, current, cost int64) int64 {
	w := s.p.WindowMs
	first := firstElapsed(previous, s.p.Limit-current-cost, w, s.exact)
	retryAt := start + first
	if first >= w {
		retryAt = start + 2*w
		if e := firstElapsed(current, s.p.Limit-cost, w, s.exact); e < w {
			retryAt = start + w + e
		}
	}
	// Field by field: a composite literal is built on the stack and copied
	// 16 bytes at a time, and those loads wait for the 8-byte stores before
	// them (store forwarding fails), which perf showed as half this call.
	r := &s.lastRefusal
	r.start, r.until = start, min(start+min(first, w), MaxTime+1)
	r.previous, r.current, r.cost = previous, current, cost
	r.retryAt = retryAt
	return retryAt
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
// (see fixedWindowPolicy.decideOn). It uses s.window and s.lastRefusal.
func (s *slidingCounterPolicy) decideOn(st *slidingCounterState, now, cost int64, d *Decision) bool {
	now = clampTime(now)
	at, late := decideAt(now, st.latest)
	start, previous, current := s.view(*st, at)
	elapsed := at - start
	est, carried := s.estimate(previous, current, elapsed)
	d.At, d.Late = at, late
	d.Estimate = est
	d.Capacity, d.Cost = s.p.Limit, cost
	SlidingCounterTerms{WindowStart: start, Elapsed: elapsed, Previous: previous, Current: current, Carried: carried}.fill(&d.Terms)
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
	st := s.keys.atHome(key)
	// A key refused again and again, the case a limiter must be fastest at,
	// is answered by the refusal before it: same counts, same cost, same
	// window, still before the first admitting instant. That takes no
	// window arithmetic and stores only the new latest instant, which does
	// not depend on the one loaded (now >= latest is a branch, not a
	// select), so consecutive refusals do not wait on each other's store.
	// A remembered cost passed neverFits, and a now that passes is in
	// [0, MaxTime] (latest >= 0, until <= MaxTime+1), so both checks can
	// come after.
	if r := &s.lastRefusal; st != nil && now < r.until && r.start <= st.latest && st.latest <= now &&
		st.previous == r.previous && st.current == r.current && cost == r.cost {
		st.latest = now
		return Verdict{RetryAfterMs: r.retryAt - now}
	}
	if neverFits(cost, s.p.Limit) {
		return Verdict{Never: true} // and adds no key
	}
	now = clampTime(now)
	if st == nil {
		st = s.keys.insert(key)
	}
	at, _ := decideAt(now, st.latest)
	start, previous, current := s.view(*st, at)
	if !s.admits(previous, current, at-start, cost) {
		*st = slidingCounterState{latest: at, previous: previous, current: current}
		return Verdict{RetryAfterMs: s.solveRefusal(start, previous, current, cost) - now}
	}
	*st = slidingCounterState{latest: at, previous: previous, current: current + cost}
	return Verdict{Allowed: true}
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
	return State{Estimate: est, Capacity: s.p.Limit, Held: SlidingCounterHeld{WindowStart: start, Previous: previous, Current: current}}
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

// SlidingCounterTerms are the numbers a sliding-counter decision was
// computed from.
type SlidingCounterTerms struct {
	WindowStart int64    // aligned start of the current window
	Elapsed     int64    // ms since WindowStart
	Previous    int64    // the previous window's count
	Current     int64    // the current window's count
	Carried     Fraction // the part of Previous still counted
}

// fill writes the terms into *d, which is zero (each decideOn fills a zero
// Decision): only the tag and the words used are stored, in place, which
// costs a decision less than building a Terms and copying it.
func (t SlidingCounterTerms) fill(d *Terms) {
	d.tag = slidingCounterTag
	d.w[0], d.w[1], d.w[2], d.w[3], d.w[4], d.w[5] = t.WindowStart, t.Elapsed, t.Previous, t.Current, t.Carried.Num, t.Carried.Den
}

// SlidingCounter reads a sliding-counter decision's terms (zero for another
// policy's).
func (t Terms) SlidingCounter() SlidingCounterTerms {
	w := t.termsOf(slidingCounterTag)
	return SlidingCounterTerms{WindowStart: w[0], Elapsed: w[1], Previous: w[2], Current: w[3], Carried: Fraction{w[4], w[5]}}
}

// SlidingCounterHeld is what sliding-counter holds for a key: its current
// window and the counts of that window and the one before.
type SlidingCounterHeld struct {
	WindowStart int64
	Previous    int64
	Current     int64
}

// Policy implements Held.
func (SlidingCounterHeld) Policy() string { return SlidingCounter }

// Absorb implements Absorber. A request at or after the key's latest
// instant moves the key there, as Decide does, and counts in the current
// window. An earlier one counts in the window it arrived in, if the key
// still holds it: in current when it is the latest instant's window, in
// previous when it is the one before, where it weighs exactly as the
// previous window's own requests do. Older ones are dropped, exactly: no
// decision from the latest instant on weighs a window two back.
//
// Both counts saturate at 2^61/windowMs (see windowCountCap): a saturated
// current refuses as the true one would, and a saturated previous could
// weigh less than the true one only near the end of a window longer than
// about 25 minutes, after more than 10^12 permits were absorbed into it.
func (s *slidingCounterPolicy) Absorb(key Key, at, cost int64) {
	if neverFits(cost, s.p.Limit) {
		return
	}
	at = clampTime(at)
	limit := windowCountCap(s.p.WindowMs)
	st := s.keys.insert(key)
	if at >= st.latest {
		_, previous, current := s.view(*st, at)
		*st = slidingCounterState{latest: at, previous: previous, current: min(current+cost, limit)}
		return
	}
	switch latest := s.window.startOf(st.latest); s.window.startOf(at) {
	case latest:
		st.current = min(st.current+cost, limit)
	case latest - s.p.WindowMs:
		st.previous = min(st.previous+cost, limit)
	}
}

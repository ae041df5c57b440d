package policies

import "unsafe"

// SlidingCounter is the policy's name in scenarios, URLs and JSON.
const SlidingCounter = "sliding-counter"

// slidingCounterTag marks the policy's terms in a Terms.
var slidingCounterTag = termsTag(SlidingCounter)

var slidingCounterInfo = Info{
	Name: SlidingCounter, Human: "sliding counter", Options: []Option{ArithmeticOption}, Windows: true,
	Words: []string{"counter"},
	make: func(p Params) Local {
		return &slidingCounterPolicy{keyed: *newKeyed(newSlidingCounterRule(p)), window: newWindowClock(p.WindowMs)}
	},
}

// slidingCounterPolicy is the policy New builds: keyed, with an Allow of
// its own that finds the window with a clock of its own, calls the rule's
// countsIn and admits itself, and remembers the last refusal solved.
// Through keyed's Allow, which calls the rule through a dictionary and
// inlines none of it, with the rule's shared clock and solving every
// refusal, the hot key cost measurably more
// (BenchmarkDecide/hot/sliding-counter-floor.Allow); TestRuleCopiesAgree
// holds this Allow to the rule's Decide.
type slidingCounterPolicy struct {
	keyed[slidingCounterState, *SlidingCounterRule]
	window windowClock
	// lastRefusal is the last refusal solved, which the next ones usually
	// repeat.
	lastRefusal refusal
}

// Allow implements Policy.
func (p *slidingCounterPolicy) Allow(key Key, now, cost int64) Verdict {
	st := p.keys.atHome(key)
	// A key refused again and again, the case a limiter must be fastest at,
	// is answered by the refusal before it: same counts, same cost, same
	// window, still before the first admitting instant. That takes no
	// window arithmetic and stores only the new latest instant, which does
	// not depend on the one loaded (now >= latest is a branch, not a
	// select), so consecutive refusals do not wait on each other's store.
	// A remembered cost passed Never, and a now that passes is in
	// [0, MaxTime] (latest >= 0, until <= MaxTime+1), so both checks can
	// come after.
	if r := &p.lastRefusal; st != nil && now < r.until && r.start <= st.latest && st.latest <= now &&
		st.previous == r.previous && st.current == r.current && cost == r.cost {
		st.latest = now
		return Verdict{RetryAfterMs: r.retryAt - now}
	}
	if p.r.Never(cost) {
		return Verdict{Never: true} // and adds no key
	}
	now = clampTime(now)
	if st == nil {
		st = p.add(key)
	}
	at, _ := decideAt(now, st.latest)
	start := p.window.startOf(at)
	previous, current := p.r.countsIn(*st, start)
	if !p.r.admits(previous, current, at-start, cost) {
		*st = slidingCounterState{latest: at, previous: previous, current: current}
		return Verdict{RetryAfterMs: p.r.solveRefusal(&p.lastRefusal, start, previous, current, cost) - now}
	}
	*st = slidingCounterState{latest: at, previous: previous, current: current + cost}
	return Verdict{Allowed: true}
}

// Clone implements Local.
func (p *slidingCounterPolicy) Clone() Local {
	return &slidingCounterPolicy{*p.cloneKeyed(), p.window, p.lastRefusal}
}

// SlidingCounterRule is sliding-counter (vectors: testdata/sliding-counter-*.json):
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
type SlidingCounterRule struct {
	flatState[slidingCounterState]
	p     Params
	exact bool
	clock *sharedClock
}

type slidingCounterState struct {
	latest   int64
	previous int64
	current  int64
}

// NewSlidingCounterRule is sliding-counter's rule, its parameters
// validated as New does.
func NewSlidingCounterRule(p Params) (*SlidingCounterRule, error) {
	return ruleOf(SlidingCounter, p, newSlidingCounterRule)
}

func newSlidingCounterRule(p Params) *SlidingCounterRule {
	return &SlidingCounterRule{p: p, exact: p.Arithmetic == Exact, clock: newSharedClock(p.WindowMs)}
}

// Name returns "sliding-counter".
func (s *SlidingCounterRule) Name() string { return SlidingCounter }

// Params returns the parameters, with Arithmetic "" reported as Floor.
func (s *SlidingCounterRule) Params() Params { return s.p }

// Never implements Rule: a cost above the limit.
func (s *SlidingCounterRule) Never(cost int64) bool { return neverFits(cost, s.p.Limit) }

// startOf is the start of at's window, from the rule's clock.
func (s *SlidingCounterRule) startOf(at int64) int64 {
	clock := s.clock.load()
	start := clock.startOf(at)
	s.clock.keep(clock)
	return start
}

// view moves the state to instant at >= st.latest and returns the window
// start with the two counts there.
func (s *SlidingCounterRule) view(st slidingCounterState, at int64) (start, previous, current int64) {
	start = s.startOf(at)
	previous, current = s.countsIn(st, start)
	return start, previous, current
}

// countsIn is the previous and current counts in the window starting at
// start, which holds an instant at or after st.latest.
func (s *SlidingCounterRule) countsIn(st slidingCounterState, start int64) (previous, current int64) {
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
func (s *SlidingCounterRule) estimate(previous, current, elapsed int64) (est, carried Fraction) {
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
func (s *SlidingCounterRule) admits(previous, current, elapsed, cost int64) bool {
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

// refusal is a solved refusal: a request of cost against previous and
// current in the window at start is refused at every instant in
// [start, until) and, if nothing else arrives, admitted again at retryAt:
// the first instant after it at which the same request is admitted, later
// in this window, in the next one (previous = today's current, current =
// 0) or at the start of the one after, where both counts are zero and any
// cost <= limit passes.
// until is at most the window's end, so an instant before it is in the
// same window, and at most MaxTime+1 (MaxTime's window may end after it),
// so such an instant needs no clamping. The zero value matches no request:
// an instant before its until, 0, is before every key's latest instant.
type refusal struct {
	start, until            int64
	previous, current, cost int64
	retryAt                 int64
}

// solveRefusal solves a refusal into *r and returns its retryAt.
// The admitting elapsed values in this window are [first, width] (first is
// width or more when there are none), so the refusal holds until
// start+first; the next window is solved only when this one has no
// admitting instant, so the common case costs one division, not two.
//
//go:noinline
func (s *SlidingCounterRule) solveRefusal(r *refusal, start, previous, current, cost int64) int64 {
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
	r.start, r.until = start, min(start+min(first, w), MaxTime+1)
	r.previous, r.current, r.cost = previous, current, cost
	r.retryAt = retryAt
	return retryAt
}

// Decide implements Rule, filling its named result field by field (see
// GCRARule.Decide).
func (s *SlidingCounterRule) Decide(st *slidingCounterState, now, cost int64) (d Decision) {
	s.decideOn(st, now, cost, &d)
	return d
}

// Unseen implements Rule.
func (s *SlidingCounterRule) Unseen(now, cost int64) Decision {
	var st slidingCounterState
	return s.Decide(&st, now, cost)
}

// decideOn fills *d, which must be zero, and reports whether it changed
// st: a request that can never be admitted changes nothing.
func (s *SlidingCounterRule) decideOn(st *slidingCounterState, now, cost int64, d *Decision) bool {
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
		var r refusal
		d.RetryAfterMs = s.solveRefusal(&r, start, previous, current, cost) - now
	}
	*st = slidingCounterState{latest: at, previous: previous, current: current}
	return true
}

// Allow implements Rule.
func (s *SlidingCounterRule) Allow(st *slidingCounterState, now, cost int64) Verdict {
	if s.Never(cost) {
		return Verdict{Never: true}
	}
	now = clampTime(now)
	at, _ := decideAt(now, st.latest)
	start, previous, current := s.view(*st, at)
	if !s.admits(previous, current, at-start, cost) {
		*st = slidingCounterState{latest: at, previous: previous, current: current}
		var r refusal
		return Verdict{RetryAfterMs: s.solveRefusal(&r, start, previous, current, cost) - now}
	}
	*st = slidingCounterState{latest: at, previous: previous, current: current + cost}
	return Verdict{Allowed: true}
}

// Peek implements Rule.
func (s *SlidingCounterRule) Peek(ps *slidingCounterState, now int64) Fraction {
	st := valueOrZero(ps)
	at, _ := decideAt(clampTime(now), st.latest)
	start, previous, current := s.view(st, at)
	est, _ := s.estimate(previous, current, at-start)
	return est
}

// Snapshot implements Rule.
func (s *SlidingCounterRule) Snapshot(ps *slidingCounterState, now int64) State {
	st := valueOrZero(ps)
	at, _ := decideAt(clampTime(now), st.latest)
	start, previous, current := s.view(st, at)
	est, _ := s.estimate(previous, current, at-start)
	return State{Estimate: est, Capacity: s.p.Limit, Held: SlidingCounterHeld{WindowStart: start, Previous: previous, Current: current}}
}

// Stats implements Rule: three integers per key.
func (*SlidingCounterRule) Stats(keys int) Stats {
	return Stats{Keys: keys, Entries: 3 * int64(keys), BytesPerKey: int64(unsafe.Sizeof(slidingCounterState{}))}
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

// Absorb implements Rule. A request at or after the key's latest
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
func (s *SlidingCounterRule) Absorb(st *slidingCounterState, at, cost int64) {
	if s.Never(cost) {
		return
	}
	at = clampTime(at)
	limit := windowCountCap(s.p.WindowMs)
	if at >= st.latest {
		_, previous, current := s.view(*st, at)
		*st = slidingCounterState{latest: at, previous: previous, current: min(current+cost, limit)}
		return
	}
	switch latest := s.startOf(st.latest); s.startOf(at) {
	case latest:
		st.current = min(st.current+cost, limit)
	case latest - s.p.WindowMs:
		st.previous = min(st.previous+cost, limit)
	}
}

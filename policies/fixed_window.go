package policies

import "unsafe"

// FixedWindow is the policy's name in scenarios, URLs and JSON.
const FixedWindow = "fixed-window"

// fixedWindowTag marks the policy's terms in a Terms.
var fixedWindowTag = termsTag(FixedWindow)

var fixedWindowInfo = Info{
	Name: FixedWindow, Human: "fixed window", Options: nil, Windows: true,
	Words: []string{"fixed"},
	make:  func(p Params) Policy { return newFixedWindow(p) },
	rule:  func(p Policy) KeyRule { pol := p.(*fixedWindowPolicy); return newFixedWindowRule(pol.p) },
}

// fixedWindowPolicy is fixed-window (vectors: testdata/fixed-window-edges.json): windows of
// windowMs aligned to the epoch (window = now - now mod windowMs), one count
// per key, reset at each window edge.
//
// A request is admitted when count + cost <= limit, so a cost of exactly the
// remaining budget passes. A cost above limit is refused with Never set and
// changes nothing. A refused request's RetryAfterMs is exact: the rest of the
// window.
//
// Late rule: a now earlier than the key's latest instant (the latest now any
// Decide saw for it) is decided at that latest instant; Decision.At and
// Decision.Late say so, and RetryAfterMs is still counted from the caller's
// now.
//
// Each key holds two integers: its latest instant (which also names its
// window) and the count. Keys are never forgotten.
type fixedWindowPolicy struct {
	p      Params
	keys   keyTable[fixedWindowState]
	window windowClock
}

type fixedWindowState struct {
	latest int64 // latest instant decided at; its window is the key's window
	count  int64 // permits admitted in that window
}

func newFixedWindow(p Params) *fixedWindowPolicy {
	return &fixedWindowPolicy{p: p, keys: newKeyTable[fixedWindowState](), window: newWindowClock(p.WindowMs)}
}

// Name returns "fixed-window".
func (f *fixedWindowPolicy) Name() string { return FixedWindow }

// Params returns the parameters the policy was built with.
func (f *fixedWindowPolicy) Params() Params { return f.p }

// view is the key's window start and count at instant at >= st.latest.
func (f *fixedWindowPolicy) view(st fixedWindowState, at int64) (start, count int64) {
	start = f.window.startOf(at)
	return start, st.countIn(start)
}

// countIn is the count in the window starting at start, which holds an
// instant at or after st.latest: the count if latest is in it, else 0.
func (st fixedWindowState) countIn(start int64) int64 {
	if st.latest >= start {
		return st.count
	}
	return 0
}

// Decide implements Policy. It fills its named result field by field: a
// Decision is too large for registers, and building one in a local first
// would zero and copy it twice.
func (f *fixedWindowPolicy) Decide(key Key, now, cost int64) (d Decision) {
	ps := f.keys.atHome(key)
	if ps == nil {
		ps = f.keys.find(key)
	}
	if ps != nil {
		f.decideOn(ps, now, cost, &d)
		return d
	}
	var st fixedWindowState
	if f.decideOn(&st, now, cost, &d) {
		*f.keys.insert(key) = st
	}
	return d
}

// decideOn is Decide on one key's state (the zero state for a key not yet
// seen), shared with the concurrent form. It fills *d, which must be zero,
// and reports whether it changed st: a request that can never be admitted
// changes nothing, so an unseen key stays unseen.
func (f *fixedWindowPolicy) decideOn(st *fixedWindowState, now, cost int64, d *Decision) bool {
	now = clampTime(now)
	at, late := decideAt(now, st.latest)
	start, count := f.view(*st, at)
	d.At, d.Late = at, late
	d.Estimate = Whole(count)
	d.Capacity, d.Cost = f.p.Limit, cost
	FixedWindowTerms{WindowStart: start, Elapsed: at - start, Count: count}.fill(&d.Terms)
	if neverFits(cost, f.p.Limit) {
		d.Never = true // and changes nothing
		return false
	}
	if count+cost <= f.p.Limit {
		d.Allowed = true
		count += cost
	} else {
		d.RetryAfterMs = start + f.p.WindowMs - now
	}
	*st = fixedWindowState{latest: at, count: count}
	return true
}

// Allow implements Policy: Decide's arithmetic, without the explanation.
func (f *fixedWindowPolicy) Allow(key Key, now, cost int64) Verdict {
	if neverFits(cost, f.p.Limit) {
		return Verdict{Never: true}
	}
	st := f.keys.atHome(key)
	if st == nil {
		st = f.keys.insert(key)
	}
	now = clampTime(now)
	at, _ := decideAt(now, st.latest)
	return f.allowIn(st, now, at, f.window.startOf(at), cost)
}

// allowIn is Allow on one key's state, for a request that fits, decided at
// instant at (now, or the key's latest) in the window starting at start.
// FixedWindowRule shares it, finding start with its own clock; it is small
// enough to be inlined into both.
func (f *fixedWindowPolicy) allowIn(st *fixedWindowState, now, at, start, cost int64) Verdict {
	count := st.countIn(start)
	if count+cost > f.p.Limit {
		*st = fixedWindowState{latest: at, count: count}
		return Verdict{RetryAfterMs: start + f.p.WindowMs - now}
	}
	*st = fixedWindowState{latest: at, count: count + cost}
	return Verdict{Allowed: true}
}

// Peek implements Policy: the count in the window at now (or at the key's
// latest instant when now is earlier).
func (f *fixedWindowPolicy) Peek(key Key, now int64) Fraction {
	return f.peekOn(f.keys.get(key), now)
}

func (f *fixedWindowPolicy) peekOn(st fixedWindowState, now int64) Fraction {
	at, _ := decideAt(clampTime(now), st.latest)
	_, count := f.view(st, at)
	return Whole(count)
}

// Snapshot implements Policy.
func (f *fixedWindowPolicy) Snapshot(key Key, now int64) State {
	return f.snapshotOn(f.keys.get(key), now)
}

func (f *fixedWindowPolicy) snapshotOn(st fixedWindowState, now int64) State {
	at, _ := decideAt(clampTime(now), st.latest)
	start, count := f.view(st, at)
	return State{Estimate: Whole(count), Capacity: f.p.Limit, Held: FixedWindowHeld{WindowStart: start, Count: count}}
}

// Stats implements Policy: two integers per key.
func (f *fixedWindowPolicy) Stats() Stats {
	s := fixedWindowStats(f.keys.len())
	s.HeapBytes = f.keys.heapBytes()
	return s
}

// fixedWindowStats is Stats of keys keys, without the heap.
func fixedWindowStats(keys int) Stats {
	return Stats{Keys: keys, Entries: 2 * int64(keys), BytesPerKey: int64(unsafe.Sizeof(fixedWindowState{}))}
}

func (f *fixedWindowPolicy) clone() Policy {
	return &fixedWindowPolicy{p: f.p, keys: f.keys.clone(), window: f.window}
}

// FixedWindowTerms are the numbers a fixed-window decision was computed
// from.
type FixedWindowTerms struct {
	WindowStart int64 // aligned start of the window decided in
	Elapsed     int64 // ms since WindowStart
	Count       int64 // permits the window held before the request
}

// fill writes the terms into *d, which is zero (each decideOn fills a zero
// Decision): only the tag and the words used are stored, in place, which
// costs a decision less than building a Terms and copying it.
func (t FixedWindowTerms) fill(d *Terms) {
	d.tag = fixedWindowTag
	d.w[0], d.w[1], d.w[2] = t.WindowStart, t.Elapsed, t.Count
}

// FixedWindow reads a fixed-window decision's terms (zero for another
// policy's).
func (t Terms) FixedWindow() FixedWindowTerms {
	w := t.termsOf(fixedWindowTag)
	return FixedWindowTerms{WindowStart: w[0], Elapsed: w[1], Count: w[2]}
}

// FixedWindowHeld is what fixed-window holds for a key: its window and
// count.
type FixedWindowHeld struct {
	WindowStart int64
	Count       int64
}

// Policy implements Held.
func (FixedWindowHeld) Policy() string { return FixedWindow }

// Absorb implements Absorber. A request at or after the key's latest
// instant moves the key there, as Decide does, and counts in that window. An
// earlier one counts only if it is in the key's window: a request in an
// earlier window is dropped, and that is exact, not an approximation, since
// every decision from the latest instant on (late ones included, which are
// decided at it) looks at the latest window or a later one, where a single
// server would not have counted it either.
func (f *fixedWindowPolicy) Absorb(key Key, at, cost int64) {
	if neverFits(cost, f.p.Limit) {
		return
	}
	at = clampTime(at)
	st := f.keys.insert(key)
	if at >= st.latest {
		_, count := f.view(*st, at)
		*st = fixedWindowState{latest: at, count: min(count+cost, countCap)}
		return
	}
	if f.window.startOf(at) == f.window.startOf(st.latest) {
		st.count = min(st.count+cost, countCap)
	}
}

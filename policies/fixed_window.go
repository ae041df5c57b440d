package policies

import "unsafe"

// FixedWindow is the policy's name in scenarios, URLs and JSON.
const FixedWindow = "fixed-window"

// fixedWindowTag marks the policy's terms in a Terms.
var fixedWindowTag = termsTag(FixedWindow)

var fixedWindowInfo = Info{
	Name: FixedWindow, Human: "fixed window", Options: nil, Windows: true,
	Words: []string{"fixed"},
	make:  func(p Params) Local { return newFixedWindowPolicy(p) },
}

// fixedWindowPolicy is the policy New builds: keyed, with an Allow of its
// own that calls the rule's allowIn itself, finding the window with a clock
// of its own rather than the rule's shared one. Through keyed's Allow,
// which calls the rule through a dictionary and inlines none of it, and
// with the shared clock, the hot key cost measurably more
// (BenchmarkDecide/hot/fixed-window.Allow); TestRuleCopiesAgree holds this
// Allow to the rule's Decide.
type fixedWindowPolicy struct {
	keyed[fixedWindowState, *FixedWindowRule]
	window windowClock
}

func newFixedWindowPolicy(p Params) *fixedWindowPolicy {
	return &fixedWindowPolicy{*newKeyed(newFixedWindowRule(p)), newWindowClock(p.WindowMs)}
}

// Allow implements Policy.
func (p *fixedWindowPolicy) Allow(key Key, now, cost int64) Verdict {
	if p.r.Never(cost) {
		return Verdict{Never: true} // and adds nothing, like Decide
	}
	st := p.keys.atHome(key)
	if st == nil {
		st = p.add(key)
	}
	now = clampTime(now)
	at, _ := decideAt(now, st.latest)
	return p.r.allowIn(st, now, at, p.window.startOf(at), cost)
}

// Clone implements Local.
func (p *fixedWindowPolicy) Clone() Local { return &fixedWindowPolicy{*p.cloneKeyed(), p.window} }

// FixedWindowRule is fixed-window (vectors: testdata/fixed-window-edges.json): windows of
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
type FixedWindowRule struct {
	flatState[fixedWindowState]
	p     Params
	clock *sharedClock
}

type fixedWindowState struct {
	latest int64 // latest instant decided at; its window is the key's window
	count  int64 // permits admitted in that window
}

// NewFixedWindowRule is fixed-window's rule, its parameters validated as
// New does.
func NewFixedWindowRule(p Params) (*FixedWindowRule, error) {
	return ruleOf(FixedWindow, p, newFixedWindowRule)
}

func newFixedWindowRule(p Params) *FixedWindowRule {
	return &FixedWindowRule{p: p, clock: newSharedClock(p.WindowMs)}
}

// Name returns "fixed-window".
func (f *FixedWindowRule) Name() string { return FixedWindow }

// Params returns the parameters the policy was built with.
func (f *FixedWindowRule) Params() Params { return f.p }

// Never implements Rule: a cost above the limit.
func (f *FixedWindowRule) Never(cost int64) bool { return neverFits(cost, f.p.Limit) }

// startOf is the start of at's window, from the rule's clock.
func (f *FixedWindowRule) startOf(at int64) int64 {
	clock := f.clock.load()
	start := clock.startOf(at)
	f.clock.keep(clock)
	return start
}

// countIn is the count in the window starting at start, which holds an
// instant at or after st.latest: the count if latest is in it, else 0.
func (st fixedWindowState) countIn(start int64) int64 {
	if st.latest >= start {
		return st.count
	}
	return 0
}

// Decide implements Rule. It fills its named result field by field: a
// Decision is too large for registers, and building one in a local first
// would zero and copy it twice.
func (f *FixedWindowRule) Decide(st *fixedWindowState, now, cost int64) (d Decision) {
	f.decideOn(st, now, cost, &d)
	return d
}

// Unseen implements Rule.
func (f *FixedWindowRule) Unseen(now, cost int64) Decision {
	var st fixedWindowState
	return f.Decide(&st, now, cost)
}

// decideOn fills *d, which must be zero, and reports whether it changed
// st: a request that can never be admitted changes nothing, so an unseen
// key stays unseen.
func (f *FixedWindowRule) decideOn(st *fixedWindowState, now, cost int64, d *Decision) bool {
	now = clampTime(now)
	at, late := decideAt(now, st.latest)
	start := f.startOf(at)
	count := st.countIn(start)
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

// Allow implements Rule.
func (f *FixedWindowRule) Allow(st *fixedWindowState, now, cost int64) Verdict {
	if f.Never(cost) {
		return Verdict{Never: true}
	}
	now = clampTime(now)
	at, _ := decideAt(now, st.latest)
	return f.allowIn(st, now, at, f.startOf(at), cost)
}

// allowIn is Allow on one key's state, for a request that fits, decided at
// instant at (now, or the key's latest) in the window starting at start.
// fixedWindowPolicy's Allow shares it, finding start with its own clock; it
// is small enough to be inlined into both.
func (f *FixedWindowRule) allowIn(st *fixedWindowState, now, at, start, cost int64) Verdict {
	count := st.countIn(start)
	if count+cost > f.p.Limit {
		*st = fixedWindowState{latest: at, count: count}
		return Verdict{RetryAfterMs: start + f.p.WindowMs - now}
	}
	*st = fixedWindowState{latest: at, count: count + cost}
	return Verdict{Allowed: true}
}

// Peek implements Rule: the count in the window at now (or at the key's
// latest instant when now is earlier).
func (f *FixedWindowRule) Peek(ps *fixedWindowState, now int64) Fraction {
	st := valueOrZero(ps)
	at, _ := decideAt(clampTime(now), st.latest)
	return Whole(st.countIn(f.startOf(at)))
}

// Snapshot implements Rule.
func (f *FixedWindowRule) Snapshot(ps *fixedWindowState, now int64) State {
	st := valueOrZero(ps)
	at, _ := decideAt(clampTime(now), st.latest)
	start := f.startOf(at)
	count := st.countIn(start)
	return State{Estimate: Whole(count), Capacity: f.p.Limit, Held: FixedWindowHeld{WindowStart: start, Count: count}}
}

// Stats implements Rule: two integers per key.
func (*FixedWindowRule) Stats(keys int) Stats {
	return Stats{Keys: keys, Entries: 2 * int64(keys), BytesPerKey: int64(unsafe.Sizeof(fixedWindowState{}))}
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

// Absorb implements Rule. A request at or after the key's latest
// instant moves the key there, as Decide does, and counts in that window. An
// earlier one counts only if it is in the key's window: a request in an
// earlier window is dropped, and that is exact, not an approximation, since
// every decision from the latest instant on (late ones included, which are
// decided at it) looks at the latest window or a later one, where a single
// server would not have counted it either.
func (f *FixedWindowRule) Absorb(st *fixedWindowState, at, cost int64) {
	if f.Never(cost) {
		return
	}
	at = clampTime(at)
	if at >= st.latest {
		count := st.countIn(f.startOf(at))
		*st = fixedWindowState{latest: at, count: min(count+cost, countCap)}
		return
	}
	if f.startOf(at) == f.startOf(st.latest) {
		st.count = min(st.count+cost, countCap)
	}
}

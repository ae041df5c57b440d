package policies

import "unsafe"

// GCRA is the policy's name in scenarios, URLs and JSON.
const GCRA = "gcra"

// gcraTag marks the policy's terms in a Terms.
var gcraTag = termsTag(GCRA)

var gcraInfo = Info{
	Name: GCRA, Human: "GCRA", Options: []Option{BurstOption}, Refills: true,
	make: func(p Params) Local { return &gcraPolicy{*newKeyed(newGCRARule(p))} },
}

// gcraPolicy is the policy New builds: keyed, with Allow calling the
// rule's allowOn itself. Through keyed's own Allow, which calls the rule through a
// dictionary and inlines none of it, the hot key cost measurably more
// (BenchmarkDecide/hot/gcra.Allow); TestRuleCopiesAgree holds this Allow to the rule's Decide.
type gcraPolicy struct {
	keyed[gcraState, *GCRARule]
}

// Allow implements Policy.
func (p *gcraPolicy) Allow(key Key, now, cost int64) Verdict {
	if p.r.Never(cost) {
		return Verdict{Never: true} // and adds nothing, like Decide
	}
	st := p.keys.atHome(key)
	if st == nil {
		st = p.add(key)
	}
	return p.r.allowOn(st, clampTime(now), cost)
}

// Clone implements Local.
func (p *gcraPolicy) Clone() Local { return &gcraPolicy{*p.cloneKeyed()} }

// GCRARule is the generic cell rate algorithm: each key keeps its
// theoretical arrival time (TAT), the instant at which its bucket would be
// full again. Permits are emitted every windowMs/limit ms with a tolerance
// of Burst permits (Burst 0 means Limit).
//
// To keep the emission interval windowMs/limit exact, time is scaled by
// limit: one unit is 1/limit ms, so the interval is windowMs units and the
// capacity burst*windowMs units. With T = at*limit, a request of cost is
// admitted iff max(TAT, T) + cost*windowMs - T <= burst*windowMs, and TAT
// then becomes max(TAT, T) + cost*windowMs. max(TAT, T) - T is exactly
// token-bucket's deficit, so the two decide identically with the same
// parameters; Estimate is the same permits-in-use Fraction (denominator
// windowMs). RetryAfterMs is exact and minimal. A cost above burst is refused
// with Never set and changes nothing.
//
// Late rule: a now earlier than instants the key has already seen is decided
// at its own now, with no clamping and no memory of the latest instant. The
// TAT only ever moves forward, so an earlier now finds no more room than a
// later one would: stepping back in time can only refuse more, never admit
// more. That is why one integer per key is enough, and why gcra and
// token-bucket (which clamps a late now to its latest instant) agree on
// forward traffic but not on late requests. Late is never set. Keys are never
// forgotten.
type GCRARule struct {
	flatState[gcraState]
	p        Params
	capacity int64 // burst*windowMs units of 1/limit ms
}

// gcraState is the TAT in units of 1/limit ms; 0 for an unseen key (a full
// bucket).
type gcraState struct {
	tat int64
}

// NewGCRARule is gcra's rule, its parameters validated as New does.
func NewGCRARule(p Params) (*GCRARule, error) { return ruleOf(GCRA, p, newGCRARule) }

func newGCRARule(p Params) *GCRARule { return &GCRARule{p: p, capacity: p.Burst * p.WindowMs} }

// Name returns "gcra".
func (g *GCRARule) Name() string { return GCRA }

// Params returns the parameters, with Burst 0 reported as Limit.
func (g *GCRARule) Params() Params { return g.p }

// Never implements Rule: a cost above the burst.
func (g *GCRARule) Never(cost int64) bool { return neverFits(cost, g.p.Burst) }

// Decide implements Rule, filling its named result field by field: a
// Decision is too large for registers, and building one in a local first
// would zero and copy it twice.
func (g *GCRARule) Decide(st *gcraState, now, cost int64) (d Decision) {
	g.decideOn(st, now, cost, &d)
	return d
}

// Unseen implements Rule.
func (g *GCRARule) Unseen(now, cost int64) Decision {
	var st gcraState
	return g.Decide(&st, now, cost)
}

// decideOn fills *d, which must be zero, and reports whether it changed
// st: a request that can never be admitted changes nothing.
func (g *GCRARule) decideOn(st *gcraState, now, cost int64, d *Decision) bool {
	now = clampTime(now)
	t := now * g.p.Limit
	tat := max(st.tat, t)
	d.At = now
	d.Estimate = Fraction{tat - t, g.p.WindowMs}
	d.Capacity, d.Cost = g.p.Burst, cost
	GCRATerms{TAT: Fraction{tat, g.p.Limit}}.fill(&d.Terms)
	if neverFits(cost, g.p.Burst) {
		d.Never = true // and changes nothing
		return false
	}
	next := tat + cost*g.p.WindowMs
	if next-t <= g.capacity {
		d.Allowed = true
		tat = next
	} else {
		// The first T' with next - T' <= capacity, in whole ms.
		d.RetryAfterMs = ceilDiv(next-g.capacity, g.p.Limit) - now
	}
	*st = gcraState{tat: tat}
	return true
}

// Allow implements Rule.
func (g *GCRARule) Allow(st *gcraState, now, cost int64) Verdict {
	if g.Never(cost) {
		return Verdict{Never: true}
	}
	return g.allowOn(st, clampTime(now), cost)
}

// allowOn is Allow for a request that fits and a now already clamped,
// small enough to be inlined into gcraPolicy's Allow too (the clamp, left
// to the callers, is what makes it so).
func (g *GCRARule) allowOn(st *gcraState, now, cost int64) Verdict {
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

// Peek implements Rule: permits in use at now, (max(TAT, T) - T)/windowMs.
func (g *GCRARule) Peek(ps *gcraState, now int64) Fraction {
	st := valueOrZero(ps)
	t := clampTime(now) * g.p.Limit
	return Fraction{max(st.tat, t) - t, g.p.WindowMs}
}

// Snapshot implements Rule: TAT is in ms, never earlier than the instant
// described (an idle key's TAT is now).
func (g *GCRARule) Snapshot(ps *gcraState, now int64) State {
	st := valueOrZero(ps)
	t := clampTime(now) * g.p.Limit
	tat := max(st.tat, t)
	return State{Estimate: Fraction{tat - t, g.p.WindowMs}, Capacity: g.p.Burst, Held: GCRAHeld{TAT: Fraction{tat, g.p.Limit}}}
}

// Stats implements Rule: one integer, the TAT, per key.
func (*GCRARule) Stats(keys int) Stats {
	return Stats{Keys: keys, Entries: int64(keys), BytesPerKey: int64(unsafe.Sizeof(gcraState{}))}
}

// GCRATerms are the numbers a gcra decision was computed from.
type GCRATerms struct {
	TAT Fraction // theoretical arrival time in ms, before the request
}

// fill writes the terms into *d, which is zero (each decideOn fills a zero
// Decision): only the tag and the words used are stored, in place, which
// costs a decision less than building a Terms and copying it.
func (t GCRATerms) fill(d *Terms) {
	d.tag = gcraTag
	d.w[0], d.w[1] = t.TAT.Num, t.TAT.Den
}

// GCRA reads a gcra decision's terms (zero for another policy's).
func (t Terms) GCRA() GCRATerms {
	w := t.termsOf(gcraTag)
	return GCRATerms{TAT: Fraction{w[0], w[1]}}
}

// GCRAHeld is what gcra holds for a key: its theoretical arrival time, in
// ms, never earlier than the instant described.
type GCRAHeld struct {
	TAT Fraction
}

// Policy implements Held.
func (GCRAHeld) Policy() string { return GCRA }

// Absorb implements Rule: TAT = max(TAT, at) + cost, the update of a
// Decide at at that admits, applied whether or not the request fits and
// whenever it arrives. For an at earlier than instants already applied it
// is the upper bound of the in-order TAT: with a request of cost d at b
// applied first and the late one of cost c at a <= b after it,
// max(max(TAT, b)+d, a) + c is never below the in-order
// max(max(TAT, a)+c, b) + d, the reordered sum charging the late cost in
// full where in order part of it might have fallen into an idle gap. So a
// late report never admits more than the report on time would have.
//
// The TAT saturates at lineCap, which changes no decision up to MaxTime.
func (g *GCRARule) Absorb(st *gcraState, at, cost int64) {
	if g.Never(cost) {
		return
	}
	tat := max(st.tat, clampTime(at)*g.p.Limit) + cost*g.p.WindowMs
	st.tat = min(tat, lineCap(g.p.Limit, g.capacity))
}

package policies

import "unsafe"

// LeakyBucket is the policy's name in scenarios, URLs and JSON.
const LeakyBucket = "leaky-bucket"

// leakyBucketTag marks the policy's terms in a Terms.
var leakyBucketTag = termsTag(LeakyBucket)

var leakyBucketInfo = Info{
	Name: LeakyBucket, Human: "leaky bucket", Options: []Option{BurstOption, DelayOption}, Refills: true,
	Words: []string{"leaky", "queue"},
	make:  func(p Params) Local { return newKeyed(newLeakyBucketRule(p)) },
}

// LeakyBucketRule is the leaky bucket as a queue, with the semantics of
// nginx's limit_req (vectors: testdata/leaky-bucket-queue.json): the bucket
// drains at Limit permits per windowMs; a request that finds room waits in
// it until the permits ahead of it have drained, and only a request that
// finds the queue full is refused. Burst is the queue's length (0 means
// Limit, NoQueue none: limit_req without burst) and Delay how many excess permits pass at once (0: every excess
// request waits; NoDelay, or Delay = Burst: none does, and the bucket is a
// meter, gcra with a burst one larger).
//
// nginx keeps per key an excess and the instant it was last updated; a
// request at an instant elapsed ms later makes it
//
//	excess' = max(0, excess - rate*elapsed + 1)
//
// refuses the request if excess' > burst (leaving the key as it was), and
// otherwise delays it by (excess' - delay)/rate when excess' > delay. A new
// key starts at excess' = 0: the first request passes at once. This policy
// keeps the same per key in the form level = excess + 1, the permits in the
// bucket counting the one at its head being served, which drains to 0
// rather than to -1. That form takes a cost of more than one permit as that
// many requests at one instant:
//
//	level' = max(0, level - rate*elapsed) + cost    (Estimate is the first term)
//	excess' = level' - 1
//
// so a request is admitted iff Estimate + cost <= burst + 1 (Capacity),
// burst + 1 permits pass at one instant (one served, burst queued), and a
// cost above burst + 1 is refused with Never set and changes nothing.
//
// The arithmetic is in integers, in units of 1/windowMs of a permit, as
// token-bucket's: the bucket drains limit units per ms, so no drain is ever
// rounded. DelayMs is exact, rounded up to the next whole ms: the first
// whole ms after At at which the excess above Delay has drained,
// ⌈(level'*windowMs - (1+delay)*windowMs)/limit⌉ (0 when that is not
// positive). RetryAfterMs is exact and minimal: the first whole ms at which
// the same request would find room (and be queued),
// ⌈(level*windowMs + cost*windowMs - capacity)/limit⌉ after At, counted
// from the caller's now.
//
// Late rule: a now earlier than the key's latest instant is decided at that
// latest instant, as nginx does when its clock steps back (it drains
// nothing); Decision.At and Decision.Late say so, DelayMs is counted from
// At and RetryAfterMs from the caller's now. Keys are never forgotten.
type LeakyBucketRule struct {
	flatState[leakyBucketState]
	p        Params
	capacity int64 // (burst+1)*windowMs units
	free     int64 // (delay+1)*windowMs units: a level at most this waits for nothing
}

// leakyBucketState is the zero state for an unseen key: an empty bucket.
type leakyBucketState struct {
	latest int64 // instant the level was computed at
	level  int64 // units in the bucket at latest
}

// NewLeakyBucketRule is leaky-bucket's rule, its parameters validated as
// New does.
func NewLeakyBucketRule(p Params) (*LeakyBucketRule, error) {
	return ruleOf(LeakyBucket, p, newLeakyBucketRule)
}

func newLeakyBucketRule(p Params) *LeakyBucketRule {
	return &LeakyBucketRule{p: p, capacity: (p.Queue() + 1) * p.WindowMs, free: (p.Delay + 1) * p.WindowMs}
}

// Name returns "leaky-bucket".
func (l *LeakyBucketRule) Name() string { return LeakyBucket }

// Params returns the parameters, with Burst 0 reported as Limit and NoDelay
// as Burst.
func (l *LeakyBucketRule) Params() Params { return l.p }

// Never implements Rule: a cost above burst + 1.
func (l *LeakyBucketRule) Never(cost int64) bool { return neverFits(cost, l.p.Queue()+1) }

// level is the units in the bucket at instant at >= st.latest.
func (l *LeakyBucketRule) level(st leakyBucketState, at int64) int64 {
	return max(0, st.level-l.p.Limit*(at-st.latest))
}

// delayOf is the wait, in whole ms rounded up, of a request that leaves
// the bucket at level units.
func (l *LeakyBucketRule) delayOf(level int64) int64 {
	if over := level - l.free; over > 0 {
		return ceilDiv(over, l.p.Limit)
	}
	return 0
}

// Decide implements Rule, filling its named result field by field (see
// GCRARule.Decide).
func (l *LeakyBucketRule) Decide(st *leakyBucketState, now, cost int64) (d Decision) {
	l.decideOn(st, now, cost, &d)
	return d
}

// Unseen implements Rule.
func (l *LeakyBucketRule) Unseen(now, cost int64) Decision {
	var st leakyBucketState
	return l.Decide(&st, now, cost)
}

// decideOn fills *d, which must be zero, and reports whether it changed
// st. A refusal leaves st as it was.
func (l *LeakyBucketRule) decideOn(st *leakyBucketState, now, cost int64, d *Decision) bool {
	now = clampTime(now)
	at, late := decideAt(now, st.latest)
	level := l.level(*st, at)
	w := l.p.WindowMs
	d.At, d.Late = at, late
	d.Estimate = Fraction{level, w}
	d.Capacity, d.Cost = l.p.Queue()+1, cost
	LeakyBucketTerms{Elapsed: at - st.latest, Drained: Fraction{st.level - level, w}}.fill(&d.Terms)
	if neverFits(cost, l.p.Queue()+1) {
		d.Never = true // and changes nothing
		return false
	}
	next := level + cost*w
	if next > l.capacity {
		d.RetryAfterMs = at + ceilDiv(next-l.capacity, l.p.Limit) - now
		return false
	}
	d.Allowed = true
	d.DelayMs = l.delayOf(next)
	*st = leakyBucketState{latest: at, level: next}
	return true
}

// Allow implements Rule.
func (l *LeakyBucketRule) Allow(st *leakyBucketState, now, cost int64) Verdict {
	if l.Never(cost) {
		return Verdict{Never: true}
	}
	now = clampTime(now)
	at, _ := decideAt(now, st.latest)
	next := l.level(*st, at) + cost*l.p.WindowMs
	if next > l.capacity {
		return Verdict{RetryAfterMs: at + ceilDiv(next-l.capacity, l.p.Limit) - now}
	}
	*st = leakyBucketState{latest: at, level: next}
	return Verdict{Allowed: true, DelayMs: l.delayOf(next)}
}

// Peek implements Rule: the permits in the bucket at now (at the key's
// latest instant when now is earlier), the one being served included.
func (l *LeakyBucketRule) Peek(ps *leakyBucketState, now int64) Fraction {
	st := valueOrZero(ps)
	at, _ := decideAt(clampTime(now), st.latest)
	return Fraction{l.level(st, at), l.p.WindowMs}
}

// Snapshot implements Rule: the level, against burst + 1, and the
// permits queued behind the one being served.
func (l *LeakyBucketRule) Snapshot(st *leakyBucketState, now int64) State {
	level := l.Peek(st, now)
	queued := Fraction{max(level.Num-level.Den, 0), level.Den}
	return State{Estimate: level, Capacity: l.p.Queue() + 1, Held: LeakyBucketHeld{Queued: queued}}
}

// Stats implements Rule: two integers per key.
func (*LeakyBucketRule) Stats(keys int) Stats {
	return Stats{Keys: keys, Entries: 2 * int64(keys), BytesPerKey: int64(unsafe.Sizeof(leakyBucketState{}))}
}

// LeakyBucketTerms are the numbers a leaky-bucket decision was computed
// from, besides its Estimate (the level after draining).
type LeakyBucketTerms struct {
	Elapsed int64    // ms since the key was last updated (0 for a new key)
	Drained Fraction // permits drained in those ms, at most what the bucket held
}

// fill writes the terms into *d, which is zero (see GCRATerms.fill).
func (t LeakyBucketTerms) fill(d *Terms) {
	d.tag = leakyBucketTag
	d.w[0], d.w[1], d.w[2] = t.Elapsed, t.Drained.Num, t.Drained.Den
}

// LeakyBucket reads a leaky-bucket decision's terms (zero for another
// policy's).
func (t Terms) LeakyBucket() LeakyBucketTerms {
	w := t.termsOf(leakyBucketTag)
	return LeakyBucketTerms{Elapsed: w[0], Drained: Fraction{w[1], w[2]}}
}

// LeakyBucketHeld is what leaky-bucket holds for a key beyond its level:
// the permits queued behind the one being served.
type LeakyBucketHeld struct {
	Queued Fraction
}

// Policy implements Held.
func (LeakyBucketHeld) Policy() string { return LeakyBucket }

// Absorb implements Rule: the level rises by cost at max(at, latest),
// after draining to that instant, as an admitting Decide there would
// leave it, whether or not the request fits. A late report is charged in
// full at the key's latest instant, where in order part of it might have
// drained away: the upper bound, so a late report never admits more than
// one on time would have (as token-bucket and gcra absorb).
//
// The level saturates MaxLimit windows of permits above the capacity,
// which keeps the arithmetic inside int64 and changes no decision a
// caller can wait for.
func (l *LeakyBucketRule) Absorb(st *leakyBucketState, at, cost int64) {
	if l.Never(cost) {
		return
	}
	at, _ = decideAt(clampTime(at), st.latest)
	level := l.level(*st, at) + cost*l.p.WindowMs
	*st = leakyBucketState{latest: at, level: min(level, l.capacity+MaxLimit*l.p.WindowMs)}
}

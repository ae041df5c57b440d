package policies

import "unsafe"

// LeakyBucket is the policy's name in scenarios, URLs and JSON.
const LeakyBucket = "leaky-bucket"

// leakyBucketTag marks the policy's terms in a Terms.
var leakyBucketTag = termsTag(LeakyBucket)

var leakyBucketInfo = Info{
	Name: LeakyBucket, Human: "leaky bucket", Options: []Option{BurstOption, DelayOption},
	Words: []string{"leaky", "queue"},
	make:  func(p Params) Policy { return newLeakyBucket(p) },
	rule:  func(p Policy) KeyRule { pol := p.(*leakyBucketPolicy); return &LeakyBucketRule{pol} },
}

// leakyBucketPolicy is the leaky bucket as a queue, with the semantics of
// nginx's limit_req (vectors: testdata/leaky-bucket-queue.json): the bucket
// drains at Limit permits per windowMs; a request that finds room waits in
// it until the permits ahead of it have drained, and only a request that
// finds the queue full is refused. Burst is the queue's length (0 means
// Limit) and Delay how many excess permits pass at once (0: every excess
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
type leakyBucketPolicy struct {
	p        Params
	capacity int64 // (burst+1)*windowMs units
	free     int64 // (delay+1)*windowMs units: a level at most this waits for nothing
	keys     keyTable[leakyBucketState]
}

// leakyBucketState is the zero state for an unseen key: an empty bucket.
type leakyBucketState struct {
	latest int64 // instant the level was computed at
	level  int64 // units in the bucket at latest
}

// newLeakyBucket builds the policy from normalised parameters.
func newLeakyBucket(p Params) *leakyBucketPolicy {
	return &leakyBucketPolicy{
		p:        p,
		capacity: (p.Burst + 1) * p.WindowMs,
		free:     (p.Delay + 1) * p.WindowMs,
		keys:     newKeyTable[leakyBucketState](),
	}
}

// Name returns "leaky-bucket".
func (l *leakyBucketPolicy) Name() string { return LeakyBucket }

// Params returns the parameters, with Burst 0 reported as Limit and NoDelay
// as Burst.
func (l *leakyBucketPolicy) Params() Params { return l.p }

// level is the units in the bucket at instant at >= st.latest.
func (l *leakyBucketPolicy) level(st leakyBucketState, at int64) int64 {
	return max(0, st.level-l.p.Limit*(at-st.latest))
}

// delayOf is the wait, in whole ms rounded up, of a request that leaves
// the bucket at level units.
func (l *leakyBucketPolicy) delayOf(level int64) int64 {
	if over := level - l.free; over > 0 {
		return ceilDiv(over, l.p.Limit)
	}
	return 0
}

// Decide implements Policy, filling its named result field by field (see
// fixedWindowPolicy.Decide).
func (l *leakyBucketPolicy) Decide(key Key, now, cost int64) (d Decision) {
	ps := l.keys.atHome(key)
	if ps == nil {
		ps = l.keys.find(key)
	}
	if ps != nil {
		l.decideOn(ps, now, cost, &d)
		return d
	}
	var st leakyBucketState
	if l.decideOn(&st, now, cost, &d) {
		*l.keys.insert(key) = st
	}
	return d
}

// decideOn is Decide on one key's state, shared with the concurrent form
// (see fixedWindowPolicy.decideOn). A refusal leaves st as it was.
func (l *leakyBucketPolicy) decideOn(st *leakyBucketState, now, cost int64, d *Decision) bool {
	now = clampTime(now)
	at, late := decideAt(now, st.latest)
	level := l.level(*st, at)
	w := l.p.WindowMs
	d.At, d.Late = at, late
	d.Estimate = Fraction{level, w}
	d.Capacity, d.Cost = l.p.Burst+1, cost
	LeakyBucketTerms{Elapsed: at - st.latest, Drained: Fraction{st.level - level, w}}.fill(&d.Terms)
	if neverFits(cost, l.p.Burst+1) {
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

// Allow implements Policy: Decide's arithmetic, without the explanation.
func (l *leakyBucketPolicy) Allow(key Key, now, cost int64) Verdict {
	if neverFits(cost, l.p.Burst+1) {
		return Verdict{Never: true}
	}
	st := l.keys.atHome(key)
	if st == nil {
		st = l.keys.insert(key)
	}
	return l.allowOn(st, now, cost)
}

func (l *leakyBucketPolicy) allowOn(st *leakyBucketState, now, cost int64) Verdict {
	now = clampTime(now)
	at, _ := decideAt(now, st.latest)
	next := l.level(*st, at) + cost*l.p.WindowMs
	if next > l.capacity {
		return Verdict{RetryAfterMs: at + ceilDiv(next-l.capacity, l.p.Limit) - now}
	}
	*st = leakyBucketState{latest: at, level: next}
	return Verdict{Allowed: true, DelayMs: l.delayOf(next)}
}

// Peek implements Policy: the permits in the bucket at now (at the key's
// latest instant when now is earlier), the one being served included.
func (l *leakyBucketPolicy) Peek(key Key, now int64) Fraction { return l.peekOn(l.keys.get(key), now) }

func (l *leakyBucketPolicy) peekOn(st leakyBucketState, now int64) Fraction {
	at, _ := decideAt(clampTime(now), st.latest)
	return Fraction{l.level(st, at), l.p.WindowMs}
}

// Snapshot implements Policy: the level, against burst + 1, and the
// permits queued behind the one being served.
func (l *leakyBucketPolicy) Snapshot(key Key, now int64) State {
	return l.snapshotOn(l.keys.get(key), now)
}

func (l *leakyBucketPolicy) snapshotOn(st leakyBucketState, now int64) State {
	level := l.peekOn(st, now)
	queued := Fraction{max(level.Num-level.Den, 0), level.Den}
	return State{Estimate: level, Capacity: l.p.Burst + 1, Held: LeakyBucketHeld{Queued: queued}}
}

// Stats implements Policy: two integers per key.
func (l *leakyBucketPolicy) Stats() Stats {
	s := leakyBucketStats(l.keys.len())
	s.HeapBytes = l.keys.heapBytes()
	return s
}

// leakyBucketStats is Stats of keys keys, without the heap.
func leakyBucketStats(keys int) Stats {
	return Stats{Keys: keys, Entries: 2 * int64(keys), BytesPerKey: int64(unsafe.Sizeof(leakyBucketState{}))}
}

func (l *leakyBucketPolicy) clone() Policy {
	c := *l
	c.keys = l.keys.clone()
	return &c
}

// LeakyBucketRule is leaky-bucket's KeyRule. It shares a policy value:
// leaky-bucket keeps no cache, so its calls write nothing but the key's
// state.
type LeakyBucketRule struct{ l *leakyBucketPolicy }

func (k *LeakyBucketRule) Decide(st *leakyBucketState, now, cost int64) (d Decision) {
	k.l.decideOn(st, now, cost, &d)
	return d
}

func (k *LeakyBucketRule) Allow(st *leakyBucketState, now, cost int64) Verdict {
	if k.Never(cost) {
		return Verdict{Never: true}
	}
	return k.l.allowOn(st, now, cost)
}

func (k *LeakyBucketRule) Never(cost int64) bool { return neverFits(cost, k.l.p.Burst+1) }

func (k *LeakyBucketRule) Unseen(now, cost int64) Decision {
	var st leakyBucketState
	return k.Decide(&st, now, cost)
}

func (k *LeakyBucketRule) Peek(st *leakyBucketState, now int64) Fraction {
	return k.l.peekOn(valueOrZero(st), now)
}

func (k *LeakyBucketRule) Snapshot(st *leakyBucketState, now int64) State {
	return k.l.snapshotOn(valueOrZero(st), now)
}

func (*LeakyBucketRule) Stats(keys int) Stats           { return leakyBucketStats(keys) }
func (*LeakyBucketRule) RingLen() int64                 { return 0 }
func (*LeakyBucketRule) Fresh([]int64) leakyBucketState { return leakyBucketState{} }
func (k *LeakyBucketRule) Params() Params               { return k.l.p }
func (*LeakyBucketRule) Name() string                   { return LeakyBucket }
func (*LeakyBucketRule) keyRule()                       {}

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

// Absorb implements Absorber: the level rises by cost at max(at, latest),
// after draining to that instant, as an admitting Decide there would
// leave it, whether or not the request fits. A late report is charged in
// full at the key's latest instant, where in order part of it might have
// drained away: the upper bound, so a late report never admits more than
// one on time would have (as token-bucket and gcra absorb).
//
// The level saturates MaxLimit windows of permits above the capacity,
// which keeps the arithmetic inside int64 and changes no decision a
// caller can wait for.
func (l *leakyBucketPolicy) Absorb(key Key, at, cost int64) {
	if neverFits(cost, l.p.Burst+1) {
		return
	}
	st := l.keys.insert(key)
	at, _ = decideAt(clampTime(at), st.latest)
	level := l.level(*st, at) + cost*l.p.WindowMs
	*st = leakyBucketState{latest: at, level: min(level, l.capacity+MaxLimit*l.p.WindowMs)}
}

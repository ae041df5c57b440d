package policies

import "unsafe"

// SteppedBucket is the policy's name in scenarios, URLs and JSON.
const SteppedBucket = "stepped-bucket"

// steppedBucketTag marks the policy's terms in a Terms.
var steppedBucketTag = termsTag(SteppedBucket)

var steppedBucketInfo = Info{
	Name: SteppedBucket, Human: "stepped token bucket", Options: []Option{BurstOption}, Refills: true,
	Words: []string{"stepped", "envoy"},
	make:  func(p Params) Local { return newKeyed(newSteppedBucketRule(p)) },
}

// SteppedBucketRule is the token bucket Envoy's local rate limit runs
// (vectors: testdata/stepped-bucket-edges.json): a bucket of Burst tokens
// (Envoy's max_tokens; 0 means Limit) that starts full and is refilled in
// steps, Limit whole tokens (tokens_per_fill) at each edge of windows of
// windowMs (fill_interval) aligned to the epoch, never past Burst. A
// request of cost takes cost tokens if the bucket holds them.
//
// Where token-bucket refills a little every millisecond, this one refills
// nothing between edges and a whole fill at each: a client that empties the
// bucket just before an edge can spend a fresh fill just after it, so
// Burst + Limit permits can pass within a millisecond of an edge (2 × Limit
// with the default burst), where token-bucket lets Burst and a trickle
// through. What it buys is arithmetic in whole tokens and one timer.
//
// Each key stores the tokens in use (Burst − tokens, 0 for a full bucket,
// so an unseen key is a full one) and its latest instant, whose window
// says how many fills have arrived since. Estimate is the tokens in use, a
// whole number, so like every other policy a request is admitted iff
// Estimate + cost <= Capacity (= Burst). RetryAfterMs is exact and minimal:
// the first edge whose fills cover the tokens missing. A cost above Burst
// is refused with Never set and changes nothing.
//
// Late rule: a now earlier than the key's latest instant is decided at that
// latest instant (Decision.At, Decision.Late); RetryAfterMs is counted from
// the caller's now. Keys are never forgotten.
type SteppedBucketRule struct {
	flatState[steppedBucketState]
	p     Params
	clock *sharedClock
}

type steppedBucketState struct {
	latest int64 // latest instant decided at; its window is the last fill counted
	used   int64 // tokens in use after the fills up to latest's window
}

// NewSteppedBucketRule is stepped-bucket's rule, its parameters validated
// as New does.
func NewSteppedBucketRule(p Params) (*SteppedBucketRule, error) {
	return ruleOf(SteppedBucket, p, newSteppedBucketRule)
}

func newSteppedBucketRule(p Params) *SteppedBucketRule {
	return &SteppedBucketRule{p: p, clock: newSharedClock(p.WindowMs)}
}

// Name returns "stepped-bucket".
func (b *SteppedBucketRule) Name() string { return SteppedBucket }

// Params returns the parameters, with Burst 0 reported as Limit.
func (b *SteppedBucketRule) Params() Params { return b.p }

// Never implements Rule: a cost above the burst.
func (b *SteppedBucketRule) Never(cost int64) bool { return neverFits(cost, b.p.Burst) }

// startOf is the start of at's window, the latest fill at or before at.
func (b *SteppedBucketRule) startOf(at int64) int64 {
	clock := b.clock.load()
	start := clock.startOf(at)
	b.clock.keep(clock)
	return start
}

// used is the tokens in use at an instant in the window starting at start
// (at or after st.latest's): st.used less the fills since st.latest's
// window, never below 0.
func (b *SteppedBucketRule) used(st steppedBucketState, start int64) int64 {
	if st.used == 0 || st.latest >= start {
		return st.used
	}
	// fills >= 1; fills × limit stays below 2^62 (MaxTime × MaxLimit).
	fills := (start - b.startOf(st.latest)) / b.p.WindowMs
	return max(0, st.used-fills*b.p.Limit)
}

// retryAt is the first edge, from the window starting at start, whose fills
// bring used down far enough for cost: ⌈(used + cost − burst)/limit⌉ fills
// after start.
func (b *SteppedBucketRule) retryAt(start, used, cost int64) int64 {
	return start + ceilDiv(used+cost-b.p.Burst, b.p.Limit)*b.p.WindowMs
}

// Decide implements Rule, filling its named result field by field (see
// GCRARule.Decide).
func (b *SteppedBucketRule) Decide(st *steppedBucketState, now, cost int64) (d Decision) {
	now = clampTime(now)
	at, late := decideAt(now, st.latest)
	start := b.startOf(at)
	used := b.used(*st, start)
	d.At, d.Late = at, late
	d.Estimate = Whole(used)
	d.Capacity, d.Cost = b.p.Burst, cost
	SteppedBucketTerms{Tokens: b.p.Burst - used, FillStart: start}.fill(&d.Terms)
	if b.Never(cost) {
		d.Never = true // and changes nothing
		return d
	}
	if used+cost <= b.p.Burst {
		d.Allowed = true
		used += cost
	} else {
		d.RetryAfterMs = b.retryAt(start, used, cost) - now
	}
	*st = steppedBucketState{latest: at, used: used}
	return d
}

// Allow implements Rule.
func (b *SteppedBucketRule) Allow(st *steppedBucketState, now, cost int64) Verdict {
	if b.Never(cost) {
		return Verdict{Never: true}
	}
	now = clampTime(now)
	at, _ := decideAt(now, st.latest)
	start := b.startOf(at)
	used := b.used(*st, start)
	if used+cost > b.p.Burst {
		*st = steppedBucketState{latest: at, used: used}
		return Verdict{RetryAfterMs: b.retryAt(start, used, cost) - now}
	}
	*st = steppedBucketState{latest: at, used: used + cost}
	return Verdict{Allowed: true}
}

// Unseen implements Rule.
func (b *SteppedBucketRule) Unseen(now, cost int64) Decision {
	var st steppedBucketState
	return b.Decide(&st, now, cost)
}

// Peek implements Rule: the tokens in use at now.
func (b *SteppedBucketRule) Peek(ps *steppedBucketState, now int64) Fraction {
	st := valueOrZero(ps)
	at, _ := decideAt(clampTime(now), st.latest)
	return Whole(b.used(st, b.startOf(at)))
}

// Snapshot implements Rule.
func (b *SteppedBucketRule) Snapshot(ps *steppedBucketState, now int64) State {
	st := valueOrZero(ps)
	at, _ := decideAt(clampTime(now), st.latest)
	start := b.startOf(at)
	used := b.used(st, start)
	return State{Estimate: Whole(used), Capacity: b.p.Burst,
		Held: SteppedBucketHeld{Tokens: b.p.Burst - used, NextFill: start + b.p.WindowMs}}
}

// Stats implements Rule: two integers per key.
func (*SteppedBucketRule) Stats(keys int) Stats {
	return Stats{Keys: keys, Entries: 2 * int64(keys), BytesPerKey: int64(unsafe.Sizeof(steppedBucketState{}))}
}

// Absorb implements Rule: the request is charged at max(at, latest), as
// the late rule decides, whether or not it fits. At or after the latest
// instant that is what Decide does. Earlier, the bucket cannot know whether
// a fill between at and latest would have spilled over the burst, and so
// taken part of the charge; charging the whole cost is the upper bound of
// the truth, so a report that comes late never admits more than the report
// on time would have (as token-bucket absorbs).
//
// The tokens in use saturate at lineCap, which refuses every request up to
// MaxTime: no number of fills by then covers it.
func (b *SteppedBucketRule) Absorb(st *steppedBucketState, at, cost int64) {
	if b.Never(cost) {
		return
	}
	at = max(clampTime(at), st.latest)
	used := b.used(*st, b.startOf(at)) + cost
	*st = steppedBucketState{latest: at, used: min(used, lineCap(b.p.Limit, b.p.Burst))}
}

// SteppedBucketTerms are the numbers a stepped-bucket decision was
// computed from.
type SteppedBucketTerms struct {
	Tokens    int64 // tokens in the bucket before the request
	FillStart int64 // the latest fill's edge, at or before the decision
}

// fill writes the terms into *d, which is zero (see GCRATerms.fill).
func (t SteppedBucketTerms) fill(d *Terms) {
	d.tag = steppedBucketTag
	d.w[0], d.w[1] = t.Tokens, t.FillStart
}

// SteppedBucket reads a stepped-bucket decision's terms (zero for another
// policy's).
func (t Terms) SteppedBucket() SteppedBucketTerms {
	w := t.termsOf(steppedBucketTag)
	return SteppedBucketTerms{Tokens: w[0], FillStart: w[1]}
}

// SteppedBucketHeld is what stepped-bucket holds for a key: its tokens,
// and the edge of the next fill.
type SteppedBucketHeld struct {
	Tokens   int64
	NextFill int64
}

// Policy implements Held.
func (SteppedBucketHeld) Policy() string { return SteppedBucket }

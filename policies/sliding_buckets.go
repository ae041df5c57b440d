package policies

import "unsafe"

// SlidingBuckets is the policy's name in scenarios, URLs and JSON.
const SlidingBuckets = "sliding-buckets"

// slidingBucketsTag marks the policy's terms in a Terms.
var slidingBucketsTag = termsTag(SlidingBuckets)

var slidingBucketsInfo = Info{
	Name: SlidingBuckets, Human: "sliding buckets", Options: []Option{BucketsOption},
	Words: []string{"buckets", "ring"},
	make:  func(p Params) Local { return newSlidingBucketsPolicy(p) },
}

// slidingBucketsPolicy is the policy New builds: keyed, with an Allow of
// its own that keeps one working value from call to call, its window
// clock and ring position included, rather than copying the rule's and
// publishing its clock every call. Through keyed's Allow, which calls the
// rule through a dictionary and inlines none of it, the hot key cost about
// twice as much (BenchmarkDecide/hot/sliding-buckets-k6.Allow);
// TestRuleCopiesAgree holds this Allow to the rule's Decide.
type slidingBucketsPolicy struct {
	keyed[slidingBucketsState, *SlidingBucketsRule]
	call bucketsCall
}

func newSlidingBucketsPolicy(p Params) *slidingBucketsPolicy {
	k := newKeyed(newSlidingBucketsRule(p))
	return &slidingBucketsPolicy{keyed: *k, call: k.r.base}
}

// Allow implements Policy.
func (p *slidingBucketsPolicy) Allow(key Key, now, cost int64) Verdict {
	if p.r.Never(cost) {
		return Verdict{Never: true} // and adds nothing, like Decide
	}
	st := p.keys.atHome(key)
	if st == nil {
		st = p.add(key)
	}
	c := &p.call
	c.recall(st)
	v := c.allowOn(st, p.r.ringOf(st), now, cost)
	c.keepRetry(st)
	return v
}

// Clone implements Local.
func (p *slidingBucketsPolicy) Clone() Local {
	return &slidingBucketsPolicy{*p.cloneKeyed(), p.call}
}

// SlidingBucketsRule is sliding-buckets (vectors: testdata/sliding-buckets-seed.json): each window of
// windowMs is split into k = Buckets sub-buckets of width b = windowMs/k,
// and each key keeps a ring of n = k+1 slot counters indexed by the absolute
// bucket number ⌊t/b⌋ mod n. The policy generalises the others: k = 1 is
// sliding-counter with Exact arithmetic, and as b shrinks it approaches
// sliding-log.
//
// Estimate at t, in bucket B with elapsed = t mod b: the slots of buckets
// B-k+1 … B count in full ("rest"), and the oldest slot, bucket B-k, is
// weighted by (b-elapsed)/b, its events assumed spread evenly over it. The
// estimate is the exact Fraction (rest*b + oldest*(b-elapsed))/b, denominator
// always b. A request is admitted iff estimate + cost <= limit, decided in
// integers as rest*b + oldest*(b-elapsed) + cost*b <= limit*b. A running
// total of the ring keeps the estimate O(1); moving to a newer bucket zeroes
// the slots that left, at most n of them however long the key was idle.
//
// Late rule (the seed's, tightened): a now whose bucket is older than the
// key's newest bucket is late. It is estimated at the start of the newest
// bucket (elapsed 0; the newest bucket never moves backwards), and Decision.At
// reports that instant. An admitted late request is counted in its own
// bucket. The seed also files late events into the oldest slot and drops
// events whose bucket has left the ring; a limiter cannot drop an admitted
// request, and counting one in the oldest slot would charge it at only a
// fraction of its cost, so replaying old timestamps could admit more than
// limit. Here, a late request whose bucket is the oldest slot or has left the
// ring is refused; when the estimate alone would have admitted it,
// RetryAfterMs runs to the start of bucket B-k+1, the oldest that counts in
// full. Every admitted request is therefore counted in full until its bucket
// becomes the oldest.
//
// RetryAfterMs walks at most k+1 bucket segments from the decision instant,
// solving the admission test in closed form inside each, and is minimal. It
// is counted from the caller's now. A cost above limit is refused with Never
// set and changes nothing.
//
// Memory: n slots of int64 per key plus the newest bucket and the running
// total, and the key's last refusal solved. Keys are never forgotten.
type SlidingBucketsRule struct {
	clock *sharedClock // of buckets
	// base is the working value each call copies, its parameters set
	// once: building it afresh in every call (and returning it) was a
	// third of a hot key's decision.
	base bucketsCall
}

// bucketsCall is one call's working value: the parameters, and caches, not
// state, each giving what a division would, so that a decision in the same
// bucket as the one before, and a refusal like the one before, divide
// nothing. A call keeps them on its own stack: shared, they would be a line
// every decision writes.
type bucketsCall struct {
	p     Params
	k, n  int64 // buckets per window, slots per key (k+1)
	width int64 // b, the bucket width in ms

	clock     windowClock // buckets of width
	lastPos   ringPos
	lastRetry bucketsRetry
}

// ringPos is pos(bucket), remembered.
type ringPos struct{ bucket, pos int64 }

// slidingBucketsState is a key's state: its ring of k+1 counts (held by
// its first element, the length being the rule's), and the key's last
// refusal solved, so that a key refused again and again, the case a
// limiter must be fastest at, walks no buckets. Kept per key, it is written
// only with the key's own state; it holds for the state it was solved in
// (newest bucket and total), and is dropped whenever a decision changes
// that state. The state is 40 bytes, so a concurrent table's slot stays 64.
type slidingBucketsState struct {
	newest    int64 // absolute index of the newest bucket seen
	total     int64 // sum of the ring's n slots
	ring      *int64
	retryAt   int64 // the remembered solution, from elapsed 0 in bucket newest
	retryCost int64 // its cost; 0 when nothing is remembered
}

// NewSlidingBucketsRule is sliding-buckets' rule, its parameters validated
// as New does.
func NewSlidingBucketsRule(p Params) (*SlidingBucketsRule, error) {
	return ruleOf(SlidingBuckets, p, newSlidingBucketsRule)
}

func newSlidingBucketsRule(p Params) *SlidingBucketsRule {
	width := p.WindowMs / p.Buckets
	return &SlidingBucketsRule{clock: newSharedClock(width),
		base: bucketsCall{p: p, k: p.Buckets, n: p.Buckets + 1, width: width, clock: newWindowClock(width)}}
}

// Name returns "sliding-buckets".
func (r *SlidingBucketsRule) Name() string { return SlidingBuckets }

// Params returns the parameters the policy was built with.
func (r *SlidingBucketsRule) Params() Params { return r.base.p }

// Never implements Rule: a cost above the limit.
func (r *SlidingBucketsRule) Never(cost int64) bool { return neverFits(cost, r.base.p.Limit) }

// RingLen implements Rule: k+1 counts per key.
func (r *SlidingBucketsRule) RingLen() int64 { return r.base.n }

// Fresh implements Rule.
func (r *SlidingBucketsRule) Fresh(ring []int64) slidingBucketsState {
	return slidingBucketsState{ring: &ring[:r.base.n][0]}
}

// Clone implements Rule.
func (r *SlidingBucketsRule) Clone(st *slidingBucketsState, ring []int64) slidingBucketsState {
	c := *st
	copy(ring, r.ringOf(st))
	c.ring = &ring[:r.base.n][0]
	return c
}

func (r *SlidingBucketsRule) ringOf(st *slidingBucketsState) []int64 {
	return unsafe.Slice(st.ring, r.base.n)
}

// call is the working value of one call on st: the window clock, and st's
// remembered refusal as its own last retry.
func (r *SlidingBucketsRule) call(st *slidingBucketsState) bucketsCall {
	c := r.base
	c.clock = r.clock.load()
	c.recall(st)
	return c
}

// remember keeps c's last retry in st (see keepRetry) and publishes c's
// window clock.
func (r *SlidingBucketsRule) remember(st *slidingBucketsState, c *bucketsCall) {
	r.clock.keep(c.clock)
	c.keepRetry(st)
}

// recall makes st's remembered refusal c's last retry.
func (c *bucketsCall) recall(st *slidingBucketsState) {
	c.lastRetry = bucketsRetry{}
	if st != nil && st.retryCost != 0 {
		c.lastRetry = bucketsRetry{newest: st.newest, total: st.total, cost: st.retryCost, at: st.retryAt}
	}
}

// keepRetry keeps c's last retry in st if it was solved for st as the
// decision left it, and forgets any other.
func (c *bucketsCall) keepRetry(st *slidingBucketsState) {
	if m := c.lastRetry; m.cost != 0 && m.newest == st.newest && m.total == st.total {
		st.retryAt, st.retryCost = m.at, m.cost
		return
	}
	st.retryCost = 0
}

// Decide implements Rule.
func (r *SlidingBucketsRule) Decide(st *slidingBucketsState, now, cost int64) (d Decision) {
	c := r.call(st)
	c.decideOn(st, r.ringOf(st), now, cost, &d)
	r.remember(st, &c)
	return d
}

// Allow implements Rule: Decide's arithmetic and change of state, without
// building the 168-byte explanation.
func (r *SlidingBucketsRule) Allow(st *slidingBucketsState, now, cost int64) Verdict {
	if r.Never(cost) {
		return Verdict{Never: true}
	}
	c := r.call(st)
	v := c.allowOn(st, r.ringOf(st), now, cost)
	r.remember(st, &c)
	return v
}

// Unseen implements Rule: the decision for a request that can never be
// admitted on a key never seen, which gets no ring for it.
func (r *SlidingBucketsRule) Unseen(now, cost int64) Decision {
	s := &r.base
	now = clampTime(now)
	d := Decision{At: now, Estimate: Fraction{0, s.width}, Capacity: s.p.Limit, Cost: cost}
	SlidingBucketsTerms{Elapsed: now % s.width, BucketMs: s.width, Carried: Fraction{0, s.width}}.fill(&d.Terms)
	return refusedNever(d)
}

// Peek implements Rule.
func (r *SlidingBucketsRule) Peek(st *slidingBucketsState, now int64) Fraction {
	if st == nil {
		return r.base.peekOn(nil, nil, now)
	}
	return r.base.peekOn(st, r.ringOf(st), now)
}

// Snapshot implements Rule: Slots lists the n slots oldest first (bucket
// b-k … b), the oldest with weight (width-elapsed)/width. Before the first
// window of the epoch the oldest starts are negative.
func (r *SlidingBucketsRule) Snapshot(st *slidingBucketsState, now int64) State {
	if st == nil {
		return r.base.snapshotOn(nil, nil, now)
	}
	return r.base.snapshotOn(st, r.ringOf(st), now)
}

// Stats implements Rule: k+1 slots per key plus the newest bucket, the
// running total, where the ring is and the remembered refusal.
func (r *SlidingBucketsRule) Stats(keys int) Stats {
	s := &r.base
	return Stats{Keys: keys, Entries: int64(keys) * (s.n + 2), BytesPerKey: s.n*8 + int64(unsafe.Sizeof(slidingBucketsState{}))}
}

// Absorb implements Rule: the request is counted in its own bucket,
// advancing the ring first if that bucket is newer (as Decide does), and
// dropped if its bucket has left the ring. That is the seed's raw add,
// record, which the late rule refuses to use for admitting (it would charge
// a late request at a fraction of its cost), but which is exact for a
// request that passed elsewhere at its own instant: in the oldest slot it
// weighs exactly as that bucket's own requests do, and a bucket that has
// left the ring weighs in no decision from the newest bucket on.
//
// The ring's total saturates at 2^61/bucket width (see windowCountCap); a
// request that would pass it is counted only up to it.
func (r *SlidingBucketsRule) Absorb(st *slidingBucketsState, at, cost int64) {
	if r.Never(cost) {
		return
	}
	c := r.call(st)
	ring := r.ringOf(st)
	own := clampTime(at) / c.width
	c.advance(st, ring, own)
	if add := min(cost, windowCountCap(c.width)-st.total); add > 0 {
		c.countIn(st, ring, own, add)
	}
	r.remember(st, &c)
}

// record is the seed's raw add: count events at now in their own bucket,
// advancing the ring first; a bucket that has left the ring is dropped. It
// checks no limit and exists so the seed's ring asserts can run as tests.
func (r *SlidingBucketsRule) record(st *slidingBucketsState, now, count int64) {
	c := r.call(st)
	ring := r.ringOf(st)
	own := clampTime(now) / c.width
	c.advance(st, ring, own)
	c.countIn(st, ring, own, count)
	r.remember(st, &c)
}

// pos is the ring position of absolute bucket x (which may be negative
// before the first window of the epoch).
func (s *bucketsCall) pos(x int64) int64 {
	return ((x % s.n) + s.n) % s.n
}

// posOf is pos(x), remembering the last answer: the buckets a key is
// decided in change every width ms, not every request.
func (s *bucketsCall) posOf(x int64) int64 {
	if x != s.lastPos.bucket {
		s.lastPos = ringPos{x, s.pos(x)}
	}
	return s.lastPos.pos
}

// advance moves the ring to bucket b > st.newest, zeroing the slots of the
// buckets that left: at most n, all of them (the common case for a key
// idle a window or more) without finding where the ring starts.
func (s *bucketsCall) advance(st *slidingBucketsState, ring []int64, b int64) {
	if b <= st.newest {
		return
	}
	if b-st.newest >= s.n {
		clear(ring)
		st.total = 0
		st.newest = b
		return
	}
	p := s.pos(st.newest)
	for range b - st.newest {
		if p++; p == s.n {
			p = 0
		}
		st.total -= ring[p]
		ring[p] = 0
	}
	st.newest = b
}

// view returns, without changing anything, the bucket the key is estimated
// in at now, the elapsed ms in it, the oldest slot and the rest.
func (s *bucketsCall) view(st slidingBucketsState, ring []int64, now int64) (b, elapsed, oldest, rest int64) {
	b = now / s.width
	if b < st.newest {
		b, elapsed = st.newest, 0
	} else {
		elapsed = now % s.width
	}
	// The slots of buckets newest-k … b-k leave (or, for b-k, become the
	// oldest); those above newest are empty.
	rest = st.total
	for x := st.newest - s.k; x <= min(b-s.k, st.newest); x++ {
		rest -= ring[s.pos(x)]
	}
	if b-s.k <= st.newest {
		oldest = ring[s.pos(b-s.k)]
	}
	return b, elapsed, oldest, rest
}

func (s *bucketsCall) estimate(oldest, rest, elapsed int64) (est, carried Fraction) {
	weighted := oldest * (s.width - elapsed)
	return Fraction{rest*s.width + weighted, s.width}, Fraction{weighted, s.width}
}

// decideOn is Decide on one key's state and ring, shared with the concurrent
// form. It fills *d, which must be zero, and changes nothing for a request
// that can never be admitted. It uses s.lastRetry.
func (s *bucketsCall) decideOn(st *slidingBucketsState, ring []int64, now, cost int64, d *Decision) {
	now = clampTime(now)
	own := now / s.width
	var b, elapsed, oldest, rest int64
	never := neverFits(cost, s.p.Limit)
	if never {
		b, elapsed, oldest, rest = s.view(*st, ring, now)
	} else {
		s.advance(st, ring, own)
		b = st.newest
		if own == b {
			elapsed = now % s.width
		}
		oldest = ring[(b+1)%s.n] // bucket b-k
		rest = st.total - oldest
	}
	est, carried := s.estimate(oldest, rest, elapsed)
	*d = Decision{
		At: b*s.width + elapsed, Late: own < b,
		Estimate: est,
		Capacity: s.p.Limit,
		Cost:     cost,
	}
	SlidingBucketsTerms{Elapsed: elapsed, Oldest: oldest, Rest: rest, Carried: carried, BucketMs: s.width}.fill(&d.Terms)
	if never {
		*d = refusedNever(*d)
		return
	}
	fits := admitsWeighted(oldest, s.p.Limit-rest-cost, s.width, elapsed, true)
	switch {
	case fits && own > b-s.k:
		// Its own bucket counts in full (a late request's included).
		d.Allowed = true
		ring[s.pos(own)] += cost
		st.total += cost
	case fits:
		// Refused only because its bucket no longer counts in full: the
		// first instant whose bucket does (b-k+1, itself late or not) is
		// estimated exactly like this one and admits.
		d.RetryAfterMs = (b-s.k+1)*s.width - now
	default:
		d.RetryAfterMs = s.retry(st, ring, elapsed, oldest, rest, cost) - now
	}
}

// retryAt walks the buckets b, b+1, … b+k from elapsed in bucket b, with
// nothing else arriving, and returns the first instant at which a request of
// cost is admitted. In bucket b+j the oldest slot is bucket b-k+j and the
// rest are buckets b-k+j+1 … b; inside each bucket the weighted term only
// falls, so firstElapsed solves it. From bucket b+k+1 the ring is empty.
func (s *bucketsCall) retryAt(ring []int64, b, elapsed, oldest, rest, cost int64) int64 {
	for j := int64(0); j <= s.k; j++ {
		if e := firstElapsed(oldest, s.p.Limit-rest-cost, s.width, true); e < s.width {
			if j == 0 {
				e = max(e, elapsed)
			}
			return (b+j)*s.width + e
		}
		if j < s.k {
			oldest = ring[s.pos(b-s.k+j+1)]
			rest -= oldest
		}
	}
	return (b + s.k + 1) * s.width
}

// retry is retryAt, remembering the last solution. It depends on the ring's
// contents, which are fixed by the ring, its newest bucket and its total:
// within one newest bucket the total only grows, with each admission. So a
// key refused again and again in one bucket, the case a limiter must be
// fastest at, walks no buckets and divides nothing.
func (s *bucketsCall) retry(st *slidingBucketsState, ring []int64, elapsed, oldest, rest, cost int64) int64 {
	m := &s.lastRetry
	b := st.newest
	if m.newest != b || m.total != st.total || m.cost != cost {
		// Solved from elapsed 0, so the answer holds for any elapsed in b.
		at := s.retryAt(ring, b, 0, oldest, rest, cost)
		*m = bucketsRetry{newest: b, total: st.total, cost: cost, at: at}
	}
	if m.at < (b+1)*s.width { // inside bucket b: not before now
		return max(m.at, b*s.width+elapsed)
	}
	return m.at
}

// bucketsRetry is a solved retry for one ring's contents and a cost. Its
// zero value solves nothing: cost is never 0.
type bucketsRetry struct {
	newest, total, cost int64
	at                  int64 // retryAt from elapsed 0 in bucket newest
}

// allowOn is Allow on one key's state and ring, for a request that fits
// (cost in [1, limit]), shared with the concurrent form. It uses s.clock,
// s.lastPos and s.lastRetry.
func (s *bucketsCall) allowOn(st *slidingBucketsState, ring []int64, now, cost int64) Verdict {
	now = clampTime(now)
	own, elapsed := s.clock.split(now)
	if own-st.newest >= s.n {
		// The whole ring has left: the key is empty and the request, which
		// fits the limit, is admitted. Writing the ring without reading it
		// spares an idle key (most keys, at 1e6 of them) a stall on the
		// ring's cache miss.
		clear(ring)
		ring[s.posOf(own)] = cost
		st.newest, st.total = own, cost
		return Verdict{Allowed: true}
	}
	s.advance(st, ring, own)
	b := st.newest
	if own != b {
		elapsed = 0
	}
	pb := s.posOf(b)
	po := pb + 1 // bucket b-k = b+1 - n
	if po == s.n {
		po = 0
	}
	oldest := ring[po]
	rest := st.total - oldest
	fits := admitsWeighted(oldest, s.p.Limit-rest-cost, s.width, elapsed, true)
	switch {
	case fits && own == b:
		ring[pb] += cost
		st.total += cost
		return Verdict{Allowed: true}
	case fits && own > b-s.k:
		ring[s.pos(own)] += cost
		st.total += cost
		return Verdict{Allowed: true}
	case fits:
		return Verdict{RetryAfterMs: (b-s.k+1)*s.width - now}
	}
	return Verdict{RetryAfterMs: s.retry(st, ring, elapsed, oldest, rest, cost) - now}
}

// countIn adds count to bucket own of an advanced ring, unless that bucket
// has left it.
func (s *bucketsCall) countIn(st *slidingBucketsState, ring []int64, own, count int64) {
	s.lastRetry = bucketsRetry{} // a count may be anything here, so the total no longer names the contents
	if st.newest-own < s.n {
		ring[s.pos(own)] += count
		st.total += count
	}
}

// peekOn is Peek of one key's state and ring; st nil is a key never seen.
func (s *bucketsCall) peekOn(st *slidingBucketsState, ring []int64, now int64) Fraction {
	if st == nil {
		return Fraction{0, s.width}
	}
	_, elapsed, oldest, rest := s.view(*st, ring, clampTime(now))
	est, _ := s.estimate(oldest, rest, elapsed)
	return est
}

// snapshotOn is Snapshot of one key's state and ring; st nil is a key never
// seen.
func (s *bucketsCall) snapshotOn(ps *slidingBucketsState, keyRing []int64, now int64) State {
	now = clampTime(now)
	var st slidingBucketsState
	ring := make([]int64, s.n)
	if ps != nil {
		st = *ps
		copy(ring, keyRing)
	}
	b, elapsed, oldest, rest := s.view(st, ring, now)
	est, _ := s.estimate(oldest, rest, elapsed)
	held := SlidingBucketsHeld{Slots: make([]Slot, 0, s.n)}
	for x := b - s.k; x <= b; x++ {
		slot := Slot{Start: x * s.width, Weight: Whole(1)}
		if x <= st.newest {
			slot.Count = ring[s.pos(x)]
		}
		if x == b-s.k {
			slot.Weight = Fraction{s.width - elapsed, s.width}
		}
		held.Slots = append(held.Slots, slot)
	}
	return State{Estimate: est, Capacity: s.p.Limit, Held: held}
}

// SlidingBucketsTerms are the numbers a sliding-buckets decision was
// computed from.
type SlidingBucketsTerms struct {
	Elapsed  int64    // ms into the newest bucket
	BucketMs int64    // the width of a bucket
	Oldest   int64    // the oldest bucket's count, partly outside the window
	Rest     int64    // the sum of the other buckets
	Carried  Fraction // the part of Oldest still counted
}

// fill writes the terms into *d, which is zero (each decideOn fills a zero
// Decision): only the tag and the words used are stored, in place, which
// costs a decision less than building a Terms and copying it.
func (t SlidingBucketsTerms) fill(d *Terms) {
	d.tag = slidingBucketsTag
	d.w[0], d.w[1], d.w[2], d.w[3], d.w[4], d.w[5] = t.Elapsed, t.BucketMs, t.Oldest, t.Rest, t.Carried.Num, t.Carried.Den
}

// SlidingBuckets reads a sliding-buckets decision's terms (zero for another
// policy's).
func (t Terms) SlidingBuckets() SlidingBucketsTerms {
	w := t.termsOf(slidingBucketsTag)
	return SlidingBucketsTerms{Elapsed: w[0], BucketMs: w[1], Oldest: w[2], Rest: w[3], Carried: Fraction{w[4], w[5]}}
}

// SlidingBucketsHeld is what sliding-buckets holds for a key: its slots,
// oldest first, with each one's weight.
type SlidingBucketsHeld struct {
	Slots []Slot
}

// Policy implements Held.
func (SlidingBucketsHeld) Policy() string { return SlidingBuckets }

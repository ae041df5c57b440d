package policies

import "unsafe"

// SlidingLog is the policy's name in scenarios, URLs and JSON.
const SlidingLog = "sliding-log"

// slidingLogTag marks the policy's terms in a Terms.
var slidingLogTag = termsTag(SlidingLog)

var slidingLogInfo = Info{
	Name: SlidingLog, Human: "sliding log", Options: nil,
	Words: []string{"log"},
	make:  func(p Params) Local { return &slidingLogPolicy{*newKeyed(newSlidingLogRule(p))} },
}

// slidingLogPolicy is the policy New builds: keyed, with an Allow of its
// own that calls the rule's allowOn itself. Through keyed's Allow, which
// calls the rule through a dictionary, the hot key cost measurably more
// (BenchmarkDecide/hot/sliding-log.Allow); TestRuleCopiesAgree holds this
// Allow to the rule's Decide.
type slidingLogPolicy struct {
	keyed[slidingLogState, *SlidingLogRule]
}

// Allow implements Policy.
func (p *slidingLogPolicy) Allow(key Key, now, cost int64) Verdict {
	if p.r.Never(cost) {
		return Verdict{Never: true} // and adds nothing, like Decide
	}
	st := p.keys.atHome(key)
	if st == nil {
		st = p.add(key)
	}
	return p.r.allowOn(st, p.r.ring(st), now, cost)
}

// Clone implements Local.
func (p *slidingLogPolicy) Clone() Local { return &slidingLogPolicy{*p.cloneKeyed()} }

// SlidingLogRule is sliding-log (vectors: testdata/sliding-log-edges.json): the timestamp of
// every admitted permit, in a ring of exactly limit int64 per key.
//
// The window at now is (now-windowMs, now], half-open at the far end: an
// entry exactly windowMs old has left. A request is admitted when the entries
// inside the window plus cost are at most limit; a request of cost n takes n
// slots stamped with the same instant, so they leave together. Over any
// windowMs the policy never admits more than limit. Expired entries are
// dropped from the head as decisions pass them, so expiry is O(1) amortised:
// each timestamp is written once and dropped once.
//
// RetryAfterMs is exact: the entry whose leaving makes room for cost is the
// (count+cost-limit)-th oldest, and it leaves windowMs after its timestamp.
// A cost above limit is refused with Never set and changes nothing.
//
// Late rule: a now earlier than the key's latest instant is decided at that
// latest instant (Decision.At, Decision.Late); RetryAfterMs is counted from
// the caller's now.
//
// Memory: the ring is allocated at its full size the first time a key is
// decided, so Stats reports limit entries per key whether or not the key is
// busy. The key's ring is given to Fresh by the caller (keyed takes it from
// chunks that never move). Keys are never forgotten.
type SlidingLogRule struct {
	p Params
}

type slidingLogState struct {
	latest int64
	head   int32  // ring position of the oldest live entry
	count  int32  // entries held, live or not yet dropped
	ring   *int64 // the first of the key's limit times
}

// NewSlidingLogRule is sliding-log's rule, its parameters validated as New
// does.
func NewSlidingLogRule(p Params) (*SlidingLogRule, error) {
	return ruleOf(SlidingLog, p, newSlidingLogRule)
}

func newSlidingLogRule(p Params) *SlidingLogRule { return &SlidingLogRule{p: p} }

// Name returns "sliding-log".
func (l *SlidingLogRule) Name() string { return SlidingLog }

// Params returns the parameters the policy was built with.
func (l *SlidingLogRule) Params() Params { return l.p }

// Never implements Rule: a cost above the limit.
func (l *SlidingLogRule) Never(cost int64) bool { return neverFits(cost, l.p.Limit) }

// RingLen implements Rule: limit times per key.
func (l *SlidingLogRule) RingLen() int64 { return l.p.Limit }

// Fresh implements Rule.
func (l *SlidingLogRule) Fresh(ring []int64) slidingLogState {
	return slidingLogState{ring: &ring[:l.p.Limit][0]}
}

// Clone implements Rule.
func (l *SlidingLogRule) Clone(st *slidingLogState, ring []int64) slidingLogState {
	c := *st
	copy(ring, l.ring(st))
	c.ring = &ring[:l.p.Limit][0]
	return c
}

// ring is the key's ring of times.
func (l *SlidingLogRule) ring(st *slidingLogState) []int64 { return unsafe.Slice(st.ring, l.p.Limit) }

// live returns the head and count once the entries that have left the window
// at instant at are dropped, without changing the ring.
func (l *SlidingLogRule) live(st slidingLogState, ring []int64, at int64) (head, count int32) {
	head, count = st.head, st.count
	cutoff := at - l.p.WindowMs
	for count > 0 && ring[head] <= cutoff {
		head++
		if int64(head) == l.p.Limit {
			head = 0
		}
		count--
	}
	return head, count
}

// entry returns the ring entry j places after head.
func (l *SlidingLogRule) entry(ring []int64, head int32, j int64) int64 {
	return ring[l.at(head, j)]
}

// at is the ring position j places after head, for j < limit: head + j is
// then below 2*limit, so one subtraction wraps it, where a % would divide.
func (l *SlidingLogRule) at(head int32, j int64) int64 {
	i := int64(head) + j
	if i >= l.p.Limit {
		i -= l.p.Limit
	}
	return i
}

// Decide implements Rule.
func (l *SlidingLogRule) Decide(st *slidingLogState, now, cost int64) (d Decision) {
	l.decideOn(st, l.ring(st), now, cost, &d)
	return d
}

// Unseen implements Rule: the decision for a request that can never be
// admitted on a key never seen, which gets no ring for it.
func (l *SlidingLogRule) Unseen(now, cost int64) Decision {
	d := Decision{At: clampTime(now), Estimate: Whole(0), Capacity: l.p.Limit, Cost: cost}
	SlidingLogTerms{}.fill(&d.Terms) // as decideOn names its terms before refusing
	return refusedNever(d)
}

// decideOn is Decide on one key's state and ring, shared with the concurrent
// form. It fills *d, which must be zero, and changes nothing for a request
// that can never be admitted.
func (l *SlidingLogRule) decideOn(st *slidingLogState, ring []int64, now, cost int64, d *Decision) {
	now = clampTime(now)
	at, late := decideAt(now, st.latest)
	head, count := l.live(*st, ring, at)
	*d = Decision{
		At: at, Late: late,
		Estimate: Whole(int64(count)),
		Capacity: l.p.Limit,
		Cost:     cost,
	}
	terms := SlidingLogTerms{Count: int64(count)}
	if count > 0 {
		terms.OldestMs = ring[head]
	}
	terms.fill(&d.Terms)
	if neverFits(cost, l.p.Limit) {
		*d = refusedNever(*d)
		return
	}
	if int64(count)+cost <= l.p.Limit {
		d.Allowed = true
		l.stamp(ring, head, count, cost, at)
		count += int32(cost)
	} else {
		leaving := l.entry(ring, head, int64(count)+cost-l.p.Limit-1)
		d.RetryAfterMs = leaving + l.p.WindowMs - now
	}
	st.latest, st.head, st.count = at, head, count
}

// stamp writes at into the cost slots after the count held ones
// (count + cost <= limit).
func (l *SlidingLogRule) stamp(ring []int64, head, count int32, cost, at int64) {
	i := l.at(head, int64(count))
	for range cost {
		ring[i] = at
		if i++; i == l.p.Limit {
			i = 0
		}
	}
}

// Allow implements Rule: Decide's arithmetic and change of state, without
// building the 168-byte explanation. What remains is the log's own work:
// dropping the expired entries, writing one timestamp per permit and, at
// 1e6 keys, a second cache miss for the ring beside the table.
func (l *SlidingLogRule) Allow(st *slidingLogState, now, cost int64) Verdict {
	if l.Never(cost) {
		return Verdict{Never: true}
	}
	return l.allowOn(st, l.ring(st), now, cost)
}

// allowOn is Allow on one key's state and ring, for a request that fits
// (cost in [1, limit]), shared with the concurrent form.
func (l *SlidingLogRule) allowOn(st *slidingLogState, ring []int64, now, cost int64) Verdict {
	now = clampTime(now)
	at, _ := decideAt(now, st.latest)
	var head, count int32
	if at-st.latest < l.p.WindowMs {
		head, count = l.live(*st, ring, at)
	} else {
		// Every entry is at or before latest, so a window or more later
		// all have left: the head moves past them without reading the
		// ring, which spares an idle key the stall on its cache miss.
		head = int32(l.at(st.head, int64(st.count)))
	}
	st.latest, st.head = at, head
	if int64(count)+cost <= l.p.Limit {
		l.stamp(ring, head, count, cost, at)
		st.count = count + int32(cost)
		return Verdict{Allowed: true}
	}
	st.count = count
	return Verdict{RetryAfterMs: l.entry(ring, head, int64(count)+cost-l.p.Limit-1) + l.p.WindowMs - now}
}

// Peek implements Rule: the entries inside the window at now.
func (l *SlidingLogRule) Peek(st *slidingLogState, now int64) Fraction {
	if st == nil {
		return l.peekOn(nil, nil, now)
	}
	return l.peekOn(st, l.ring(st), now)
}

// peekOn is Peek of one key's state and ring; st nil is a key never seen.
func (l *SlidingLogRule) peekOn(st *slidingLogState, ring []int64, now int64) Fraction {
	if st == nil {
		return Whole(0)
	}
	at, _ := decideAt(clampTime(now), st.latest)
	_, count := l.live(*st, ring, at)
	return Whole(int64(count))
}

// Snapshot implements Rule: Log holds the timestamps inside the window,
// oldest first.
func (l *SlidingLogRule) Snapshot(st *slidingLogState, now int64) State {
	if st == nil {
		return l.snapshotOn(nil, nil, now)
	}
	return l.snapshotOn(st, l.ring(st), now)
}

// snapshotOn is Snapshot of one key's state and ring; st nil is a key never
// seen.
func (l *SlidingLogRule) snapshotOn(st *slidingLogState, ring []int64, now int64) State {
	held := SlidingLogHeld{Log: []int64{}}
	s := State{Estimate: Whole(0), Capacity: l.p.Limit, Held: held}
	if st == nil {
		return s
	}
	at, _ := decideAt(clampTime(now), st.latest)
	head, count := l.live(*st, ring, at)
	s.Estimate = Whole(int64(count))
	for j := range int64(count) {
		held.Log = append(held.Log, l.entry(ring, head, j))
	}
	s.Held = held
	return s
}

// Stats implements Rule: limit timestamps per key, plus its latest instant,
// the ring's head and count, and where the ring is.
func (l *SlidingLogRule) Stats(keys int) Stats {
	return Stats{Keys: keys, Entries: int64(keys) * l.p.Limit, BytesPerKey: l.p.Limit*8 + int64(unsafe.Sizeof(slidingLogState{}))}
}

// SlidingLogTerms are the numbers a sliding-log decision was computed from.
type SlidingLogTerms struct {
	Count    int64 // entries inside the window before the request
	OldestMs int64 // timestamp of the oldest of them (0 when there are none)
}

// fill writes the terms into *d, which is zero (each decideOn fills a zero
// Decision): only the tag and the words used are stored, in place, which
// costs a decision less than building a Terms and copying it.
func (t SlidingLogTerms) fill(d *Terms) {
	d.tag = slidingLogTag
	d.w[0], d.w[1] = t.Count, t.OldestMs
}

// SlidingLog reads a sliding-log decision's terms (zero for another
// policy's).
func (t Terms) SlidingLog() SlidingLogTerms {
	w := t.termsOf(slidingLogTag)
	return SlidingLogTerms{Count: w[0], OldestMs: w[1]}
}

// SlidingLogHeld is what sliding-log holds for a key: the timestamps inside
// (now-windowMs, now], oldest first.
type SlidingLogHeld struct {
	Log []int64
}

// Policy implements Held.
func (SlidingLogHeld) Policy() string { return SlidingLog }

// Absorb implements Rule: cost timestamps of at, merged into the log in
// order, so that the log stays sorted and expiry from its head stays right
// however late the report comes. A timestamp already outside the window at
// the latest instant is dropped: no decision from then on counts it. A
// later at moves the latest instant to it, as Decide does, which keeps
// every entry at or before the latest instant, as allowOn relies on.
//
// The ring holds limit entries, and absorbed requests can put more than
// limit inside the window; the oldest are then dropped. Admitting stays
// exact: a request of cost c >= 1 is admitted at t iff the (limit-c+1)-th
// newest entry has left the window at t, and that entry is among the limit
// newest. What a full ring reports as its count (Estimate, Terms.Count,
// State.Log) is then limit, not the larger number inside the window.
func (l *SlidingLogRule) Absorb(st *slidingLogState, at, cost int64) {
	if l.Never(cost) {
		return
	}
	at = clampTime(at)
	ring := l.ring(st)
	st.latest = max(st.latest, at)
	head, count := l.live(*st, ring, st.latest)
	st.head, st.count = head, count
	if at <= st.latest-l.p.WindowMs {
		return
	}
	// older is how many entries are at or before at; the copies of at go
	// after them. Reports are mostly of recent requests, so count from
	// the newest end.
	older := int64(count)
	for older > 0 && l.entry(ring, head, older-1) > at {
		older--
	}
	copies := cost
	if over := int64(count) + cost - l.p.Limit; over > 0 {
		// Drop the over oldest of the merged log: first entries older
		// than at, then, if those run out, copies of at (never a newer
		// entry, since over - older <= cost as count <= limit).
		gone := min(over, older)
		head = int32(l.at(head, gone))
		count -= int32(gone)
		older -= gone
		copies -= over - gone
	}
	for j := int64(count) - 1; j >= older; j-- {
		ring[l.at(head, j+copies)] = ring[l.at(head, j)]
	}
	for j := older; j < older+copies; j++ {
		ring[l.at(head, j)] = at
	}
	st.head, st.count = head, count+int32(copies)
}

package policies

import (
	"slices"
	"unsafe"
)

// SlidingLog is the policy's name in scenarios, URLs and JSON.
const SlidingLog = "sliding-log"

// slidingLogTag marks the policy's terms in a Terms.
var slidingLogTag = termsTag(SlidingLog)

var slidingLogInfo = Info{
	Name: SlidingLog, Human: "sliding log", Options: nil,
	Words: []string{"log"},
	make:  func(p Params) Policy { return newSlidingLog(p) },
	rule:  func(p Policy) KeyRule { pol := p.(*slidingLogPolicy); return &SlidingLogRule{pol} },
}

// slidingLogPolicy is sliding-log (vectors: testdata/sliding-log-edges.json): the timestamp of
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
// busy. Rings live in chunks of 1<<shift rings each, allocated as keys
// arrive and never moved (see add). Keys are never forgotten.
type slidingLogPolicy struct {
	p      Params
	keys   keyTable[slidingLogState]
	chunks [][]int64 // ring i is in chunks[i>>shift], at (i&mask)*limit
	shift  uint
	mask   int32
}

type slidingLogState struct {
	latest int64
	head   int32 // ring position of the oldest live entry
	count  int32 // entries held, live or not yet dropped
	ring   int32 // which ring of times is the key's
}

// chunkBytes is about how much of the rings one allocation holds: large
// enough that the slice of chunks stays small (16 KB of headers at 1e6
// keys of limit 100), small enough that the unused tail of the newest
// chunk, the only memory held for no key, is a small part of a lane's.
const chunkBytes = 64 << 10

func newSlidingLog(p Params) *slidingLogPolicy {
	var shift uint
	for int64(2)<<shift*p.Limit*8 <= chunkBytes {
		shift++
	}
	return &slidingLogPolicy{p: p, keys: newKeyTable[slidingLogState](), shift: shift, mask: 1<<shift - 1}
}

// Name returns "sliding-log".
func (l *slidingLogPolicy) Name() string { return SlidingLog }

// Params returns the parameters the policy was built with.
func (l *slidingLogPolicy) Params() Params { return l.p }

func (l *slidingLogPolicy) ring(i int32) []int64 {
	n := l.p.Limit
	j := int64(i & l.mask)
	return l.chunks[i>>l.shift][j*n : (j+1)*n]
}

// live returns the head and count once the entries that have left the window
// at instant at are dropped, without changing the ring.
func (l *slidingLogPolicy) live(st slidingLogState, ring []int64, at int64) (head, count int32) {
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
func (l *slidingLogPolicy) entry(ring []int64, head int32, j int64) int64 {
	return ring[l.at(head, j)]
}

// at is the ring position j places after head, for j < limit: head + j is
// then below 2*limit, so one subtraction wraps it, where a % would divide.
func (l *slidingLogPolicy) at(head int32, j int64) int64 {
	i := int64(head) + j
	if i >= l.p.Limit {
		i -= l.p.Limit
	}
	return i
}

// Decide implements Policy.
func (l *slidingLogPolicy) Decide(key Key, now, cost int64) (d Decision) {
	st := l.keys.find(key)
	if st == nil {
		if neverFits(cost, l.p.Limit) {
			return l.unseenNever(now, cost)
		}
		st = l.add(key)
	}
	l.decideOn(st, l.ring(st.ring), now, cost, &d)
	return d
}

// unseenNever is the decision for a request that can never be admitted on a
// key never seen, which gets no ring for it.
func (l *slidingLogPolicy) unseenNever(now, cost int64) Decision {
	d := Decision{At: clampTime(now), Estimate: Whole(0), Capacity: l.p.Limit, Cost: cost}
	SlidingLogTerms{}.fill(&d.Terms) // as decideOn names its terms before refusing
	return refusedNever(d)
}

// decideOn is Decide on one key's state and ring, shared with the concurrent
// form. It fills *d, which must be zero, and changes nothing for a request
// that can never be admitted.
func (l *slidingLogPolicy) decideOn(st *slidingLogState, ring []int64, now, cost int64, d *Decision) {
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
func (l *slidingLogPolicy) stamp(ring []int64, head, count int32, cost, at int64) {
	i := l.at(head, int64(count))
	for range cost {
		ring[i] = at
		if i++; i == l.p.Limit {
			i = 0
		}
	}
}

// Allow implements Policy: Decide's arithmetic and change of state, without
// building the 168-byte explanation. What remains is the log's own work:
// dropping the expired entries, writing one timestamp per permit and, at
// 1e6 keys, a second cache miss for the ring beside the table.
func (l *slidingLogPolicy) Allow(key Key, now, cost int64) Verdict {
	if neverFits(cost, l.p.Limit) {
		return Verdict{Never: true} // and changes nothing, like Decide
	}
	st := l.keys.atHome(key)
	if st == nil {
		if st = l.keys.find(key); st == nil {
			st = l.add(key)
		}
	}
	return l.allowOn(st, l.ring(st.ring), now, cost)
}

// allowOn is Allow on one key's state and ring, for a request that fits
// (cost in [1, limit]), shared with the concurrent form.
func (l *slidingLogPolicy) allowOn(st *slidingLogState, ring []int64, now, cost int64) Verdict {
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

// add allocates the state and the full ring of a new key. Rings come in
// fixed chunks that never move: one growing slice of all rings, grown by
// append a quarter at a time, copied the rings some twenty times as a
// hundred keys of limit 10,000 arrived (41 MB allocated for 8 MB of rings,
// per lane), and that garbage, eight lanes a run, set the collector running
// beside every page the server was answering; grown by doubling, it held
// up to twice the rings' memory (1,783 B per key at 1e6 keys of limit 100,
// where the rings are 800). A chunk wastes at most its own unused tail.
func (l *slidingLogPolicy) add(key Key) *slidingLogState {
	i := int32(l.keys.len())
	if i&l.mask == 0 {
		// Grown rather than made, so that cap says what the allocator
		// really gave (a large object is whole 8 KB pages) and Stats
		// can count it.
		n := int(int64(l.mask+1) * l.p.Limit)
		l.chunks = append(l.chunks, slices.Grow([]int64(nil), n)[:n])
	}
	st := l.keys.insert(key)
	st.ring = i
	return st
}

// Peek implements Policy: the entries inside the window at now.
func (l *slidingLogPolicy) Peek(key Key, now int64) Fraction {
	st := l.keys.find(key)
	if st == nil {
		return l.peekOn(nil, nil, now)
	}
	return l.peekOn(st, l.ring(st.ring), now)
}

// peekOn is Peek of one key's state and ring; st nil is a key never seen.
func (l *slidingLogPolicy) peekOn(st *slidingLogState, ring []int64, now int64) Fraction {
	if st == nil {
		return Whole(0)
	}
	at, _ := decideAt(clampTime(now), st.latest)
	_, count := l.live(*st, ring, at)
	return Whole(int64(count))
}

// Snapshot implements Policy: Log holds the timestamps inside the window,
// oldest first.
func (l *slidingLogPolicy) Snapshot(key Key, now int64) State {
	st := l.keys.find(key)
	if st == nil {
		return l.snapshotOn(nil, nil, now)
	}
	return l.snapshotOn(st, l.ring(st.ring), now)
}

// snapshotOn is Snapshot of one key's state and ring; st nil is a key never
// seen.
func (l *slidingLogPolicy) snapshotOn(st *slidingLogState, ring []int64, now int64) State {
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

// Stats implements Policy: limit timestamps per key, plus its latest instant
// and the ring's head and count.
func (l *slidingLogPolicy) Stats() Stats {
	s := l.statsOf(l.keys.len())
	s.HeapBytes = l.keys.heapBytes() + l.heldRingBytes() + int64(cap(l.chunks))*int64(unsafe.Sizeof([]int64(nil)))
	return s
}

// statsOf is Stats of keys keys, without the heap.
func (l *slidingLogPolicy) statsOf(keys int) Stats {
	return Stats{Keys: keys, Entries: int64(keys) * l.p.Limit, BytesPerKey: l.p.Limit*8 + int64(unsafe.Sizeof(slidingLogState{}))}
}

// heldRingBytes is the memory the chunks of rings hold, as allocated.
func (l *slidingLogPolicy) heldRingBytes() int64 {
	var b int64
	for _, ch := range l.chunks {
		b += int64(cap(ch)) * 8
	}
	return b
}

func (l *slidingLogPolicy) clone() Policy {
	chunks := make([][]int64, len(l.chunks))
	for c, ch := range l.chunks {
		chunks[c] = slices.Clone(ch)
	}
	return &slidingLogPolicy{p: l.p, keys: l.keys.clone(), chunks: chunks, shift: l.shift, mask: l.mask}
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

// Absorb implements Absorber: cost timestamps of at, merged into the log in
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
func (l *slidingLogPolicy) Absorb(key Key, at, cost int64) {
	if neverFits(cost, l.p.Limit) {
		return
	}
	at = clampTime(at)
	st := l.keys.find(key)
	if st == nil {
		st = l.add(key)
	}
	ring := l.ring(st.ring)
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

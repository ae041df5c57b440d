package policies

import (
	"fmt"
	"math/bits"
	"unsafe"
)

// ExpHistogram is the policy's name in scenarios, URLs and JSON.
const ExpHistogram = "exp-histogram"

// expHistogramTag marks the policy's terms in a Terms.
var expHistogramTag = termsTag(ExpHistogram)

// stackPerSize is the largest k whose insert works in arrays on the stack;
// a larger k (up to MaxPerSize) allocates them.
const stackPerSize = 32

// DefaultPerSize is exp-histogram's k when a spec leaves it out: the
// sliding-buckets' default k, so one "k" field of a form serves both.
const DefaultPerSize = DefaultBuckets

// MaxPerSize bounds exp-histogram's k. A key holds levels × (2k+1) int64,
// so at k = 64 and the scenarios' largest limit (10,000: 15 levels) about
// 15 KB, less than the sliding log's 80 KB; at sliding-buckets' 1,024 it
// would be 246 KB a key, three times the log, for an error bound (1/k)
// no lesson or deployment needs below 1/64.
const MaxPerSize = 64

// perSizeOption is exp-histogram's k, the most buckets of each size it
// keeps. It is the scenario field "buckets" and the form's "k", as
// sliding-buckets' k is (the accuracy knob of each), stored in
// Params.Buckets; unlike that k it need not divide the window.
var perSizeOption = Option{
	Name: BucketsOptionName, Label: "k", Labels: "k=%d", Noun: "buckets", Help: "error at most 1/k", Kind: Number,
	Default: DefaultPerSize, Min: 2, Max: MaxPerSize, LeftOut: fmt.Sprintf("%d buckets", DefaultPerSize),
	get: func(p Params) int64 { return p.Buckets },
	set: func(p *Params, v int64) { p.Buckets = v },
	normalise: func(name string, p *Params) error {
		if p.Buckets < 2 || p.Buckets > MaxPerSize {
			return paramErr(name, BucketsOptionName, "buckets %d is out of range [2, %d]", p.Buckets, MaxPerSize)
		}
		return nil
	},
}

var expHistogramInfo = Info{
	Name: ExpHistogram, Human: "exponential histogram", Options: []Option{perSizeOption},
	Words: []string{"histogram", "dgim"},
	make:  func(p Params) Local { return newKeyed(newExpHistogramRule(p)) },
}

// ExpHistogramRule is the exponential histogram of Datar, Gionis, Indyk
// and Motwani ("Maintaining Stream Statistics over Sliding Windows", SIAM
// J. Comput. 31(6), 2002) as a limiter (vectors:
// testdata/exp-histogram-*.json). It keeps the permits admitted in the
// look-back (now−windowMs, now] in buckets whose sizes are powers of two,
// each stamped with the instant of its newest permit: at most k buckets of
// each size (k = Params.Buckets), the two oldest of a size merging into one
// of the next size when a (k+1)-th arrives, so sizes never shrink from the
// newest bucket to the oldest. A bucket whose stamp has left the look-back
// is dropped whole.
//
// Only the oldest bucket can straddle the look-back's far end, so the
// estimate counts every other bucket in full and the oldest at half its
// size (a bucket of one permit in full: that permit is inside). A request
// is admitted when estimate + cost <= limit, and adds cost permits stamped
// now.
//
// The guarantee: the estimate E is within 1/k of the true count T of the
// permits admitted in the look-back, |E − T| <= T/k. The oldest bucket, of
// size s = 2^j (j >= 1), puts E within s/2 of T; each smaller size has at
// least k−1 buckets (a size below the largest only ever loses buckets to a
// merge, which leaves k−1), so T >= 1 + (k−1)(s−1), and
// s/2 <= T/k follows for every k >= 2 (equality at s = 2). So the policy
// admits at most limit·(1 + 1/(k−1)) in any window and refuses only once
// the true count is above limit·k/(k+1) − cost, at a memory of
// k·(log2(2·limit)+1) buckets instead of the log's limit timestamps.
// TestExpHistogramErrorBound holds it against an exact count over seeded
// random and adversarial traffic.
//
// RetryAfterMs is exact and minimal: the estimate falls only when a bucket
// leaves the look-back, windowMs after its stamp, so the retry is the
// first such instant after which the estimate plus cost fits. A cost above
// limit is refused with Never set and changes nothing.
//
// Late rule: a now earlier than the key's latest instant is decided at that
// latest instant (Decision.At, Decision.Late); RetryAfterMs is counted from
// the caller's now. Keys are never forgotten.
type ExpHistogramRule struct {
	p      Params
	k      int64 // the most buckets of one size
	levels int64 // sizes 1, 2, 4, …, 2^(levels−1)
	stride int64 // one level in the ring: its count, then k (stamp, size) pairs
}

// expHistogramState is a key's state; the ring holds levels × stride int64,
// for level i: ring[i·stride] buckets, then each bucket's stamp and size,
// oldest first. Every bucket of level i+1 is older than every bucket of
// level i.
type expHistogramState struct {
	latest int64
	ring   *int64
}

// NewExpHistogramRule is exp-histogram's rule, its parameters validated as
// New does.
func NewExpHistogramRule(p Params) (*ExpHistogramRule, error) {
	return ruleOf(ExpHistogram, p, newExpHistogramRule)
}

func newExpHistogramRule(p Params) *ExpHistogramRule {
	// The look-back holds at most limit·k/(k−1) <= 2·limit permits, so
	// its largest bucket is at most 2^⌊log2(2·limit)⌋: levels of sizes up
	// to that one. Only reports from other servers (Absorb) can hold more,
	// and the top level then squeezes (insert).
	levels := int64(bits.Len64(uint64(2 * p.Limit)))
	return &ExpHistogramRule{p: p, k: p.Buckets, levels: levels, stride: 1 + 2*p.Buckets}
}

// Name returns "exp-histogram".
func (h *ExpHistogramRule) Name() string { return ExpHistogram }

// Params returns the parameters the policy was built with.
func (h *ExpHistogramRule) Params() Params { return h.p }

// Never implements Rule: a cost above the limit.
func (h *ExpHistogramRule) Never(cost int64) bool { return neverFits(cost, h.p.Limit) }

// RingLen implements Rule.
func (h *ExpHistogramRule) RingLen() int64 { return h.levels * h.stride }

// Fresh implements Rule.
func (h *ExpHistogramRule) Fresh(ring []int64) expHistogramState {
	return expHistogramState{ring: &ring[:h.RingLen()][0]}
}

// Clone implements Rule.
func (h *ExpHistogramRule) Clone(st *expHistogramState, ring []int64) expHistogramState {
	c := *st
	copy(ring, h.ring(st))
	c.ring = &ring[:h.RingLen()][0]
	return c
}

func (h *ExpHistogramRule) ring(st *expHistogramState) []int64 {
	return unsafe.Slice(st.ring, h.RingLen())
}

// histBucket is one bucket: the stamp of its newest permit, and its size.
type histBucket struct{ at, size int64 }

// level is level i's buckets in ring, oldest first.
func (h *ExpHistogramRule) level(ring []int64, i int64) (n int64, pairs []int64) {
	base := i * h.stride
	return ring[base], ring[base+1 : base+h.stride]
}

// buckets calls f on every bucket whose stamp is after cutoff (those
// still in the look-back), oldest first, until f returns false.
func (h *ExpHistogramRule) buckets(ring []int64, cutoff int64, f func(b histBucket) bool) {
	for i := h.levels - 1; i >= 0; i-- {
		n, pairs := h.level(ring, i)
		for j := int64(0); j < n; j++ {
			if b := (histBucket{pairs[2*j], pairs[2*j+1]}); b.at > cutoff && !f(b) {
				return
			}
		}
	}
}

// half is what the estimate counts of the oldest bucket: half its size,
// or the one permit of a bucket of one, which is inside the look-back.
func half(size int64) int64 { return (size + 1) / 2 }

// measure is the look-back's buckets after cutoff: their total size, the
// oldest bucket, and how many there are.
func (h *ExpHistogramRule) measure(ring []int64, cutoff int64) (total int64, oldest histBucket, n int64) {
	h.buckets(ring, cutoff, func(b histBucket) bool {
		if n == 0 {
			oldest = b
		}
		total += b.size
		n++
		return true
	})
	return total, oldest, n
}

// estimate is the permits the histogram counts in the look-back after
// cutoff: every bucket but the oldest in full, the oldest at half.
func (h *ExpHistogramRule) estimate(ring []int64, cutoff int64) int64 {
	total, oldest, n := h.measure(ring, cutoff)
	if n == 0 {
		return 0
	}
	return total - oldest.size + half(oldest.size)
}

// expire drops the buckets whose stamp is at or before cutoff. They are
// the oldest: the front of the highest levels.
func (h *ExpHistogramRule) expire(ring []int64, cutoff int64) {
	for i := h.levels - 1; i >= 0; i-- {
		base := i * h.stride
		n := ring[base]
		drop := int64(0)
		for drop < n && ring[base+1+2*drop] <= cutoff {
			drop++
		}
		if drop > 0 {
			copy(ring[base+1:], ring[base+1+2*drop:base+1+2*n])
			ring[base] = n - drop
		}
		if drop < n {
			return // this level's rest, and every lower level, is newer
		}
	}
}

// retryAt is the first instant at which a request of cost fits, given the
// look-back's buckets after cutoff (none has left yet): the instant the
// j-th oldest bucket leaves, for the least j after which the estimate plus
// cost is at most limit. Buckets sharing a stamp leave together, which
// only lowers the estimate further. cost must be at most limit.
func (h *ExpHistogramRule) retryAt(ring []int64, cutoff, cost int64) int64 {
	total, _, _ := h.measure(ring, cutoff)
	var leaving histBucket // the last bucket to leave so far
	left := int64(0)       // the total of the buckets left so far
	at := int64(-1)
	h.buckets(ring, cutoff, func(b histBucket) bool {
		if leaving.size > 0 {
			// With the buckets up to leaving gone, b is the oldest.
			if total-left-b.size+half(b.size)+cost <= h.p.Limit {
				at = leaving.at + h.p.WindowMs
				return false
			}
		}
		leaving = b
		left += b.size
		return true
	})
	if at < 0 {
		at = leaving.at + h.p.WindowMs // every bucket gone: the estimate is 0
	}
	return at
}

// insert adds cost permits stamped at, newer than every bucket held, as
// cost buckets of one permit arriving one after another would: each level
// holding more than k merges its two oldest into one bucket of the next
// level. The new buckets of a level share the stamp at, so they are
// carried as a count, and the work is O(k·levels) whatever the cost.
func (h *ExpHistogramRule) insert(ring []int64, at, cost int64) {
	var stack [3][2 * stackPerSize]histBucket
	upBuf, nextBuf, keepBuf := stack[0][:], stack[1][:], stack[2][:]
	if h.k > stackPerSize {
		upBuf, nextBuf, keepBuf = make([]histBucket, 2*h.k), make([]histBucket, 2*h.k), make([]histBucket, 2*h.k)
	}
	up := upBuf[:0] // buckets of explicit stamps entering this level
	carry := cost   // buckets of this level's size entering it, stamped at
	k := h.k
	for i := int64(0); i < h.levels && (carry > 0 || len(up) > 0); i++ {
		size := int64(1) << i
		base := i * h.stride
		q := ring[base]
		// The level's sequence, oldest first: its q buckets, up, then carry
		// buckets (at, size).
		elem := func(x int64) histBucket {
			switch {
			case x < q:
				return histBucket{ring[base+1+2*x], ring[base+2+2*x]}
			case x < q+int64(len(up)):
				return up[x-q]
			}
			return histBucket{at, size}
		}
		explicit := q + int64(len(up))
		total := explicit + carry
		if i == h.levels-1 && total > k {
			h.squeeze(ring, base, elem, explicit, carry, at, size)
			return
		}
		if total <= k {
			keep := keepBuf[:0]
			for x := int64(0); x < total; x++ {
				keep = append(keep, elem(x))
			}
			h.store(ring, base, keep)
			return
		}
		// As one bucket at a time: a (k+1)-th merges the two oldest,
		// leaving k−1; so m merges of the 2m oldest, in pairs.
		m := (total - (k - 1)) / 2
		next, nextCarry := nextBuf[:0], int64(0)
		for pair := int64(0); pair < m; pair++ {
			older, newer := elem(2*pair), elem(2*pair+1)
			if 2*pair+1 < explicit {
				next = append(next, histBucket{newer.at, older.size + newer.size})
			} else {
				nextCarry++ // stamped at, of the next level's size
			}
		}
		keep := keepBuf[:0]
		for x := 2 * m; x < min(total, explicit); x++ {
			keep = append(keep, elem(x))
		}
		carried := total - max(2*m, explicit) // this level's new buckets that stay
		for range carried {
			keep = append(keep, histBucket{at, size})
		}
		h.store(ring, base, keep)
		up = append(upBuf[:0], next...)
		carry = nextCarry
	}
}

// squeeze keeps the top level within k buckets when reports from other
// servers hold more than it was sized for: the carried permits make one
// bucket, and the two oldest buckets merge (stamped with the newer, their
// sizes added) until k are left. A permit then counts until its bucket's
// newer stamp leaves: longer than it should, never shorter, so an
// overloaded key refuses more rather than admitting more.
func (h *ExpHistogramRule) squeeze(ring []int64, base int64, elem func(int64) histBucket, explicit, carry, at, size int64) {
	all := make([]histBucket, 0, explicit+1) // only reports beyond the limit come here
	for x := int64(0); x < explicit; x++ {
		all = append(all, elem(x))
	}
	if carry > 0 {
		all = append(all, histBucket{at, carry * size})
	}
	for int64(len(all)) > h.k {
		all[1] = histBucket{all[1].at, all[0].size + all[1].size}
		all = all[1:]
	}
	h.store(ring, base, all)
}

// store writes a level's buckets, oldest first.
func (h *ExpHistogramRule) store(ring []int64, base int64, bs []histBucket) {
	ring[base] = int64(len(bs))
	for j, b := range bs {
		ring[base+1+2*int64(j)], ring[base+2+2*int64(j)] = b.at, b.size
	}
}

// Decide implements Rule.
func (h *ExpHistogramRule) Decide(st *expHistogramState, now, cost int64) (d Decision) {
	now = clampTime(now)
	at, late := decideAt(now, st.latest)
	ring := h.ring(st)
	cutoff := at - h.p.WindowMs
	total, oldest, n := h.measure(ring, cutoff)
	est := int64(0)
	if n > 0 {
		est = total - oldest.size + half(oldest.size)
	}
	d.At, d.Late = at, late
	d.Estimate = Whole(est)
	d.Capacity, d.Cost = h.p.Limit, cost
	ExpHistogramTerms{Total: total, Oldest: oldest.size, OldestAt: oldest.at, Buckets: n}.fill(&d.Terms)
	if h.Never(cost) {
		d.Never = true // and changes nothing
		return d
	}
	h.expire(ring, cutoff)
	if est+cost <= h.p.Limit {
		d.Allowed = true
		h.insert(ring, at, cost)
	} else {
		d.RetryAfterMs = h.retryAt(ring, cutoff, cost) - now
	}
	st.latest = at
	return d
}

// Allow implements Rule.
func (h *ExpHistogramRule) Allow(st *expHistogramState, now, cost int64) Verdict {
	if h.Never(cost) {
		return Verdict{Never: true}
	}
	now = clampTime(now)
	at, _ := decideAt(now, st.latest)
	ring := h.ring(st)
	cutoff := at - h.p.WindowMs
	h.expire(ring, cutoff)
	st.latest = at
	if h.estimate(ring, cutoff)+cost > h.p.Limit {
		return Verdict{RetryAfterMs: h.retryAt(ring, cutoff, cost) - now}
	}
	h.insert(ring, at, cost)
	return Verdict{Allowed: true}
}

// Unseen implements Rule.
func (h *ExpHistogramRule) Unseen(now, cost int64) Decision {
	st := h.Fresh(make([]int64, h.RingLen()))
	return h.Decide(&st, now, cost)
}

// Peek implements Rule: the estimate at now.
func (h *ExpHistogramRule) Peek(st *expHistogramState, now int64) Fraction {
	if st == nil {
		return Whole(0)
	}
	at, _ := decideAt(clampTime(now), st.latest)
	return Whole(h.estimate(h.ring(st), at-h.p.WindowMs))
}

// Snapshot implements Rule: the estimate, and the buckets in the look-back.
func (h *ExpHistogramRule) Snapshot(st *expHistogramState, now int64) State {
	held := ExpHistogramHeld{WindowMs: h.p.WindowMs, PerSize: h.k}
	if st == nil {
		return State{Estimate: Whole(0), Capacity: h.p.Limit, Held: held}
	}
	at, _ := decideAt(clampTime(now), st.latest)
	cutoff := at - h.p.WindowMs
	h.buckets(h.ring(st), cutoff, func(b histBucket) bool {
		held.Buckets = append(held.Buckets, HistogramBucket{At: b.at, Size: b.size})
		return true
	})
	return State{Estimate: Whole(h.estimate(h.ring(st), cutoff)), Capacity: h.p.Limit, Held: held}
}

// Stats implements Rule: the ring of every key.
func (h *ExpHistogramRule) Stats(keys int) Stats {
	perKey := h.RingLen()*8 + int64(unsafe.Sizeof(expHistogramState{}))
	return Stats{Keys: keys, Entries: h.RingLen() * int64(keys), BytesPerKey: perKey}
}

// Absorb implements Rule: the permits are stamped max(at, latest), as the
// late rule decides, whether or not they fit. A permit stamped later than
// it came counts longer, never shorter: a late report never admits more
// than a report on time would have.
func (h *ExpHistogramRule) Absorb(st *expHistogramState, at, cost int64) {
	if h.Never(cost) {
		return
	}
	at = max(clampTime(at), st.latest)
	ring := h.ring(st)
	h.expire(ring, at-h.p.WindowMs)
	h.insert(ring, at, cost)
	st.latest = at
}

// ExpHistogramTerms are the numbers an exp-histogram decision was computed
// from: the look-back's buckets before the request.
type ExpHistogramTerms struct {
	Total    int64 // every bucket's permits
	Oldest   int64 // the oldest bucket's size, counted at half (a bucket of one in full)
	OldestAt int64 // its stamp: it leaves windowMs later
	Buckets  int64 // how many buckets there are
}

// fill writes the terms into *d, which is zero (see GCRATerms.fill).
func (t ExpHistogramTerms) fill(d *Terms) {
	d.tag = expHistogramTag
	d.w[0], d.w[1], d.w[2], d.w[3] = t.Total, t.Oldest, t.OldestAt, t.Buckets
}

// ExpHistogram reads an exp-histogram decision's terms (zero for another
// policy's).
func (t Terms) ExpHistogram() ExpHistogramTerms {
	w := t.termsOf(expHistogramTag)
	return ExpHistogramTerms{Total: w[0], Oldest: w[1], OldestAt: w[2], Buckets: w[3]}
}

// ExpHistogramHeld is what exp-histogram holds for a key: its buckets in
// the look-back, oldest first.
type ExpHistogramHeld struct {
	Buckets  []HistogramBucket
	WindowMs int64
	PerSize  int64 // k
}

// HistogramBucket is one bucket of an exponential histogram.
type HistogramBucket struct {
	At   int64 // the stamp of its newest permit
	Size int64 // its permits, a power of two
}

// Policy implements Held.
func (ExpHistogramHeld) Policy() string { return ExpHistogram }

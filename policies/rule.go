package policies

import (
	"slices"
	"sync/atomic"
	"unsafe"
)

// A Rule is one policy's decision rule on one key's state of type S: the
// one place its arithmetic is written. Everything else is derived from it:
// the single-goroutine policy New builds keeps the states in a key table
// (keyed, below), limiter's concurrent form keeps them in slots of its own
// table, and a store outside the process (a Redis form) is held to it
// state by state.
//
// A rule is safe for concurrent use on different states; one state must not
// be used by two goroutines at once (the caller locks it). Where the rule
// keeps a cache (a window clock), it is one shared line written about once
// a window (see sharedClock): a cache every decision wrote would be a line
// handed between processors. S is opaque outside this package: a caller
// holds states it got from Fresh and passes pointers to them back.
type Rule[S any] interface {
	// Name is the policy's name; Params its parameters, normalised as
	// the Params of the policy New builds.
	Name() string
	Params() Params
	// Decide decides a request of cost at now on st, as Policy.Decide
	// does, and changes nothing for a request that never fits.
	Decide(st *S, now, cost int64) Decision
	// Allow is Decide's verdict and change of state, without building
	// the explanation.
	Allow(st *S, now, cost int64) Verdict
	// Never reports whether a request of cost can never be admitted.
	Never(cost int64) bool
	// Unseen is the decision for such a request on a key never seen,
	// which a caller should not then add.
	Unseen(now, cost int64) Decision
	// Peek and Snapshot describe st at now; st nil is a key never seen.
	Peek(st *S, now int64) Fraction
	Snapshot(st *S, now int64) State
	// Absorb takes in a request another server admitted (see Absorber).
	Absorb(st *S, at, cost int64)
	// Stats is Stats of keys keys, without the heap.
	Stats(keys int) Stats
	// RingLen is the int64 ring a new key's state holds (0 for none), and
	// Fresh a new key's state holding ring, which must be that long and
	// zero. A ring stays where it is: the state keeps it.
	RingLen() int64
	Fresh(ring []int64) S
	// Clone is a copy of st that holds ring (RingLen long) instead of
	// st's own, with st's ring copied into it.
	Clone(st *S, ring []int64) S
}

// flatState gives a rule whose state holds no ring its RingLen, Fresh
// (the zero state) and Clone (a copy).
type flatState[S any] struct{}

func (flatState[S]) RingLen() int64           { return 0 }
func (flatState[S]) Fresh([]int64) S          { var zero S; return zero }
func (flatState[S]) Clone(st *S, _ []int64) S { return *st }

// valueOrZero is *p, or the zero state (a key never seen) for nil.
func valueOrZero[S any](p *S) S {
	if p == nil {
		var zero S
		return zero
	}
	return *p
}

// Local is a policy held in one process's memory, as New builds them: one
// of several servers running it can take in what the others admitted
// (Absorb), and a caller can ask its what-ifs of a copy (Clone).
type Local interface {
	Policy
	Absorber
	// Clone is an independent copy, every key's state included; it costs
	// the policy's memory (see Stats).
	Clone() Local
}

// NewLocal is New, returning the policy as the Local it is.
func NewLocal(name string, p Params) (Local, error) { return newPolicy(name, p) }

// keyed is the single-goroutine policy of a rule: its states in a key
// table, inline. A ring a rule's state holds is taken from chunks that never
// move (see ringChunks).
//
// Its methods are compiled once for every rule of the same shape (every
// pointer to a rule is one), so they call the rule through a dictionary,
// and the compiler inlines nothing of the rule into them. Where that cost
// is measured, a policy type embeds keyed and calls the rule's Allow
// itself (see fixedWindowPolicy), which costs it nothing but that method.
type keyed[S any, R Rule[S]] struct {
	r     R
	keys  keyTable[S]
	rings ringChunks
}

func newKeyed[S any, R Rule[S]](r R) *keyed[S, R] {
	return &keyed[S, R]{r: r, keys: newKeyTable[S](), rings: ringChunks{n: r.RingLen()}}
}

// ringLen is the length of the ring each key's state holds, 0 for none.
func (k *keyed[S, R]) ringLen() int64 { return k.rings.n }

// base is k itself, also through a policy type that embeds it.
func (k *keyed[S, R]) base() *keyed[S, R] { return k }

func (k *keyed[S, R]) Name() string   { return k.r.Name() }
func (k *keyed[S, R]) Params() Params { return k.r.Params() }

// find is the state of key, or nil for a key never seen.
func (k *keyed[S, R]) find(key Key) *S {
	if st := k.keys.atHome(key); st != nil {
		return st
	}
	return k.keys.find(key)
}

// add is the state of key, a fresh one (with its ring) for a key never seen.
func (k *keyed[S, R]) add(key Key) *S {
	if st := k.keys.atHome(key); st != nil {
		return st
	}
	n := k.keys.len()
	st := k.keys.insert(key)
	if k.keys.len() > n {
		*st = k.r.Fresh(k.rings.take())
	}
	return st
}

// Decide implements Policy.
func (k *keyed[S, R]) Decide(key Key, now, cost int64) Decision {
	if st := k.find(key); st != nil {
		return k.r.Decide(st, now, cost)
	}
	if k.r.Never(cost) {
		return k.r.Unseen(now, cost) // and adds nothing
	}
	return k.r.Decide(k.add(key), now, cost)
}

// Allow implements Policy.
func (k *keyed[S, R]) Allow(key Key, now, cost int64) Verdict {
	if k.r.Never(cost) {
		return Verdict{Never: true} // and adds nothing, like Decide
	}
	return k.r.Allow(k.add(key), now, cost)
}

// Peek implements Policy.
func (k *keyed[S, R]) Peek(key Key, now int64) Fraction { return k.r.Peek(k.keys.find(key), now) }

// Snapshot implements Policy.
func (k *keyed[S, R]) Snapshot(key Key, now int64) State {
	return k.r.Snapshot(k.keys.find(key), now)
}

// Absorb implements Absorber.
func (k *keyed[S, R]) Absorb(key Key, at, cost int64) {
	if k.r.Never(cost) {
		return
	}
	k.r.Absorb(k.add(key), at, cost)
}

// Stats implements Policy: the rule's, with the table and the rings as
// allocated.
func (k *keyed[S, R]) Stats() Stats {
	s := k.r.Stats(k.keys.len())
	s.HeapBytes = k.keys.heapBytes() + k.rings.heapBytes()
	return s
}

// Clone implements Local.
func (k *keyed[S, R]) Clone() Local { return k.cloneKeyed() }

// cloneKeyed is Clone, for a policy type embedding keyed to wrap.
func (k *keyed[S, R]) cloneKeyed() *keyed[S, R] {
	c := &keyed[S, R]{r: k.r, keys: k.keys.clone(), rings: ringChunks{n: k.rings.n}}
	if c.rings.n == 0 {
		return c
	}
	for i := range c.keys.slots {
		if c.keys.slots[i].key != 0 {
			c.keys.slots[i].state = k.r.Clone(&c.keys.slots[i].state, c.rings.take())
		}
	}
	if c.keys.hasZero {
		c.keys.zero = k.r.Clone(&c.keys.zero, c.rings.take())
	}
	return c
}

// ringChunks hands out rings of n int64 from chunks that never move: one
// growing slice of all rings, grown by append, copied the rings some
// twenty times as a hundred keys of limit 10,000 arrived (41 MB allocated
// for 8 MB of rings, per lane), and set the collector running beside every
// page the server answered; grown by doubling, it held up to twice the
// rings' memory. A chunk wastes at most its own unused tail.
type ringChunks struct {
	n      int64 // a ring's length; 0 hands out nil
	chunks [][]int64
	free   []int64 // the newest chunk's rings not yet handed out
}

// chunkBytes is about how much of the rings one allocation holds: large
// enough that the slice of chunks stays small (16 KB of headers at 1e6
// keys of limit 100), small enough that the unused tail of the newest
// chunk, the only memory held for no key, is a small part of a lane's.
const chunkBytes = 64 << 10

func (c *ringChunks) take() []int64 {
	if c.n == 0 {
		return nil
	}
	if int64(len(c.free)) < c.n {
		rings := max(1, chunkBytes/(8*c.n))
		// Grown rather than made, so that cap says what the allocator
		// really gave (a large object is whole 8 KB pages) and Stats
		// can count it.
		size := int(rings * c.n)
		chunk := slices.Grow([]int64(nil), size)[:size]
		c.chunks = append(c.chunks, chunk)
		c.free = chunk
	}
	ring := c.free[:c.n:c.n]
	c.free = c.free[c.n:]
	return ring
}

// heapBytes is the memory the chunks hold, as allocated, and their headers.
func (c *ringChunks) heapBytes() int64 {
	var b int64
	for _, ch := range c.chunks {
		b += int64(cap(ch)) * 8
	}
	return b + int64(cap(c.chunks))*int64(unsafe.Sizeof([]int64(nil)))
}

// sharedClock is a windowClock a rule shares between the goroutines
// deciding on it: the latest window any decision found, read by every
// decision and written only when one finds a later window, so that its line
// is written about once a window however many processors read it. Without
// it each decision divides. Like windowClock it is a cache, not state: any
// index it holds gives the same answers.
type sharedClock struct {
	width int64
	index atomic.Int64 // start / width of the latest window found; -1 before any
}

func newSharedClock(width int64) *sharedClock {
	c := &sharedClock{width: width}
	c.index.Store(-1)
	return c
}

// load is a windowClock starting from the latest window found.
func (c *sharedClock) load() windowClock {
	i := c.index.Load()
	return windowClock{width: c.width, start: i * c.width, index: i}
}

// keep publishes w's window if it is later than the one held. It never
// goes back: one decision at a far-future instant leaves it there, and
// every decision at the present then divides again (a cost, never a
// wrong answer). A window clock that followed time back would be written
// by decisions at both instants, the shared line this exists to avoid.
func (c *sharedClock) keep(w windowClock) {
	for {
		i := c.index.Load()
		if w.index <= i || c.index.CompareAndSwap(i, w.index) {
			return
		}
	}
}

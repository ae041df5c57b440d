package policies

import (
	"math/rand/v2"
	"unsafe"
)

// keyTable maps keys to per-key state of type S, stored inline: an
// open-addressing hash table with linear probing, so that finding a key and
// updating its state touches one slot, usually one cache line. (A Go map
// would need a second lookup to store the updated value, or a pointer or
// index to chase.) Keys are never removed.
//
// Slots are chosen by multiply-shift hashing with a multiplier (the seed)
// random per table, so crafted keys cannot be aimed at one probe chain. The
// seed changes only where state is stored, never a decision. Key 0 marks an
// empty slot, so the state of key 0 is held beside the table.
type keyTable[S any] struct {
	slots   []keySlot[S] // power-of-two length
	shift   uint         // 64 - log2(len(slots))
	used    int          // occupied slots, key 0 not included
	last    uint64       // slot atHome last found a key in
	seed    uint64
	zero    S
	hasZero bool
}

type keySlot[S any] struct {
	key   Key
	state S
}

const keyTableMinSlots = 8

func newKeyTable[S any]() keyTable[S] {
	return keyTable[S]{
		slots: make([]keySlot[S], keyTableMinSlots),
		shift: 64 - 3,
		seed:  rand.Uint64() | 1,
	}
}

// home is the first slot probed for k: multiply-shift hashing (the top
// bits of k times a random odd multiplier, Dietzfelbinger et al.), under
// which two keys chosen without knowing the multiplier share a home slot
// with probability at most 2/len(slots). One multiplication keeps the short
// path of insert small enough to inline.
//
// shift is at most 61, but the compiler cannot know it; masking it to 63
// spares the three instructions Go adds for a shift of 64 or more.
func (t *keyTable[S]) home(k Key) uint64 {
	return (k * t.seed) >> (t.shift & 63)
}

// find returns the state of k, or nil if k was never inserted. The pointer
// is valid until the next insert.
func (t *keyTable[S]) find(k Key) *S {
	if k == 0 {
		if t.hasZero {
			return &t.zero
		}
		return nil
	}
	mask := uint64(len(t.slots) - 1)
	for i := t.home(k); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.key == k {
			return &s.state
		}
		if s.key == 0 {
			return nil
		}
	}
}

// get returns a copy of k's state, the zero state if k is unseen.
func (t *keyTable[S]) get(k Key) S {
	if p := t.find(k); p != nil {
		return *p
	}
	var zero S
	return zero
}

// atHome returns the state of k if k is the key atHome last found or sits
// in its home slot, and nil otherwise (k absent, displaced, or 0). The
// first check makes a hot key, the case a limiter must be fastest at, cost
// no hashing; the second is the common case at a load of at most 3/4. It
// is small enough for the compiler to inline, which insert, holding the
// probe loop and the growth, is not: the policies' fast paths try atHome
// first.
func (t *keyTable[S]) atHome(k Key) *S {
	// last is a hint, not state: slots never shrink, so it stays in range,
	// and a slot holding k is k's slot wherever the hint came from.
	if s := &t.slots[t.last]; s.key == k && k != 0 {
		return &s.state
	}
	i := t.home(k)
	if s := &t.slots[i]; s.key == k && k != 0 {
		t.last = i
		return &s.state
	}
	return nil
}

// insert returns the state of k, adding k with the zero state if it is
// new. The pointer is valid until the next insert.
func (t *keyTable[S]) insert(k Key) *S {
	if k == 0 {
		t.hasZero = true
		return &t.zero
	}
	if (t.used+1)*4 > len(t.slots)*3 { // keep the load at most 3/4
		t.grow()
	}
	mask := uint64(len(t.slots) - 1)
	for i := t.home(k); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.key == k {
			return &s.state
		}
		if s.key == 0 {
			s.key = k
			t.used++
			return &s.state
		}
	}
}

func (t *keyTable[S]) grow() {
	old := t.slots
	t.slots = make([]keySlot[S], 2*len(old))
	t.shift--
	mask := uint64(len(t.slots) - 1)
	for _, s := range old {
		if s.key == 0 {
			continue
		}
		i := t.home(s.key)
		for t.slots[i].key != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}

// heapBytes is the memory the table's slots take, free ones included.
func (t *keyTable[S]) heapBytes() int64 {
	return int64(cap(t.slots)) * int64(unsafe.Sizeof(keySlot[S]{}))
}

// len is the number of keys held.
func (t *keyTable[S]) len() int {
	if t.hasZero {
		return t.used + 1
	}
	return t.used
}

// clone returns an independent copy.
func (t *keyTable[S]) clone() keyTable[S] {
	c := *t
	c.slots = append([]keySlot[S](nil), t.slots...)
	return c
}

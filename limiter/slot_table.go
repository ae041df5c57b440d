package limiter

import (
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/windowlab/playground/policies"
)

// slotTable is the concurrent key table: keys to per-key state of type S,
// stored inline, each slot with a lock of its own. It exists because of
// what a processor pays to write a cache line another processor wrote
// last (about 250 ns on the 2-vCPU machine this was measured on, more than
// a DRAM miss): a decision on a key already in the table writes only that
// key's slot (its lock, then its state), a line the decision misses on
// anyway with many keys. Nothing shared between keys is written: no shard
// mutex, no hint, no cache.
//
// Keys are spread over shards by the top bits of a seeded multiply-shift
// hash; each shard is an open-addressing array with linear probing behind
// an atomic pointer, and a mutex taken only to insert a key or to grow.
//
//   - Deciding on a present key: load the shard's array, probe with atomic
//     key loads (a key, once published in an array, never changes), lock
//     the slot by CAS, decide, unlock. A slot found "moved" belongs to an
//     array being replaced: reload and probe again.
//   - A new key: under the shard mutex, probe again (another goroutine may
//     have inserted it); else take a free slot, lock it, write its state
//     and publish the key with an atomic store, all before anyone can find
//     it.
//   - Growing (load above 3/4), under the shard mutex: every occupied slot
//     of the old array is locked for good ("moved", waiting for a holder to
//     finish), copied into an array twice the size, which is then
//     published.
//
// Key 0 marks a free slot, so key 0 has a slot of its own beside the shards.
// Keys are never removed. Memory grows with the keys a caller sends: that
// is the documented bound of every policy here (see Stats).
type slotTable[S any] struct {
	seed      uint64 // odd multiplier of the hash, random per table
	shardBits uint   // log2(len(shards))
	shards    []slotShard[S]
	zero      slot[S] // key 0; its key field is 1 once key 0 is present
	zeroRings ringChunks
	fresh     func(*ringChunks) S // a new key's state, its ring (if any) taken from the chunks
}

// Values of slot.lock.
const (
	slotFree  = 0
	slotHeld  = 1
	slotMoved = 2 // copied into a newer array; never released
)

type slot[S any] struct {
	lock  atomic.Uint32
	key   atomic.Uint64
	state S
}

// slotArray is one shard's slots, replaced whole when the shard grows.
type slotArray[S any] struct {
	slots []slot[S] // power-of-two length
	shift uint      // 64 - log2(len(slots))
}

type slotShard[S any] struct {
	mu    sync.Mutex // held to insert or grow, never to decide
	slots atomic.Pointer[slotArray[S]]
	used  int        // occupied slots, under mu
	rings ringChunks // under mu
	// A shard's header is read by every decision and written by inserts;
	// the padding keeps a neighbour's inserts off its line.
	_ [64]byte
}

// ringChunks hands out the rings of sliding-log and sliding-buckets keys:
// fixed chunks, allocated as keys arrive and never moved, so a ring handed
// out stays where it is (its slot holds the slice) while later keys get
// theirs.
type ringChunks struct {
	free []int64 // the unused tail of the newest chunk
	held int64   // bytes of every chunk, as allocated
}

// chunkBytes is about how much of the rings one chunk holds, as
// sliding-log's own chunks do (see policies' sliding-log): large enough
// that few are allocated, small enough that the newest one's unused tail,
// the only memory held for no key, is small.
const chunkBytes = 64 << 10

// take returns a zeroed ring of n int64, or nil for n 0.
func (r *ringChunks) take(n int64) []int64 {
	if n == 0 {
		return nil
	}
	if int64(len(r.free)) < n {
		per := max(1, chunkBytes/8/n) // rings a chunk holds
		// Sized as the allocator rounds it, so that held (and Stats'
		// HeapBytes) is the memory taken, as sliding-log's chunks count it.
		c := slices.Grow([]int64(nil), int(per*n))[:per*n]
		r.held += int64(cap(c)) * 8
		r.free = c
	}
	ring := r.free[:n:n]
	r.free = r.free[n:]
	return ring
}

const slotTableMinSlots = 8

func newSlotTable[S any](shards int, fresh func(*ringChunks) S) *slotTable[S] {
	logN := bits.Len(uint(shards - 1)) // shards rounded up to 1<<logN
	t := &slotTable[S]{
		seed:      rand.Uint64() | 1,
		shardBits: uint(logN),
		shards:    make([]slotShard[S], 1<<logN),
		fresh:     fresh,
	}
	for i := range t.shards {
		t.shards[i].slots.Store(&slotArray[S]{slots: make([]slot[S], slotTableMinSlots), shift: 64 - 3})
	}
	return t
}

// where is k's shard and hash; home(a, h) is then its first slot in the
// shard's array a: the bits just below the shard's.
func (t *slotTable[S]) where(k policies.Key) (*slotShard[S], uint64) {
	h := k * t.seed
	return &t.shards[h>>(64-t.shardBits)&(1<<t.shardBits-1)], h << t.shardBits
}

func home[S any](a *slotArray[S], h uint64) uint64 { return h >> (a.shift & 63) }

// tryLock locks s, waiting while another goroutine holds it, and reports
// false when s has moved to a newer array.
func (s *slot[S]) tryLock() bool {
	for spins := 0; ; spins++ {
		if s.lock.CompareAndSwap(slotFree, slotHeld) {
			return true
		}
		if s.lock.Load() == slotMoved {
			return false
		}
		// A holder decides in tens of nanoseconds; at GOMAXPROCS 1 it may
		// have been preempted holding the lock, and only yielding lets it
		// finish.
		if spins >= 8 {
			runtime.Gosched()
		}
	}
}

func (s *slot[S]) unlock() { s.lock.Store(slotFree) }

// acquire returns k's slot locked, or nil (nothing locked) if k is not in
// the table. The caller unlocks it.
func (t *slotTable[S]) acquire(k policies.Key) *slot[S] {
	if k == 0 {
		if t.zero.key.Load() == 0 {
			return nil
		}
		t.zero.tryLock() // the zero slot never moves
		return &t.zero
	}
	sh, h := t.where(k)
	for {
		a := sh.slots.Load()
		s := a.find(k, h)
		if s == nil {
			return nil
		}
		if s.tryLock() {
			return s
		}
		// Moved: the grower publishes the new array once it has copied
		// every slot; until then this reload may find the old one again.
		runtime.Gosched()
	}
}

// find returns k's slot in a, or nil.
func (a *slotArray[S]) find(k policies.Key, h uint64) *slot[S] {
	mask := uint64(len(a.slots) - 1)
	for i := home(a, h); ; i = (i + 1) & mask {
		s := &a.slots[i]
		switch s.key.Load() {
		case k:
			return s
		case 0:
			return nil
		}
	}
}

// insert returns k's slot locked, adding k with t.fresh's state if it is
// not in the table yet. The caller unlocks it.
func (t *slotTable[S]) insert(k policies.Key) *slot[S] {
	if k == 0 {
		t.zero.tryLock()
		if t.zero.key.Load() == 0 {
			t.zero.state = t.fresh(&t.zeroRings)
			t.zero.key.Store(1)
		}
		return &t.zero
	}
	sh, h := t.where(k)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	a := sh.slots.Load() // the current array: only this mutex's holder replaces it
	if s := a.find(k, h); s != nil {
		s.tryLock() // cannot be moved while the mutex is held
		return s
	}
	if (sh.used+1)*4 > len(a.slots)*3 { // keep the load at most 3/4
		a = t.grow(sh, a)
	}
	mask := uint64(len(a.slots) - 1)
	i := home(a, h)
	for a.slots[i].key.Load() != 0 {
		i = (i + 1) & mask
	}
	s := &a.slots[i]
	s.lock.Store(slotHeld)
	s.state = t.fresh(&sh.rings)
	s.key.Store(k) // publishes the state: a finder loads the key first
	sh.used++
	return s
}

// grow copies a, shard sh's current array, into one twice its size and
// publishes it. Called with sh.mu held.
func (t *slotTable[S]) grow(sh *slotShard[S], a *slotArray[S]) *slotArray[S] {
	n := &slotArray[S]{slots: make([]slot[S], 2*len(a.slots)), shift: a.shift - 1}
	mask := uint64(len(n.slots) - 1)
	for i := range a.slots {
		s := &a.slots[i]
		k := s.key.Load()
		if k == 0 {
			continue // and stays free: inserts take the mutex this grower holds
		}
		for !s.lock.CompareAndSwap(slotFree, slotMoved) {
			runtime.Gosched() // a decider holds it
		}
		_, h := t.where(k)
		j := home(n, h)
		for n.slots[j].key.Load() != 0 {
			j = (j + 1) & mask
		}
		d := &n.slots[j]
		d.state = s.state
		d.key.Store(k)
	}
	sh.slots.Store(n)
	return n
}

// stats is the keys held and the memory they take, each shard read under
// its mutex.
func (t *slotTable[S]) stats() (keys int, heap int64) {
	for i := range t.shards {
		sh := &t.shards[i]
		sh.mu.Lock()
		keys += sh.used
		heap += sh.heapBytes()
		sh.mu.Unlock()
	}
	t.zero.tryLock()
	if t.zero.key.Load() != 0 {
		keys++
	}
	heap += t.zeroRings.held
	t.zero.unlock()
	return keys, heap
}

// heapBytes is the memory the shard holds: its array at full size and its
// rings' chunks. Called with sh.mu held.
func (sh *slotShard[S]) heapBytes() int64 {
	a := sh.slots.Load()
	return int64(len(a.slots))*int64(unsafe.Sizeof(slot[S]{})) + sh.rings.held
}

package policies

import (
	"fmt"
	"math/bits"
	"runtime"
)

// MaxShards bounds the shards of a Concurrent (or Sharded) policy.
const MaxShards = 4096

// Concurrent is a Policy that is safe for concurrent use, for servers, and
// that scales with processors on many keys: a decision on a key already
// seen locks and writes only that key's own slot of a concurrent key table
// (see slotTable), and writes nothing any other key's decision writes.
//
// Why that and not a mutex per shard: on the 2-vCPU machine this was
// measured on, handing one cache line from one processor to the other
// costs about 250 ns (`go run ./cmd/scaling -pingpong`), more than a DRAM
// miss. A line written by every decision, such as a shard's mutex or a
// policy's cache, is then written last by the other processor about half
// the time with uniform keys, and two processors decided fewer requests a
// second than one (see Sharded). A key's own slot is missed on anyway with
// many keys; with one hot key it is one line, and no design makes two
// processors decide one key's requests faster than one.
//
// Per key it decides exactly as the single-goroutine policy built with the
// same name and parameters does, given that key's requests in the same
// order: the decisions are that policy's own code, run on the key's slot
// with caches of their own (a cache shared between processors would be a
// line written by every decision). Peek and
// Snapshot lock the key's slot; Stats takes each shard's insert mutex in
// turn, so while other goroutines decide it is not one instant's picture.
// Memory grows with the keys sent, which are never forgotten, as for New's
// policies.
type Concurrent struct {
	name   string
	p      Params
	shards int
	form   concurrentForm
}

// concurrentForm is a slotPolicy of one policy's state and kernel.
type concurrentForm interface {
	Decide(key Key, now, cost int64) Decision
	Allow(key Key, now, cost int64) Verdict
	Peek(key Key, now int64) Fraction
	Snapshot(key Key, now int64) State
	Stats() Stats
}

// NewConcurrent builds a concurrency-safe policy by name, validating its
// parameters as New does. shards (the concurrent key table's, each with a
// mutex taken only to insert a new key or to grow) is rounded up to a
// power of two; 0 means four per processor (GOMAXPROCS), so that goroutines
// inserting keys rarely wait for one another. Errors are prefixed with
// "policies: ".
func NewConcurrent(name string, p Params, shards int) (*Concurrent, error) {
	if shards < 0 || shards > MaxShards {
		return nil, fmt.Errorf("policies: shards %d is out of range [0, %d]", shards, MaxShards)
	}
	shards = defaultShards(shards)
	pol, err := newPolicy(name, p)
	if err != nil {
		return nil, err
	}
	c := &Concurrent{name: name, p: pol.Params(), shards: 1 << bits.Len(uint(shards-1))}
	switch pol := pol.(type) {
	case *fixedWindowPolicy:
		c.form = newSlotPolicy[fixedWindowState](c.shards, newFixedWindowKernel(pol.p))
	case *slidingLogPolicy:
		c.form = newSlotPolicy[slidingLogSlot](c.shards, &slidingLogKernel{pol})
	case *slidingCounterPolicy:
		c.form = newSlotPolicy[slidingCounterState](c.shards, newSlidingCounterKernel(pol.p))
	case *slidingBucketsPolicy:
		c.form = newSlotPolicy[slidingBucketsSlot](c.shards, newSlidingBucketsKernel(pol.p))
	case *tokenBucketPolicy:
		c.form = newSlotPolicy[tokenBucketState](c.shards, &tokenBucketKernel{pol.p})
	case *gcraPolicy:
		c.form = newSlotPolicy[gcraState](c.shards, &gcraKernel{pol})
	case *leakyBucketPolicy:
		c.form = newSlotPolicy[leakyBucketState](c.shards, &leakyBucketKernel{pol})
	default:
		panic(fmt.Sprintf("policies: no concurrent form for %T", pol)) // newPolicy builds only the six above
	}
	return c, nil
}

// defaultShards is shards, or four per processor for 0.
func defaultShards(shards int) int {
	if shards == 0 {
		return min(4*runtime.GOMAXPROCS(0), MaxShards)
	}
	return shards
}

// Shards is the number of shards, a power of two.
func (c *Concurrent) Shards() int { return c.shards }

// Name implements Policy.
func (c *Concurrent) Name() string { return c.name }

// Params implements Policy: the normalised parameters, as New reports them.
func (c *Concurrent) Params() Params { return c.p }

// Decide implements Policy.
func (c *Concurrent) Decide(key Key, now, cost int64) Decision { return c.form.Decide(key, now, cost) }

// Allow implements Policy.
func (c *Concurrent) Allow(key Key, now, cost int64) Verdict { return c.form.Allow(key, now, cost) }

// Peek implements Policy.
func (c *Concurrent) Peek(key Key, now int64) Fraction { return c.form.Peek(key, now) }

// Snapshot implements Policy.
func (c *Concurrent) Snapshot(key Key, now int64) State { return c.form.Snapshot(key, now) }

// Stats implements Policy: the keys and the heap of every shard, each read
// under its insert mutex.
func (c *Concurrent) Stats() Stats { return c.form.Stats() }

// slotKernel is one policy's per-key arithmetic for the concurrent form:
// the single-goroutine policy's own kernels (decideOn, peekOn, snapshotOn)
// on a slot's state S, each call with caches of its own.
type slotKernel[S any] interface {
	// decide decides on st, changing nothing for a request that never
	// fits.
	decide(st *S, now, cost int64) Decision
	// allow is decide's verdict, for a request that fits.
	allow(st *S, now, cost int64) Verdict
	// never reports whether a request of cost can never be admitted.
	never(cost int64) bool
	// unseen is the decision for such a request on a key never seen, which
	// it does not add.
	unseen(now, cost int64) Decision
	// peek and snapshot describe st at now; st nil is a key never seen.
	peek(st *S, now int64) Fraction
	snapshot(st *S, now int64) State
	// stats is Stats of keys keys, without the heap.
	stats(keys int) Stats
	// fresh is a new key's state, its ring (if it has one) taken from r.
	fresh(r *ringChunks) S
}

// slotPolicy is a concurrent form: a slot table of S decided by kernel K.
type slotPolicy[S any, K slotKernel[S]] struct {
	k K
	t *slotTable[S]
}

func newSlotPolicy[S any, K slotKernel[S]](shards int, k K) *slotPolicy[S, K] {
	return &slotPolicy[S, K]{k: k, t: newSlotTable[S](shards, k.fresh)}
}

func (c *slotPolicy[S, K]) Decide(key Key, now, cost int64) Decision {
	s := c.t.acquire(key)
	if s == nil {
		if c.k.never(cost) {
			return c.k.unseen(now, cost) // and adds nothing, like New's policies
		}
		s = c.t.insert(key)
	}
	d := c.k.decide(&s.state, now, cost)
	s.unlock()
	return d
}

func (c *slotPolicy[S, K]) Allow(key Key, now, cost int64) Verdict {
	if c.k.never(cost) {
		return Verdict{Never: true} // and changes nothing, like Decide
	}
	s := c.t.acquire(key)
	if s == nil {
		s = c.t.insert(key)
	}
	v := c.k.allow(&s.state, now, cost)
	s.unlock()
	return v
}

func (c *slotPolicy[S, K]) Peek(key Key, now int64) Fraction {
	s := c.t.acquire(key)
	if s == nil {
		return c.k.peek(nil, now)
	}
	f := c.k.peek(&s.state, now)
	s.unlock()
	return f
}

func (c *slotPolicy[S, K]) Snapshot(key Key, now int64) State {
	s := c.t.acquire(key)
	if s == nil {
		return c.k.snapshot(nil, now)
	}
	st := c.k.snapshot(&s.state, now)
	s.unlock()
	return st
}

func (c *slotPolicy[S, K]) Stats() Stats {
	keys, heap := c.t.stats()
	st := c.k.stats(keys)
	st.HeapBytes = heap
	return st
}

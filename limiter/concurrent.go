package limiter

import (
	"fmt"
	"math/bits"
	"runtime"

	"github.com/windowlab/playground/policies"
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
// order: the decisions are that policy's own rule (policies.Rule), run on
// the key's slot. Peek and
// Snapshot lock the key's slot; Stats takes each shard's insert mutex in
// turn, so while other goroutines decide it is not one instant's picture.
// Memory grows with the keys sent, which are never forgotten, as for New's
// policies.
type Concurrent struct {
	name   string
	p      policies.Params
	shards int
	form   concurrentForm
}

// concurrentForm is a slotPolicy of one policy's state and rule.
type concurrentForm interface {
	Decide(key policies.Key, now, cost int64) policies.Decision
	Allow(key policies.Key, now, cost int64) policies.Verdict
	Peek(key policies.Key, now int64) policies.Fraction
	Snapshot(key policies.Key, now int64) policies.State
	Stats() policies.Stats
}

// NewConcurrent builds a concurrency-safe policy by name, validating its
// parameters as policies.New does (and with its errors). shards (the
// concurrent key table's, each with a mutex taken only to insert a new key
// or to grow) is rounded up to a power of two; 0 means four per processor
// (GOMAXPROCS), so that goroutines inserting keys rarely wait for one
// another; out of range, the error is prefixed with "limiter: ".
func NewConcurrent(name string, p policies.Params, shards int) (*Concurrent, error) {
	if shards < 0 || shards > MaxShards {
		return nil, fmt.Errorf("limiter: shards %d is out of range [0, %d]", shards, MaxShards)
	}
	shards = defaultShards(shards)
	np, err := policies.Normalised(name, p)
	if err != nil {
		return nil, err
	}
	build, ok := concurrentForms.Lookup(name)
	if !ok {
		return nil, fmt.Errorf("limiter: %s has no concurrent form", name)
	}
	c := &Concurrent{name: name, p: np, shards: 1 << bits.Len(uint(shards-1))}
	if c.form, err = build(c.shards, p); err != nil {
		return nil, err
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

// Name implements policies.Policy.
func (c *Concurrent) Name() string { return c.name }

// Params implements policies.Policy: the normalised parameters, as
// policies.New reports them.
func (c *Concurrent) Params() policies.Params { return c.p }

// Decide implements policies.Policy.
func (c *Concurrent) Decide(key policies.Key, now, cost int64) policies.Decision {
	return c.form.Decide(key, now, cost)
}

// Allow implements policies.Policy.
func (c *Concurrent) Allow(key policies.Key, now, cost int64) policies.Verdict {
	return c.form.Allow(key, now, cost)
}

// Peek implements policies.Policy.
func (c *Concurrent) Peek(key policies.Key, now int64) policies.Fraction {
	return c.form.Peek(key, now)
}

// Snapshot implements policies.Policy.
func (c *Concurrent) Snapshot(key policies.Key, now int64) policies.State {
	return c.form.Snapshot(key, now)
}

// Stats implements policies.Policy: the keys and the heap of every shard,
// each read under its insert mutex.
func (c *Concurrent) Stats() policies.Stats { return c.form.Stats() }

// concurrentForms holds each policy's concurrent form, registered from the
// policy's own file in this package: each rule keeps a state type of its
// own inline in the slots, and Go instantiates the slot table for a type
// only where a line names it.
var concurrentForms = policies.NewByName[func(shards int, p policies.Params) (concurrentForm, error)]("limiter")

// registerSlots records name's concurrent form: a slot table of the state
// its rule keeps, the rule built by newRule (policies.NewGCRARule, …),
// which validates the parameters.
func registerSlots[S any, R policies.Rule[S]](name string, newRule func(policies.Params) (R, error)) {
	concurrentForms.Register(name, func(shards int, p policies.Params) (concurrentForm, error) {
		r, err := newRule(p)
		if err != nil {
			return nil, err
		}
		return newSlotPolicy(shards, r), nil
	})
}

// slotPolicy is a concurrent form: a slot table of S decided by rule R.
type slotPolicy[S any, R policies.Rule[S]] struct {
	r R
	t *slotTable[S]
}

func newSlotPolicy[S any, R policies.Rule[S]](shards int, r R) *slotPolicy[S, R] {
	n := r.RingLen()
	fresh := func(rings *ringChunks) S { return r.Fresh(rings.take(n)) }
	return &slotPolicy[S, R]{r: r, t: newSlotTable[S](shards, fresh)}
}

func (c *slotPolicy[S, R]) Decide(key policies.Key, now, cost int64) policies.Decision {
	s := c.t.acquire(key)
	if s == nil {
		if c.r.Never(cost) {
			return c.r.Unseen(now, cost) // and adds nothing, like New's policies
		}
		s = c.t.insert(key)
	}
	d := c.r.Decide(&s.state, now, cost)
	s.unlock()
	return d
}

func (c *slotPolicy[S, R]) Allow(key policies.Key, now, cost int64) policies.Verdict {
	if c.r.Never(cost) {
		return policies.Verdict{Never: true} // and changes nothing, like Decide
	}
	s := c.t.acquire(key)
	if s == nil {
		s = c.t.insert(key)
	}
	v := c.r.Allow(&s.state, now, cost)
	s.unlock()
	return v
}

func (c *slotPolicy[S, R]) Peek(key policies.Key, now int64) policies.Fraction {
	s := c.t.acquire(key)
	if s == nil {
		return c.r.Peek(nil, now)
	}
	f := c.r.Peek(&s.state, now)
	s.unlock()
	return f
}

func (c *slotPolicy[S, R]) Snapshot(key policies.Key, now int64) policies.State {
	s := c.t.acquire(key)
	if s == nil {
		return c.r.Snapshot(nil, now)
	}
	st := c.r.Snapshot(&s.state, now)
	s.unlock()
	return st
}

func (c *slotPolicy[S, R]) Stats() policies.Stats {
	keys, heap := c.t.stats()
	st := c.r.Stats(keys)
	st.HeapBytes = heap
	return st
}

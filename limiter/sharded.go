package limiter

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"sync"

	"github.com/windowlab/playground/policies"
)

// Sharded is the first concurrency-safe form, kept so that cmd/scaling and
// the tests can set Concurrent beside it: keys are spread over shards by a
// seeded hash, and each shard is a mutex and an ordinary policy of its own. Two requests contend only when their keys
// share a shard. A key always lives in the same shard, so per key it decides
// exactly as the single-goroutine policy built with the same name and
// parameters does, given its requests in the same order.
//
// Stats sums the shards; Snapshot and Peek lock the key's shard. Memory is
// that of the shards' policies: keys are never forgotten.
//
// It does not scale with processors: every decision writes its shard's
// mutex, a line the other processors wrote too, and handing a line from one
// processor to another costs more than the DRAM miss of the key's own state
// (see Concurrent). Two processors decide fewer requests a second than one.
type Sharded struct {
	name   string
	p      policies.Params
	seed   uint64
	shift  uint // 64 - log2(len(shards))
	shards []concurrentShard
}

// concurrentShard fills a 64-byte cache line or more, so that goroutines
// locking neighbouring shards do not contend for one line.
type concurrentShard struct {
	mu  sync.Mutex
	pol policies.Policy
	_   [64 - 8 - 16]byte
}

// NewSharded builds the sharded-mutex form by name, validating its
// parameters as New does. shards is as for NewConcurrent. Errors are
// prefixed with "policies: ".
func NewSharded(name string, p policies.Params, shards int) (*Sharded, error) {
	if shards < 0 || shards > MaxShards {
		return nil, fmt.Errorf("limiter: shards %d is out of range [0, %d]", shards, MaxShards)
	}
	shards = defaultShards(shards)
	logN := bits.Len(uint(shards - 1)) // shards rounded up to 1<<logN
	c := &Sharded{
		name:   name,
		seed:   rand.Uint64(),
		shift:  uint(64 - logN),
		shards: make([]concurrentShard, 1<<logN),
	}
	for i := range c.shards {
		pol, err := policies.New(name, p)
		if err != nil {
			return nil, err
		}
		c.shards[i].pol = pol
		c.p = pol.Params()
	}
	return c, nil
}

// shard is the shard that holds key: the top bits of a seeded
// multiplicative hash, so that keys chosen to crowd one shard cannot be
// chosen without the seed. (Each shard's table hashes keys with its own
// seed, so sharing a shard does not put keys in one probe chain.)
func (c *Sharded) shard(key policies.Key) *concurrentShard {
	if c.shift == 64 {
		return &c.shards[0]
	}
	h := (key ^ c.seed) * 0x9e3779b97f4a7c15
	return &c.shards[h>>c.shift]
}

// Shards is the number of shards, a power of two.
func (c *Sharded) Shards() int { return len(c.shards) }

// Name implements policies.Policy.
func (c *Sharded) Name() string { return c.name }

// Params implements policies.Policy: the normalised parameters, as New reports them.
func (c *Sharded) Params() policies.Params { return c.p }

// Decide implements policies.Policy.
func (c *Sharded) Decide(key policies.Key, now, cost int64) policies.Decision {
	s := c.shard(key)
	s.mu.Lock()
	d := s.pol.Decide(key, now, cost)
	s.mu.Unlock()
	return d
}

// Allow implements policies.Policy.
func (c *Sharded) Allow(key policies.Key, now, cost int64) policies.Verdict {
	s := c.shard(key)
	s.mu.Lock()
	v := s.pol.Allow(key, now, cost)
	s.mu.Unlock()
	return v
}

// Peek implements policies.Policy.
func (c *Sharded) Peek(key policies.Key, now int64) policies.Fraction {
	s := c.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pol.Peek(key, now)
}

// Snapshot implements policies.Policy.
func (c *Sharded) Snapshot(key policies.Key, now int64) policies.State {
	s := c.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pol.Snapshot(key, now)
}

// Stats implements policies.Policy: the shards' sums, each shard read under its lock
// (so the sum is not one instant's picture while other goroutines decide).
func (c *Sharded) Stats() policies.Stats {
	var total policies.Stats
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		st := s.pol.Stats()
		s.mu.Unlock()
		total.Keys += st.Keys
		total.Entries += st.Entries
		total.BytesPerKey = st.BytesPerKey
		total.HeapBytes += st.HeapBytes
	}
	return total
}

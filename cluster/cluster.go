package cluster

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/windowlab/playground/policies"
)

// Bounds of a Config.
const (
	MaxNodes  = 16
	MaxSyncMs = policies.MaxWindowMs
	MaxSkewMs = policies.MaxWindowMs
)

// Route chooses the node a request goes to.
type Route string

const (
	RoundRobin Route = "round-robin" // the default: the i-th request to node i mod N
	Random     Route = "random"      // a node drawn from a generator seeded with Config.Seed
	ByKey      Route = "key"         // a key always to the same node
)

// Config describes several servers running one policy. See the package
// documentation for what each field means.
type Config struct {
	Policy  string
	Params  policies.Params
	Nodes   int   // 1 to MaxNodes; 0 means 1
	Route   Route // "" means RoundRobin
	Seed    uint64
	SyncMs  int64 // 0: never sync
	Central bool
	SkewMs  []int64 // per node; missing entries are 0
}

// Request is one request to the cluster, at a real instant.
type Request struct {
	Key  policies.Key
	At   int64
	Cost int64
}

// Decision is the cluster's answer to one request.
type Decision struct {
	// Node is the node the request was routed to, from 0 (pages show
	// Node+1). With Central it is the node that asked the store.
	Node int
	// Policy is the deciding node's own decision, made at its own instant
	// Local (the store's, at the real instant, with Central): the outcome
	// is Policy.Allowed.
	Policy policies.Decision
	Local  int64
	// Unheard is what the node did not know: the requests of the same key
	// admitted by other nodes within the last windowMs (of the cluster's
	// clock) that it had not taken in, their permits, and the nodes that admitted them,
	// ascending. Always zero with Central.
	Unheard        int
	UnheardPermits int64
	UnheardFrom    []int
	// LastSync is the latest sync at or before the request, -1 if none.
	LastSync int64
	// Single is whether one server that saw every request would have
	// admitted this one.
	Single bool
	// Admitted is the permits admitted across all nodes so far, this
	// request included, and SingleAdmitted what one server would have
	// admitted of the same requests.
	Admitted, SingleAdmitted int64
}

// OverAdmitted is admitted across nodes minus what one server would have
// admitted, so far; negative when the nodes admitted less.
func (d Decision) OverAdmitted() int64 { return d.Admitted - d.SingleAdmitted }

// Cluster is several servers running one policy. It is not safe for
// concurrent use: a scenario decides its requests one at a time.
type Cluster struct {
	cfg     Config
	nodes   []node
	central policies.Local // with Central, the one shared state
	single  policies.Local // the reference: one server seeing everything
	pcg     *rand.PCG      // rng's source, kept so that Next can copy it
	rng     *rand.Rand
	next    int   // round-robin: the node of the next request
	clock   int64 // the latest real instant seen
	synced  int64 // the latest sync applied, -1 before the first

	// log holds the admitted requests, in the order admitted, from seq
	// base on: those within the last windowMs (for Unheard) and those not
	// yet delivered by a sync. undelivered is the first of the latter.
	log         []admission
	base        int
	undelivered int

	admitted, singleAdmitted int64
}

type node struct {
	policy policies.Local
	skew   int64
	// inbox holds what syncs delivered and the node has not yet taken
	// in, by stamp: a request stamped later than the node's own clock (a
	// node whose clock runs ahead admitted it) waits until the node's clock
	// reaches it, as a count of a window the node has not reached would.
	inbox []admission
}

// admission is a request a node admitted, as the others hear of it.
type admission struct {
	seq   int
	real  int64 // the cluster's clock when it was admitted
	stamp int64 // the admitting node's own instant: what the others count it at
	key   policies.Key
	cost  int64
	node  int
	known uint16 // the nodes that have counted it (its own included)
}

// New validates cfg and builds the nodes, each its own instance of the
// policy from policies.New. Errors name the field: the cluster's own start
// "cluster: ", the policy's are policies.New's.
func New(cfg Config) (*Cluster, error) {
	if cfg.Nodes == 0 {
		cfg.Nodes = 1
	}
	if cfg.Route == "" {
		cfg.Route = RoundRobin
	}
	switch {
	case cfg.Nodes < 1 || cfg.Nodes > MaxNodes:
		return nil, fmt.Errorf("cluster: nodes %d is out of range [1, %d]", cfg.Nodes, MaxNodes)
	case cfg.Route != RoundRobin && cfg.Route != Random && cfg.Route != ByKey:
		return nil, fmt.Errorf("cluster: route %q is none of %q, %q, %q", cfg.Route, RoundRobin, Random, ByKey)
	case cfg.SyncMs < 0 || cfg.SyncMs > MaxSyncMs:
		return nil, fmt.Errorf("cluster: syncMs %d is out of range [0, %d] (0 never syncs)", cfg.SyncMs, int64(MaxSyncMs))
	case len(cfg.SkewMs) > cfg.Nodes:
		return nil, fmt.Errorf("cluster: skewMs has %d entries for %d nodes", len(cfg.SkewMs), cfg.Nodes)
	}
	for i, s := range cfg.SkewMs {
		if s < -MaxSkewMs || s > MaxSkewMs {
			return nil, fmt.Errorf("cluster: skewMs[%d] %d is out of range [%d, %d]", i, s, -int64(MaxSkewMs), int64(MaxSkewMs))
		}
	}
	cfg.SkewMs = slices.Clone(cfg.SkewMs)
	build := func() (policies.Local, error) { return policies.NewLocal(cfg.Policy, cfg.Params) }
	single, err := build()
	if err != nil {
		return nil, err
	}
	c := &Cluster{cfg: cfg, single: single, synced: -1, pcg: rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)}
	c.rng = rand.New(c.pcg)
	if cfg.Central {
		c.central, _ = build()
		return c, nil
	}
	for i := range cfg.Nodes {
		p, _ := build()
		n := node{policy: p}
		if i < len(cfg.SkewMs) {
			n.skew = cfg.SkewMs[i]
		}
		c.nodes = append(c.nodes, n)
	}
	return c, nil
}

// Config returns the configuration, with defaults filled in.
func (c *Cluster) Config() Config { return c.cfg }

// route picks the node of a request; it never depends on an outcome.
func (c *Cluster) route(key policies.Key) int {
	n := c.cfg.Nodes
	switch c.cfg.Route {
	case Random:
		return c.rng.IntN(n)
	case ByKey:
		return int(mix64(key) % uint64(n))
	}
	i := c.next
	c.next = (c.next + 1) % n
	return i
}

// mix64 is the finaliser of SplitMix64: neighbouring keys (0, 1, 2 …) land
// on unrelated nodes, and mix64(k) mod 4 refines mix64(k) mod 2, so with 4
// nodes each of 2 nodes' keys splits in two.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// advance moves the cluster's clock to at (never back) and applies the
// sync it passed, if any: each node is handed every request the others
// admitted before it. Between two requests there are no decisions, so
// the syncs skipped over deliver nothing a single one does not.
func (c *Cluster) advance(at int64) {
	c.clock = max(c.clock, at)
	if c.cfg.SyncMs > 0 {
		if s := c.clock - c.clock%c.cfg.SyncMs; s > c.synced {
			c.synced = s
			for _, a := range c.log[c.undelivered:] {
				for i := range c.nodes {
					if i != a.node {
						c.nodes[i].inbox = append(c.nodes[i].inbox, a)
					}
				}
			}
			c.undelivered = len(c.log)
			for i := range c.nodes {
				slices.SortStableFunc(c.nodes[i].inbox, func(a, b admission) int { return cmp.Compare(a.stamp, b.stamp) })
				// Taken in now, not at the node's next decision, so
				// that an idle node's inbox holds only what is stamped
				// ahead of its clock. A request in time order reaches
				// the node at s+skew or later, so it finds the same
				// state either way.
				c.takeIn(i, s+c.nodes[i].skew)
			}
		}
	}
	c.trim()
}

// trim forgets the delivered admissions older than a window: Unheard looks
// back one window, and every node has them in its inbox or its state. So
// the log holds at most a window's admissions plus one sync interval's.
func (c *Cluster) trim() {
	cut := 0
	for cut < len(c.log) && c.log[cut].real <= c.clock-c.cfg.Params.WindowMs {
		cut++
	}
	if c.cfg.SyncMs > 0 {
		cut = min(cut, c.undelivered)
	}
	if cut > 0 && cut*2 >= len(c.log) {
		c.log = append(c.log[:0], c.log[cut:]...)
		c.base += cut
		c.undelivered -= cut
	}
}

// takeIn absorbs node i's inbox up to its own instant local.
func (c *Cluster) takeIn(i int, local int64) {
	n := &c.nodes[i]
	k := 0
	for ; k < len(n.inbox) && n.inbox[k].stamp <= local; k++ {
		a := n.inbox[k]
		n.policy.Absorb(a.key, a.stamp, a.cost)
		if j := a.seq - c.base; j >= 0 {
			c.log[j].known |= 1 << i
		}
	}
	n.inbox = append(n.inbox[:0], n.inbox[k:]...)
}

// Decide routes the request to a node and decides it there. Requests are
// taken in the order given; the cluster's clock is the latest instant seen,
// and an earlier at is decided by the node's policy under its late rule.
func (c *Cluster) Decide(key policies.Key, at, cost int64) Decision {
	c.advance(at)
	i := c.route(key)
	d := Decision{Node: i, LastSync: c.synced}
	if c.central != nil {
		d.Local = at
		d.Policy = c.central.Decide(key, at, cost)
	} else {
		n := &c.nodes[i]
		d.Local = at + n.skew
		c.takeIn(i, d.Local)
		c.unheard(i, key, &d)
		d.Policy = n.policy.Decide(key, d.Local, cost)
		if d.Policy.Allowed {
			c.log = append(c.log, admission{seq: c.base + len(c.log), real: c.clock, stamp: d.Local,
				key: key, cost: cost, node: i, known: 1 << i})
		}
	}
	d.Single = c.single.Decide(key, at, cost).Allowed
	if d.Policy.Allowed {
		c.admitted += cost
	}
	if d.Single {
		c.singleAdmitted += cost
	}
	d.Admitted, d.SingleAdmitted = c.admitted, c.singleAdmitted
	return d
}

// unheard fills what node i had not taken in of the last window's
// admissions of key by other nodes.
func (c *Cluster) unheard(i int, key policies.Key, d *Decision) {
	var from uint16
	for k := len(c.log) - 1; k >= 0 && c.log[k].real > c.clock-c.cfg.Params.WindowMs; k-- {
		if a := c.log[k]; a.key == key && a.known&(1<<i) == 0 {
			d.Unheard++
			d.UnheardPermits += a.cost
			from |= 1 << a.node
		}
	}
	for j := range c.cfg.Nodes {
		if from&(1<<j) != 0 {
			d.UnheardFrom = append(d.UnheardFrom, j)
		}
	}
}

// Snapshot describes node i's state of key at the real instant at, on its
// own clock, once it has taken in what the syncs up to at delivered. Like a
// decision it moves the cluster's clock to at. With Central every node
// shows the store.
func (c *Cluster) Snapshot(i int, key policies.Key, at int64) policies.State {
	c.advance(at)
	if c.central != nil {
		return c.central.Snapshot(key, at)
	}
	local := at + c.nodes[i].skew
	c.takeIn(i, local)
	return c.nodes[i].policy.Snapshot(key, local)
}

// Decider is the policy that decides node i's requests: the node's own, or
// with Central the store every node asks. It is the cluster's: a caller may
// Peek or Snapshot it at the node's own instants, never Decide on it.
func (c *Cluster) Decider(i int) policies.Policy {
	if c.central != nil {
		return c.central
	}
	return c.nodes[i].policy
}

// Admitted is the permits admitted across the nodes so far, and Single what
// one server would have admitted of the same requests.
func (c *Cluster) Admitted() (nodes, single int64) { return c.admitted, c.singleAdmitted }

// Result is a whole run: every decision and the totals.
type Result struct {
	Decisions []Decision
	// Admitted is the permits the nodes admitted, Single what one server
	// would have, and OverAdmission the first minus the second.
	Admitted, Single, OverAdmission int64
}

// Run decides reqs in order on a new cluster.
func Run(cfg Config, reqs []Request) (Result, error) {
	c, err := New(cfg)
	if err != nil {
		return Result{}, err
	}
	res := Result{Decisions: make([]Decision, 0, len(reqs))}
	for _, q := range reqs {
		res.Decisions = append(res.Decisions, c.Decide(q.Key, q.At, q.Cost))
	}
	res.Admitted, res.Single = c.Admitted()
	res.OverAdmission = res.Admitted - res.Single
	return res, nil
}

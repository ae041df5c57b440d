package cluster

import (
	"cmp"
	"slices"

	"github.com/windowlab/playground/policies"
)

// State is node i's own state of key at the real instant at, as Snapshot
// gives it (on the node's own clock, once it has taken in what the syncs
// up to at delivered), without changing the cluster: Snapshot moves the
// cluster's clock, so that a request decided after it at an earlier
// instant would be decided late, and State is what a page drawing each
// node between decisions asks. With Central every node shows the store.
// What the node would take in by at is absorbed into a copy of its
// policy; with nothing to take in there is no copy.
func (c *Cluster) State(i int, key policies.Key, at int64) policies.State {
	if c.central != nil {
		return c.central.Snapshot(key, at)
	}
	n := &c.nodes[i]
	local := at + n.skew
	pending := c.pendingFor(i, at)
	k := 0
	for k < len(pending) && pending[k].stamp <= local {
		k++
	}
	if k == 0 {
		return n.policy.Snapshot(key, local)
	}
	p := n.policy.Clone()
	for _, r := range pending[:k] {
		p.Absorb(r.key, r.stamp, r.cost)
	}
	return p.Snapshot(key, local)
}

// pendingFor is what node i holds untaken at at, in the order advance and
// takeIn would absorb it: its inbox and, when a sync falls after the last
// one applied and by at, what that sync would deliver, by stamp.
func (c *Cluster) pendingFor(i int, at int64) []admission {
	n := &c.nodes[i]
	syncs := c.cfg.SyncMs > 0 && at-at%max(c.cfg.SyncMs, 1) > c.synced
	if !syncs {
		return n.inbox
	}
	out := slices.Clone(n.inbox)
	for _, a := range c.log[c.undelivered:] {
		if a.node != i {
			out = append(out, a)
		}
	}
	slices.SortStableFunc(out, func(a, b admission) int { return cmp.Compare(a.stamp, b.stamp) })
	return out
}

package cluster

import (
	"math/rand/v2"
	"slices"

	"github.com/windowlab/playground/policies"
)

// Next is what Decide(key, at, cost) would return, decided on a copy so
// that the cluster is left as it was: the node the request would reach and
// its answer there. Routing never depends on an outcome and the random
// route's generator is seeded, so the node is as determined as the answer:
// the copy draws from a copy of the generator's state.
func (c *Cluster) Next(key policies.Key, at, cost int64) Decision {
	return c.clone().Decide(key, at, cost)
}

// clone is an independent copy of the cluster: its policies, inboxes, log
// and generator, each copied, so that deciding on it changes nothing here.
func (c *Cluster) clone() *Cluster {
	cp := *c
	cp.single = c.single.Clone()
	if c.central != nil {
		cp.central = c.central.Clone()
	}
	cp.nodes = slices.Clone(c.nodes)
	for i := range cp.nodes {
		cp.nodes[i].policy = c.nodes[i].policy.Clone()
		cp.nodes[i].inbox = slices.Clone(c.nodes[i].inbox)
	}
	cp.log = slices.Clone(c.log)
	pcg := *c.pcg
	cp.pcg = &pcg
	cp.rng = rand.New(cp.pcg)
	return &cp
}

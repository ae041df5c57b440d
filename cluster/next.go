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
// the copy draws from a copy of the generator's state. ok is false if a
// policy cannot be copied (policies.TestCloneIsIndependent says none).
func (c *Cluster) Next(key policies.Key, at, cost int64) (d Decision, ok bool) {
	cp, ok := c.clone()
	if !ok {
		return Decision{}, false
	}
	return cp.Decide(key, at, cost), true
}

// clone is an independent copy of the cluster: its policies, inboxes, log
// and generator, each copied, so that deciding on it changes nothing here.
func (c *Cluster) clone() (*Cluster, bool) {
	cp := *c
	var ok bool
	if cp.single, ok = policies.Clone(c.single); !ok {
		return nil, false
	}
	if c.central != nil {
		if cp.central, ok = policies.Clone(c.central); !ok {
			return nil, false
		}
	}
	cp.nodes = slices.Clone(c.nodes)
	for i := range cp.nodes {
		p, ok := policies.Clone(c.nodes[i].policy)
		if !ok {
			return nil, false
		}
		cp.nodes[i].policy, cp.nodes[i].absorber = p, p.(policies.Absorber)
		cp.nodes[i].inbox = slices.Clone(c.nodes[i].inbox)
	}
	cp.log = slices.Clone(c.log)
	pcg := *c.pcg
	cp.pcg = &pcg
	cp.rng = rand.New(cp.pcg)
	return &cp, true
}

package cluster

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/windowlab/playground/policies"
)

// State is Snapshot without its change to the cluster: at every instant
// between two requests, each node's State of each key is what a fresh
// cluster that decided the same requests gives with Snapshot, and asking
// for it, even at an instant past the next request, changes none of the
// decisions after it.
func TestPropertyStateIsSnapshotUnchanged(t *testing.T) {
	r := rand.New(rand.NewPCG(propertySeed, 7))
	for _, name := range policies.Names {
		for run := range 30 {
			p := randomParams(r, name)
			cfg := randomConfig(r, name, p)
			if r.IntN(3) == 0 {
				for range cfg.Nodes {
					cfg.SkewMs = append(cfg.SkewMs, r.Int64N(2*p.WindowMs+1)-p.WindowMs)
				}
			}
			cfg.Central = r.IntN(8) == 0
			reqs := traffic(r, p, 25, false)
			where := fmt.Sprintf("%s run %d (seed %d, %+v)", name, run, propertySeed, cfg)
			asked, err := New(cfg)
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			plain := mustRun(t, cfg, reqs)
			for k, q := range reqs {
				// Between the previous request and this one.
				from := q.At
				if k > 0 {
					from = reqs[k-1].At
				}
				at := from + r.Int64N(q.At-from+1)
				if k > 0 {
					ref, _ := New(cfg)
					for _, prev := range reqs[:k] {
						ref.Decide(prev.Key, prev.At, prev.Cost)
					}
					node := r.IntN(cfg.Nodes)
					key := policies.Key(r.IntN(3))
					if got, want := asked.State(node, key, at), ref.Snapshot(node, key, at); !reflect.DeepEqual(got, want) {
						t.Fatalf("%s: before request %d, node %d's state of key %d at %d = %+v, want Snapshot's %+v", where, k, node, key, at, got, want)
					}
				}
				// A page may draw the nodes at a clock past the next
				// request (the clock moved on, then back): that changes
				// nothing either.
				asked.State(r.IntN(cfg.Nodes), q.Key, q.At+1+r.Int64N(2*p.WindowMs))
				if got := asked.Decide(q.Key, q.At, q.Cost); !reflect.DeepEqual(got, plain.Decisions[k]) {
					t.Fatalf("%s: request %d decided %+v after States, %+v without", where, k, got, plain.Decisions[k])
				}
			}
		}
	}
}

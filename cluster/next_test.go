package cluster

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/windowlab/playground/policies"
)

// Next is the next Decide without its change: before every request, Next
// of that request equals what Decide then returns (the node included, on
// every route, the random one too), and asking Next, even of another key
// at a later instant, changes none of the decisions of a plain run.
func TestPropertyNextIsDecideUnchanged(t *testing.T) {
	r := rand.New(rand.NewPCG(propertySeed, 11))
	for _, name := range policies.Names {
		for run := range 30 {
			p := randomParams(r, name)
			cfg := randomConfig(r, name, p)
			cfg.Central = r.IntN(6) == 0
			reqs := traffic(r, p, 25, false)
			where := fmt.Sprintf("%s run %d (seed %d, %+v)", name, run, propertySeed, cfg)
			asked, err := New(cfg)
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			plain := mustRun(t, cfg, reqs)
			for k, q := range reqs {
				next := asked.Next(q.Key, q.At, q.Cost)
				if !reflect.DeepEqual(next, plain.Decisions[k]) {
					t.Fatalf("%s: request %d: Next = %+v, Decide = %+v", where, k, next, plain.Decisions[k])
				}
				asked.Next(policies.Key(r.IntN(3)), q.At+r.Int64N(2*p.WindowMs), 1)
				if got := asked.Decide(q.Key, q.At, q.Cost); !reflect.DeepEqual(got, plain.Decisions[k]) {
					t.Fatalf("%s: request %d decided %+v after Next, %+v without", where, k, got, plain.Decisions[k])
				}
			}
		}
	}
}

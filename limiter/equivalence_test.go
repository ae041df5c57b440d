package limiter

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/windowlab/playground/policies"
)

// TestFormsAgreeOnEverySequence holds both server forms to the
// single-goroutine policy on every sequence of three requests from a small
// domain (limits 1 and 3, a window of 3 ms or 3 buckets, costs 0, 1, 2 and
// capacity+1, instants over two windows, so that sequences go back in time
// as often as forward), each sequence on a key of its own and each form
// asked once through Decide and, on another key, once through Allow:
// every decision, verdict and Peek after it, and the Snapshot at the end,
// must be the policy's. policies' TestRuleCopiesAgree checks the rules these
// forms run state by state; this checks that the forms run them on the
// right key's state, add a key when the policy does, and answer for keys
// they hold and keys they do not.
func TestFormsAgreeOnEverySequence(t *testing.T) {
	instants := []int64{0, 1, 2, 3, 4, 6}
	for _, form := range concurrentPolicyForms {
		for _, limit := range []int64{1, 3} {
			p := form.p
			p.Limit, p.WindowMs = limit, 3
			capacity := limit
			var reqs []request
			for _, cost := range []int64{0, 1, 2, capacity + 1} {
				for _, at := range instants {
					reqs = append(reqs, request{at: at, cost: cost})
				}
			}
			for _, ck := range concurrentKinds {
				label := fmt.Sprintf("%s %s %+v", ck.kind, form.name, p)
				c := mustConcurrent(t, ck.build, form.name, p, 4)
				single := mustNew(t, form.name, p)
				// Keys 2i and 2i+1 take sequence i, through Decide and
				// through Allow; key 0 is the one the table holds apart.
				var seq int
				for _, a := range reqs {
					for _, b := range reqs {
						for _, z := range reqs {
							byDecide, byAllow := policies.Key(2*seq), policies.Key(2*seq+1)
							for i, q := range []request{a, b, z} {
								want := single.Decide(byDecide, q.at, q.cost)
								if got := c.Decide(byDecide, q.at, q.cost); got != want {
									t.Fatalf("%s: sequence %v %v %v, step %d: Decide = %+v, want %+v", label, a, b, z, i, got, want)
								}
								if got := c.Allow(byAllow, q.at, q.cost); got != verdictOf(want) {
									t.Fatalf("%s: sequence %v %v %v, step %d: Allow = %+v, want %+v", label, a, b, z, i, got, verdictOf(want))
								}
								peek := single.Peek(byDecide, q.at)
								for _, k := range []policies.Key{byDecide, byAllow} {
									if got := c.Peek(k, q.at); got != peek {
										t.Fatalf("%s: sequence %v %v %v, step %d: Peek of key %d = %v, want %v", label, a, b, z, i, k, got, peek)
									}
								}
							}
							at := instants[seq%len(instants)]
							want := single.Snapshot(byDecide, at)
							for _, k := range []policies.Key{byDecide, byAllow} {
								if got := c.Snapshot(k, at); !reflect.DeepEqual(got, want) {
									t.Fatalf("%s: after the sequence %v %v %v: Snapshot(%d, %d) = %+v, want %+v", label, a, b, z, k, at, got, want)
								}
							}
							seq++
						}
					}
				}
				// Both of a sequence's keys hold a state when the policy's
				// key does.
				if got, want := c.Stats().Keys, 2*single.Stats().Keys; got != want {
					t.Errorf("%s: Stats().Keys = %d, want %d (two per key of the policy's)", label, got, want)
				}
			}
		}
	}
}

package policies

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
)

// ruleCase is what TestRuleCopiesAgree needs of one policy's rule: a deep
// copy of a state, and a key's state as plain numbers, comparable with ==,
// read from a rule's state and from the single-goroutine policy's table.
// Caches (a remembered retry) are left out of the numbers: they are not
// state, and any value they hold must give the same decisions, which is
// what the test checks.
type ruleCase[S any, R Rule[S]] struct {
	build func(Params) (R, error)
	copy  func(S) S
	view  func(S) any
	// ring, for a state holding one, is its ring (which restore saves).
	ring func(S) []int64
}

// TestRuleCopiesAgree holds together every copy of each policy's decision
// rule: Decide (decideOn), the policy's Allow, and the rule's Decide and
// Allow that limiter's concurrent form runs (a policy's verdict path, Allow,
// is its second copy of the arithmetic; limiter's Sharded runs the policy
// itself). From a key never seen it explores every state the
// rule reaches with requests of every cost from 0 to capacity+1 at every
// instant of a few windows, and in each state it tries every such request,
// later and earlier (late) than the state's own instants, through each
// copy:
//
//   - the policy, brought to the state by replaying the requests that led
//     there, once through Decide and once through Allow (so its caches, the
//     remembered refusals, are the ones each path leaves), then asked on a
//     copy through Decide and on another through Allow;
//   - the rule, on copies of the state, with its shared window clock set to
//     the request's window and to a later one.
//
// Every decision must equal the policy's Decide, every verdict its verdict,
// and every state left behind the same numbers.
func TestRuleCopiesAgree(t *testing.T) {
	for _, name := range Names {
		c := caseOf(t, name)
		if len(c.ruleDomain) == 0 {
			t.Fatalf("%s: its policyCase has no ruleDomain", name)
		}
		for _, p := range c.ruleDomain {
			label := fmt.Sprintf("%s %+v", name, p)
			if states := c.checkRule(t, label, p); states < 2 {
				t.Fatalf("%s: explored %d states; the domain reaches more", label, states)
			}
		}
	}
}

// flatCase is the ruleCase of a rule whose state holds no ring: a copy is
// the value, and the view the value too.
func flatCase[S comparable, R Rule[S]](build func(Params) (R, error)) ruleCase[S, R] {
	return ruleCase[S, R]{build: build, copy: func(s S) S { return s }, view: func(s S) any { return s }}
}

// The views of the ring policies' states, comparable with ==: the domain's
// rings have at most four slots.
type logView struct {
	latest      int64
	head, count int32
	ring        [4]int64
}

type bucketsView struct {
	newest, total int64
	ring          [4]int64
}

func ringView(ring []int64) (v [4]int64) {
	if copy(v[:], ring) != len(ring) {
		panic(fmt.Sprintf("a ring of %d is beyond the test's domain", len(ring)))
	}
	return v
}

// ruleNode is a state the exploration reached and the requests that led
// there from a key never seen.
type ruleNode[S any] struct {
	st   S
	path []request
}

// checkRuleCopies runs TestRuleCopiesAgree's exploration for one rule and
// returns how many states it reached.
func checkRuleCopies[S any, R Rule[S]](t *testing.T, label string, params Params, c ruleCase[S, R]) int {
	t.Helper()
	newRule := func() R {
		r, err := c.build(params)
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		return r
	}
	r := newRule()
	p := r.Params()
	const key = Key(7)
	capacity := int64(1) // the largest cost that fits
	for !r.Never(capacity + 1) {
		capacity++
	}
	// Instants over four windows and a bit, so that states hold every
	// phase of a window and requests come late by up to four windows.
	var instants []int64
	for now := range 4*p.WindowMs + 2 {
		instants = append(instants, now)
	}
	last := instants[len(instants)-1]
	// A rule with a fresh clock for each request, primed to the request's
	// window (the fast path) or left at the latest instant (it never goes
	// back, so every earlier window divides again).
	ahead := newRule()
	var scratch S
	ahead.Decide(freshCopy(ahead, c, &scratch), last, 1)
	primedAt := make([]R, len(instants)) // each only ever asked at its instant
	for i, now := range instants {
		primedAt[i] = newRule()
		primedAt[i].Decide(freshCopy(primedAt[i], c, &scratch), now, 1)
	}

	fresh := r.Fresh(make([]int64, r.RingLen()))
	queue := []ruleNode[S]{{st: c.copy(fresh)}}
	seen := map[any]bool{c.view(fresh): true}
	for len(queue) > 0 {
		node := queue[0]
		queue = queue[1:]
		if len(seen) > 200_000 {
			t.Fatalf("%s: more than 200,000 states; the domain is meant to be small", label)
		}
		byDecide, byAllow := mustNew(t, r.Name(), p), mustNew(t, r.Name(), p)
		// fork is a policy to try one request on, and what undoes it.
		fork := func(pol Policy) (Policy, func()) {
			if c.ring != nil && node.path != nil {
				// A copy would copy a 64 KB chunk of rings: save and
				// restore the key instead (it never moves, since no
				// key is added meanwhile).
				st := pol.(interface{ base() *keyed[S, R] }).base().keys.find(key)
				saved := *st
				savedRing := slices.Clone(c.ring(saved))
				return pol, func() { *st = saved; copy(c.ring(saved), savedRing) }
			}
			return cloneOf(t, pol), func() {}
		}
		polView := func(pol Policy, key Key) any {
			st := pol.(interface{ base() *keyed[S, R] }).base().keys.find(key)
			if st == nil {
				return nil
			}
			return c.view(*st)
		}
		for _, q := range node.path {
			byDecide.Decide(key, q.at, q.cost)
			byAllow.Allow(key, q.at, q.cost)
		}
		for cost := int64(0); cost <= capacity+1; cost++ {
			for i, now := range instants {
				call := func() string { return fmt.Sprintf("%s: after %v, (%d, cost %d)", label, node.path, now, cost) }
				primed := primedAt[i]

				st := c.copy(node.st)
				want := primed.Decide(&st, now, cost)
				ruleState := c.view(st)
				wantState := ruleState // of the policy's key
				if node.path == nil && r.Never(cost) {
					// A key never seen is not added for such a request.
					wantState = nil
					if got := r.Unseen(now, cost); got != want {
						t.Fatalf("%s: rule Unseen = %+v, rule Decide = %+v", call(), got, want)
					}
				}
				if next := c.view(st); !seen[next] && !r.Never(cost) {
					seen[next] = true
					path := append(append([]request(nil), node.path...), request{key, now, cost})
					queue = append(queue, ruleNode[S]{st: c.copy(st), path: path})
				}

				other := c.copy(node.st)
				if got := ahead.Decide(&other, now, cost); got != want {
					t.Fatalf("%s: rule Decide with its clock ahead = %+v, want %+v", call(), got, want)
				}
				for _, rr := range []R{primed, ahead} {
					st := c.copy(node.st)
					if got := rr.Allow(&st, now, cost); got != want.Verdict() {
						t.Fatalf("%s: rule Allow = %+v, want %+v (Decide: %+v)", call(), got, want.Verdict(), want)
					}
					if got := c.view(st); got != ruleState {
						t.Fatalf("%s: rule Allow left %+v, Decide %+v", call(), got, ruleState)
					}
				}
				for _, replay := range []struct {
					how string
					pol Policy
				}{{"Decide", byDecide}, {"Allow", byAllow}} {
					if got := polView(replay.pol, key); node.path != nil && !reflect.DeepEqual(got, c.view(node.st)) {
						t.Fatalf("%s: the policy replayed through %s holds %+v, the rule %+v", call(), replay.how, got, c.view(node.st))
					}
					pol, undo := fork(replay.pol)
					if got := pol.Decide(key, now, cost); got != want {
						t.Fatalf("%s: policy (replayed through %s) Decide = %+v, rule Decide = %+v", call(), replay.how, got, want)
					}
					if got := polView(pol, key); !reflect.DeepEqual(got, wantState) {
						t.Fatalf("%s: policy (replayed through %s) Decide left %+v, rule Decide %+v", call(), replay.how, got, wantState)
					}
					undo()
					pol, undo = fork(replay.pol)
					if got := pol.Allow(key, now, cost); got != want.Verdict() {
						t.Fatalf("%s: policy (replayed through %s) Allow = %+v, want %+v (Decide: %+v)", call(), replay.how, got, want.Verdict(), want)
					}
					if got := polView(pol, key); !reflect.DeepEqual(got, wantState) {
						t.Fatalf("%s: policy (replayed through %s) Allow left %+v, rule Decide %+v", call(), replay.how, got, wantState)
					}
					undo()
				}
			}
		}
	}
	return len(seen)
}

// freshCopy sets *scratch to a new key's state of r, for a decision that
// only moves r's clock.
func freshCopy[S any, R Rule[S]](r R, c ruleCase[S, R], scratch *S) *S {
	*scratch = c.copy(r.Fresh(make([]int64, r.RingLen())))
	return scratch
}

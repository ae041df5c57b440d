package policies

import (
	"fmt"
	"reflect"
	"testing"
	"unsafe"
)

// ruleCase is what TestRuleCopiesAgree needs of one policy's rule: a deep
// copy of a state, and a key's state as plain numbers, read from a rule's
// state and from the single-goroutine policy's table, so the two can be
// compared state by state. Caches (a remembered retry) are left out of the
// numbers: they are not state, and any value they hold must give the same
// decisions, which is what the test checks.
type ruleCase[S any] struct {
	copy    func(S) S
	view    func(S) any
	polView func(pol Policy, key Key) any // nil for a key the policy does not hold
	// restore, if set, saves the state of a key pol holds and returns what
	// puts it back, for a policy with no cache, whose copies cost more than
	// this (a sliding-log copy copies a 64 KB chunk of rings).
	restore func(pol Policy, key Key) func()
}

// ruleDomain is the small domain the exhaustive test runs over: limits 1
// to 4 (sliding-log and sliding-buckets to 3, their states being rings,
// and sliding-log's limit times window to 6), windows of a few ms, and
// bursts below, at and above the limit.
func ruleDomain() []struct {
	name string
	p    Params
} {
	var out []struct {
		name string
		p    Params
	}
	add := func(name string, p Params) {
		out = append(out, struct {
			name string
			p    Params
		}{name, p})
	}
	for limit := int64(1); limit <= 4; limit++ {
		for _, w := range []int64{1, 3, 4} {
			add(FixedWindow, Params{Limit: limit, WindowMs: w})
			add(SlidingCounter, Params{Limit: limit, WindowMs: w, Arithmetic: Floor})
			add(SlidingCounter, Params{Limit: limit, WindowMs: w, Arithmetic: Exact})
			for _, burst := range []int64{0, 1, limit + 2} {
				add(TokenBucket, Params{Limit: limit, WindowMs: w, Burst: burst})
				add(GCRA, Params{Limit: limit, WindowMs: w, Burst: burst})
			}
			for _, bd := range [][2]int64{{1, 0}, {2, 1}, {2, NoDelay}} {
				add(LeakyBucket, Params{Limit: limit, WindowMs: w, Burst: bd[0], Delay: bd[1]})
			}
		}
		if limit > 3 {
			continue
		}
		for _, w := range []int64{2, 3} {
			if limit*w <= 6 { // limit 3 over 3 ms alone reaches 4,015 states
				add(SlidingLog, Params{Limit: limit, WindowMs: w})
			}
		}
		for _, kw := range [][2]int64{{1, 3}, {2, 4}, {3, 3}} {
			add(SlidingBuckets, Params{Limit: limit, WindowMs: kw[1], Buckets: kw[0]})
		}
	}
	return out
}

// TestRuleCopiesAgree holds together every copy of each policy's decision
// rule: Decide (decideOn), the policy's Allow, and the rule's Decide and
// Allow that limiter's concurrent form runs (each policy's verdict path is
// its second copy, see keyrule.go; limiter's Sharded runs the policy
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
	for _, c := range ruleDomain() {
		label := fmt.Sprintf("%s %+v", c.name, c.p)
		rule, err := NewRule(c.name, c.p)
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		var states int
		switch r := rule.(type) {
		case *FixedWindowRule:
			states = checkRuleCopies(t, label, r, ruleCase[fixedWindowState]{
				copy: func(s fixedWindowState) fixedWindowState { return s },
				view: func(s fixedWindowState) any { return s },
				polView: func(pol Policy, key Key) any {
					return derefOrNil(pol.(*fixedWindowPolicy).keys.find(key))
				},
			})
		case *SlidingCounterRule:
			states = checkRuleCopies(t, label, r, ruleCase[slidingCounterState]{
				copy: func(s slidingCounterState) slidingCounterState { return s },
				view: func(s slidingCounterState) any { return s },
				polView: func(pol Policy, key Key) any {
					return derefOrNil(pol.(*slidingCounterPolicy).keys.find(key))
				},
			})
		case *TokenBucketRule:
			states = checkRuleCopies(t, label, r, ruleCase[tokenBucketState]{
				copy: func(s tokenBucketState) tokenBucketState { return s },
				view: func(s tokenBucketState) any { return s },
				polView: func(pol Policy, key Key) any {
					return derefOrNil(pol.(*tokenBucketPolicy).keys.find(key))
				},
			})
		case *GCRARule:
			states = checkRuleCopies(t, label, r, ruleCase[gcraState]{
				copy: func(s gcraState) gcraState { return s },
				view: func(s gcraState) any { return s },
				polView: func(pol Policy, key Key) any {
					return derefOrNil(pol.(*gcraPolicy).keys.find(key))
				},
			})
		case *LeakyBucketRule:
			states = checkRuleCopies(t, label, r, ruleCase[leakyBucketState]{
				copy: func(s leakyBucketState) leakyBucketState { return s },
				view: func(s leakyBucketState) any { return s },
				polView: func(pol Policy, key Key) any {
					return derefOrNil(pol.(*leakyBucketPolicy).keys.find(key))
				},
			})
		case *SlidingLogRule:
			states = checkRuleCopies(t, label, r, ruleCase[slidingLogSlot]{
				copy: func(s slidingLogSlot) slidingLogSlot {
					s.ring = append([]int64(nil), s.ring...)
					return s
				},
				view: func(s slidingLogSlot) any { return logView{s.st.latest, s.st.head, s.st.count, ringView(s.ring)} },
				polView: func(pol Policy, key Key) any {
					l := pol.(*slidingLogPolicy)
					st := l.keys.find(key)
					if st == nil {
						return nil
					}
					return logView{st.latest, st.head, st.count, ringView(l.ring(st.ring))}
				},
				restore: func(pol Policy, key Key) func() {
					l := pol.(*slidingLogPolicy)
					st := l.keys.find(key) // never moves: no key is added meanwhile
					saved, ring := *st, l.ring(st.ring)
					savedRing := append([]int64(nil), ring...)
					return func() { *st = saved; copy(ring, savedRing) }
				},
			})
		case *SlidingBucketsRule:
			n := r.RingLen()
			states = checkRuleCopies(t, label, r, ruleCase[slidingBucketsSlot]{
				copy: func(s slidingBucketsSlot) slidingBucketsSlot {
					ring := append([]int64(nil), unsafe.Slice(s.ring, n)...)
					s.ring = &ring[0]
					return s
				},
				view: func(s slidingBucketsSlot) any {
					return bucketsView{s.st.newest, s.st.total, ringView(unsafe.Slice(s.ring, n))}
				},
				polView: func(pol Policy, key Key) any {
					b := pol.(*slidingBucketsPolicy)
					st := b.keys.find(key)
					if st == nil {
						return nil
					}
					return bucketsView{st.newest, st.total, ringView(b.ring(st.ring))}
				},
			})
		default:
			t.Fatalf("%s: NewRule returned a %T, which this test does not know", label, rule)
		}
		if states < 2 {
			t.Fatalf("%s: explored %d states; the domain reaches more", label, states)
		}
	}
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

// derefOrNil is *p as an any, or nil for a key not held.
func derefOrNil[S any](p *S) any {
	if p == nil {
		return nil
	}
	return *p
}

// ruleNode is a state the exploration reached and the requests that led
// there from a key never seen.
type ruleNode[S any] struct {
	st   S
	path []request
}

// checkRuleCopies runs TestRuleCopiesAgree's exploration for one rule and
// returns how many states it reached.
func checkRuleCopies[S any, R Rule[S]](t *testing.T, label string, r R, c ruleCase[S]) int {
	t.Helper()
	p := r.Params()
	const key = Key(7)
	capacity := p.Limit
	if r.Name() == TokenBucket || r.Name() == GCRA {
		capacity = p.Burst
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
	ahead := mustRule[R](t, r)
	var scratch S
	ahead.Decide(freshCopy(ahead, c, &scratch), last, 1)
	primedAt := make([]R, len(instants)) // each only ever asked at its instant
	for i, now := range instants {
		primedAt[i] = mustRule[R](t, r)
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
			if c.restore != nil && node.path != nil {
				return pol, c.restore(pol, key)
			}
			return cloneOf(t, pol), func() {}
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
					if got := c.polView(replay.pol, key); node.path != nil && !reflect.DeepEqual(got, c.view(node.st)) {
						t.Fatalf("%s: the policy replayed through %s holds %+v, the rule %+v", call(), replay.how, got, c.view(node.st))
					}
					pol, undo := fork(replay.pol)
					if got := pol.Decide(key, now, cost); got != want {
						t.Fatalf("%s: policy (replayed through %s) Decide = %+v, rule Decide = %+v", call(), replay.how, got, want)
					}
					if got := c.polView(pol, key); !reflect.DeepEqual(got, wantState) {
						t.Fatalf("%s: policy (replayed through %s) Decide left %+v, rule Decide %+v", call(), replay.how, got, wantState)
					}
					undo()
					pol, undo = fork(replay.pol)
					if got := pol.Allow(key, now, cost); got != want.Verdict() {
						t.Fatalf("%s: policy (replayed through %s) Allow = %+v, want %+v (Decide: %+v)", call(), replay.how, got, want.Verdict(), want)
					}
					if got := c.polView(pol, key); !reflect.DeepEqual(got, wantState) {
						t.Fatalf("%s: policy (replayed through %s) Allow left %+v, rule Decide %+v", call(), replay.how, got, wantState)
					}
					undo()
				}
			}
		}
	}
	return len(seen)
}

// mustRule is a new rule like r, with caches of its own.
func mustRule[R KeyRule](t *testing.T, r R) R {
	t.Helper()
	n, err := NewRule(r.Name(), r.Params())
	if err != nil {
		t.Fatal(err)
	}
	return n.(R)
}

// freshCopy sets *scratch to a new key's state of r, for a decision that
// only moves r's clock.
func freshCopy[S any, R Rule[S]](r R, c ruleCase[S], scratch *S) *S {
	*scratch = c.copy(r.Fresh(make([]int64, r.RingLen())))
	return scratch
}

package limiter

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/windowlab/playground/policies"
)

// concurrentKinds are the two concurrency-safe forms: the per-slot one every
// caller gets from NewConcurrent and the sharded-mutex one kept beside it.
var concurrentKinds = []struct {
	kind  string
	build func(name string, p policies.Params, shards int) (policies.Policy, error)
}{
	{"concurrent", func(name string, p policies.Params, shards int) (policies.Policy, error) {
		return NewConcurrent(name, p, shards)
	}},
	{"sharded", func(name string, p policies.Params, shards int) (policies.Policy, error) {
		return NewSharded(name, p, shards)
	}},
}

// concurrentPolicyForms is every policy form: every name, with
// sliding-counter in both arithmetics and leaky-bucket with and without a
// delay.
var concurrentPolicyForms = []struct {
	name string
	p    policies.Params
}{
	{policies.FixedWindow, policies.Params{}},
	{policies.SlidingLog, policies.Params{}},
	{policies.SlidingCounter, policies.Params{Arithmetic: policies.Floor}},
	{policies.SlidingCounter, policies.Params{Arithmetic: policies.Exact}},
	{policies.SlidingBuckets, policies.Params{Buckets: 3}},
	{policies.TokenBucket, policies.Params{}},
	{policies.GCRA, policies.Params{}},
	{policies.LeakyBucket, policies.Params{}},
	{policies.LeakyBucket, policies.Params{Burst: 3, Delay: 1}},
}

func mustConcurrent(t testing.TB, build func(string, policies.Params, int) (policies.Policy, error), name string, p policies.Params, shards int) policies.Policy {
	t.Helper()
	c, err := build(name, p, shards)
	if err != nil {
		t.Fatalf("%s %+v: %v", name, p, err)
	}
	return c
}

func TestNewConcurrentRejects(t *testing.T) {
	ok := policies.Params{Limit: 5, WindowMs: 1000}
	for _, ck := range concurrentKinds {
		for _, tc := range []struct {
			name   string
			p      policies.Params
			shards int
			// The shards are this package's to check; the policy and its
			// parameters, policies.New's.
			prefix, want string
		}{
			{policies.FixedWindow, ok, -1, "limiter: ", "shards -1 is out of range"},
			{policies.FixedWindow, ok, MaxShards + 1, "limiter: ", "shards 4097 is out of range"},
			{"tumbling", ok, 4, "policies: ", `unknown policy "tumbling"`},
			{policies.SlidingBuckets, policies.Params{Limit: 5, WindowMs: 1000, Buckets: 7}, 4, "policies: ", "not a multiple of buckets 7"},
		} {
			_, err := ck.build(tc.name, tc.p, tc.shards)
			if err == nil || !strings.HasPrefix(err.Error(), tc.prefix) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s(%q, %+v, %d) error = %v, want one starting %q and containing %q", ck.kind, tc.name, tc.p, tc.shards, err, tc.prefix, tc.want)
			}
		}
		for _, tc := range []struct{ shards, want int }{{1, 1}, {3, 4}, {64, 64}, {MaxShards, MaxShards}} {
			c := mustConcurrent(t, ck.build, policies.FixedWindow, ok, tc.shards)
			if got := c.(interface{ Shards() int }).Shards(); got != tc.want {
				t.Errorf("%s(..., %d).Shards() = %d, want %d", ck.kind, tc.shards, got, tc.want)
			}
		}
	}
}

// concurrentStep is what one goroutine did and saw: a Decide, or an Allow,
// and the Peek right after it.
type concurrentStep struct {
	q        request
	allow    bool
	decision policies.Decision
	verdict  policies.Verdict
	peek     policies.Fraction
}

// TestConcurrentAgreesPerKey hammers one concurrent policy from many
// goroutines, each with keys of its own (key 0 among them), mixing Decide
// and Allow and peeking after each, then replays each goroutine's requests
// on a fresh single-goroutine policy: every decision, verdict and estimate
// must be the same, since a key's requests reach it in its goroutine's
// order. Keys keep arriving while the others decide, so with one shard its
// table grows many times under the deciders; with the race detector on,
// this also checks that the slots' locks and the table's publication cover
// every access.
func TestConcurrentAgreesPerKey(t *testing.T) {
	const goroutines, keysEach, perGoroutine = 6, 40, 700
	r := rand.New(rand.NewPCG(propertySeed, 21))
	for _, ck := range concurrentKinds {
		for _, form := range concurrentPolicyForms {
			for _, shards := range []int{1, 4} {
				p := randomParams(r, form.name)
				if form.name == policies.SlidingCounter {
					p.Arithmetic = form.p.Arithmetic
				}
				label := fmt.Sprintf("%s %s %+v shards %d", ck.kind, form.name, p, shards)
				c := mustConcurrent(t, ck.build, form.name, p, shards)
				steps := make([][]concurrentStep, goroutines)
				for g := range steps {
					for i, q := range traffic(r, p, perGoroutine, true) {
						// Disjoint keys per goroutine; key 0 is goroutine 0's.
						q.key = policies.Key(r.IntN(keysEach))*goroutines + policies.Key(g)
						steps[g] = append(steps[g], concurrentStep{q: q, allow: i%2 == 1})
					}
				}
				var wg sync.WaitGroup
				for g := range goroutines {
					wg.Go(func() {
						for i := range steps[g] {
							s := &steps[g][i]
							if s.allow {
								s.verdict = c.Allow(s.q.key, s.q.at, s.q.cost)
							} else {
								s.decision = c.Decide(s.q.key, s.q.at, s.q.cost)
							}
							s.peek = c.Peek(s.q.key, s.q.at)
						}
					})
				}
				wg.Wait()
				keys := 0
				for g := range goroutines {
					single := mustNew(t, form.name, p)
					for i, s := range steps[g] {
						want := single.Decide(s.q.key, s.q.at, s.q.cost)
						switch {
						case s.allow && s.verdict != want.Verdict():
							t.Fatalf("%s, goroutine %d step %d: Allow(%d, %d, %d) = %+v, want %+v",
								label, g, i, s.q.key, s.q.at, s.q.cost, s.verdict, want.Verdict())
						case !s.allow && s.decision != want:
							t.Fatalf("%s, goroutine %d step %d: Decide(%d, %d, %d) = %+v, want %+v",
								label, g, i, s.q.key, s.q.at, s.q.cost, s.decision, want)
						}
						if w := single.Peek(s.q.key, s.q.at); s.peek != w {
							t.Fatalf("%s, goroutine %d step %d: Peek(%d, %d) = %v, want %v", label, g, i, s.q.key, s.q.at, s.peek, w)
						}
					}
					for k := range policies.Key(keysEach) {
						key, at := k*goroutines+policies.Key(g), steps[g][len(steps[g])-1].q.at
						if got, want := c.Snapshot(key, at), single.Snapshot(key, at); !reflect.DeepEqual(got, want) {
							t.Fatalf("%s: Snapshot(%d, %d) = %+v, want %+v", label, key, at, got, want)
						}
					}
					keys += single.Stats().Keys
				}
				// Keys decided only with requests that never fit were not
				// added, by either form.
				st := c.Stats()
				if st.Keys != keys || st.Entries != perKeyEntries(t, form.name, p)*int64(keys) {
					t.Errorf("%s: Stats() = %+v, want %d keys and their entries", label, st, keys)
				}
			}
		}
	}
}

// perKeyEntries is Stats().Entries of one key of the single-goroutine form.
func perKeyEntries(t *testing.T, name string, p policies.Params) int64 {
	t.Helper()
	single := mustNew(t, name, p)
	single.Decide(1, 0, 1)
	return single.Stats().Entries
}

// TestConcurrentSharedKeyAdmitsLimit sends many goroutines at one key at one
// instant, half of them through Allow: exactly capacity requests (the limit,
// or leaky-bucket's burst + 1) may pass,
// whichever goroutines win. Key 0, held outside the table, is tried too.
func TestConcurrentSharedKeyAdmitsLimit(t *testing.T) {
	const goroutines, each, limit = 8, 150, 50
	for _, ck := range concurrentKinds {
		for _, form := range concurrentPolicyForms {
			for _, key := range []policies.Key{42, 0} {
				p := form.p
				p.Limit, p.WindowMs = limit, 1200
				c := mustConcurrent(t, ck.build, form.name, p, 0)
				capacity := c.Snapshot(key, 5000).Capacity // the limit, or leaky-bucket's burst + 1
				var admitted atomic.Int64
				var wg sync.WaitGroup
				for g := range goroutines {
					wg.Go(func() {
						for range each {
							if g%2 == 0 && c.Decide(key, 5000, 1).Allowed || g%2 == 1 && c.Allow(key, 5000, 1).Allowed {
								admitted.Add(1)
							}
						}
					})
				}
				wg.Wait()
				if n := admitted.Load(); n != capacity {
					t.Errorf("%s %s key %d: %d goroutines × %d requests at one instant admitted %d, want %d", ck.kind, form.name, key, goroutines, each, n, capacity)
				}
				if got := c.Peek(key, 5000); got.Num != capacity*got.Den {
					t.Errorf("%s %s key %d: Peek after the burst = %v, want %d", ck.kind, form.name, key, got, capacity)
				}
			}
		}
	}
}

// TestConcurrentGrowthLosesNothing: goroutines all send the same many new
// keys at one instant, in different orders, to a table of one shard, so the
// keys are inserted, and the shard grows, while other goroutines decide on
// keys already in it. A decision lost in a growth (made on a slot after it
// was copied) would let a key admit more than its limit; a key inserted
// twice would show in Stats. Run it with -race.
func TestConcurrentGrowthLosesNothing(t *testing.T) {
	const goroutines, keys, rounds, limit = 4, 3000, 2, 3
	for _, form := range concurrentPolicyForms {
		p := form.p
		p.Limit, p.WindowMs = limit, 1200
		c := mustConcurrent(t, concurrentKinds[0].build, form.name, p, 1)
		capacity := int32(c.Snapshot(1, 7000).Capacity)
		admitted := make([]atomic.Int32, keys)
		var wg sync.WaitGroup
		for g := range goroutines {
			wg.Go(func() {
				order := rand.New(rand.NewPCG(propertySeed, uint64(g))).Perm(keys)
				for range rounds {
					for _, k := range order {
						if c.Allow(policies.Key(k)*0x9e3779b97f4a7c15, 7000, 1).Allowed {
							admitted[k].Add(1)
						}
					}
				}
			})
		}
		wg.Wait()
		for k := range admitted {
			if n := admitted[k].Load(); n != capacity {
				t.Fatalf("%s: key %d admitted %d of %d requests at one instant, want %d", form.name, k, n, goroutines*rounds, capacity)
			}
		}
		if st := c.Stats(); st.Keys != keys {
			t.Errorf("%s: Stats().Keys = %d, want %d", form.name, st.Keys, keys)
		}
	}
}

// TestConcurrentNeverAddsNoKey: a request that can never be admitted is
// refused without adding its key, through Decide and Allow alike, so Stats
// agrees with the single-goroutine policy's.
func TestConcurrentNeverAddsNoKey(t *testing.T) {
	for _, form := range concurrentPolicyForms {
		p := form.p
		p.Limit, p.WindowMs = 4, 1200
		c := mustConcurrent(t, concurrentKinds[0].build, form.name, p, 2)
		single := mustNew(t, form.name, p)
		above := single.Snapshot(1, 100).Capacity + 1
		for _, key := range []policies.Key{0, 9} {
			if got, want := c.Decide(key, 100, above), single.Decide(key, 100, above); got != want || !got.Never {
				t.Errorf("%s: Decide(%d, 100, %d) = %+v, want %+v, never", form.name, key, above, got, want)
			}
			if got := c.Allow(key, 100, 0); got != (policies.Verdict{Never: true}) {
				t.Errorf("%s: Allow(%d, 100, 0) = %+v, want never", form.name, key, got)
			}
			if got, want := c.Snapshot(key, 100), single.Snapshot(key, 100); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: Snapshot(%d, 100) of a key never added = %+v, want %+v", form.name, key, got, want)
			}
		}
		if got := c.Stats().Keys; got != 0 {
			t.Errorf("%s: Stats().Keys = %d after requests that never fit, want 0", form.name, got)
		}
	}
}

// Every policy in the registry has a concurrent form, registered from its
// own file here: without one, NewConcurrent refuses it.
func TestEveryPolicyHasAConcurrentForm(t *testing.T) {
	for _, name := range concurrentForms.Missing() {
		t.Errorf("%s: no concurrent form (add registerSlots to limiter/%s.go)", name, name)
	}
}

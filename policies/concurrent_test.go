package policies

import (
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

func TestNewConcurrentRejects(t *testing.T) {
	ok := Params{Limit: 5, WindowMs: 1000}
	for _, tc := range []struct {
		name   string
		p      Params
		shards int
		want   string
	}{
		{FixedWindow, ok, -1, "shards -1 is out of range"},
		{FixedWindow, ok, MaxShards + 1, "shards 4097 is out of range"},
		{"leaky", ok, 4, `unknown policy "leaky"`},
		{SlidingBuckets, Params{Limit: 5, WindowMs: 1000, Buckets: 7}, 4, "not a multiple of buckets 7"},
	} {
		_, err := NewConcurrent(tc.name, tc.p, tc.shards)
		if err == nil || !strings.HasPrefix(err.Error(), "policies: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewConcurrent(%q, %+v, %d) error = %v, want one containing %q", tc.name, tc.p, tc.shards, err, tc.want)
		}
	}
	for _, tc := range []struct{ shards, want int }{{1, 1}, {3, 4}, {64, 64}, {MaxShards, MaxShards}} {
		c, err := NewConcurrent(FixedWindow, ok, tc.shards)
		if err != nil {
			t.Fatal(err)
		}
		if c.Shards() != tc.want {
			t.Errorf("NewConcurrent(..., %d).Shards() = %d, want %d", tc.shards, c.Shards(), tc.want)
		}
	}
}

// TestConcurrentAgreesPerKey hammers one Concurrent policy from many
// goroutines, each with keys of its own, and replays each goroutine's
// requests on a fresh single-goroutine policy: every decision must be the
// same, since a key's requests reach its shard in its goroutine's order.
// Under -race it also checks that the shards' locks cover every access.
func TestConcurrentAgreesPerKey(t *testing.T) {
	const goroutines, perGoroutine = 8, 600
	r := rand.New(rand.NewPCG(propertySeed, 21))
	for _, name := range Names {
		p := randomParams(r, name)
		c, err := NewConcurrent(name, p, 4)
		if err != nil {
			t.Fatal(err)
		}
		reqs := make([][]request, goroutines)
		for g := range reqs {
			reqs[g] = traffic(r, p, perGoroutine, true)
			for i := range reqs[g] {
				// Disjoint keys per goroutine, key 0 among them.
				reqs[g][i].key = reqs[g][i].key*goroutines + Key(g)
			}
		}
		got := make([][]Decision, goroutines)
		var wg sync.WaitGroup
		for g := range goroutines {
			wg.Go(func() {
				for _, q := range reqs[g] {
					got[g] = append(got[g], c.Decide(q.key, q.at, q.cost))
					c.Peek(q.key, q.at)
				}
			})
		}
		wg.Wait()
		for g := range goroutines {
			single := mustNew(t, name, p)
			for i, q := range reqs[g] {
				if want := single.Decide(q.key, q.at, q.cost); got[g][i] != want {
					t.Fatalf("%s %+v, goroutine %d step %d: Decide(%d, %d, %d) = %+v, want %+v",
						name, p, g, i, q.key, q.at, q.cost, got[g][i], want)
				}
			}
		}
		if s := c.Stats(); s.Keys != 3*goroutines {
			t.Errorf("%s: Stats().Keys = %d, want %d", name, s.Keys, 3*goroutines)
		}
	}
}

// TestConcurrentSharedKeyAdmitsLimit sends many goroutines at one key at one
// instant: exactly limit requests may pass, whichever goroutines win.
func TestConcurrentSharedKeyAdmitsLimit(t *testing.T) {
	const goroutines, each, limit = 8, 200, 50
	for _, name := range Names {
		p := Params{Limit: limit, WindowMs: 1200, Buckets: 6}
		c, err := NewConcurrent(name, p, 0)
		if err != nil {
			t.Fatal(err)
		}
		admitted := make([]int, goroutines)
		var wg sync.WaitGroup
		for g := range goroutines {
			wg.Go(func() {
				for range each {
					if c.Decide(42, 5000, 1).Allowed {
						admitted[g]++
					}
				}
			})
		}
		wg.Wait()
		total := 0
		for _, n := range admitted {
			total += n
		}
		if total != limit {
			t.Errorf("%s: %d goroutines × %d requests at one instant admitted %d, want %d", name, goroutines, each, total, limit)
		}
		if got := c.Peek(42, 5000); got.Num != limit*got.Den {
			t.Errorf("%s: Peek after the burst = %v, want %d", name, got, limit)
		}
	}
}

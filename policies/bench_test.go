package policies

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// Every benchmark uses limit 100 per 1200 ms (1200 so that sliding-buckets
// can split it into 6 buckets of 200 ms) and cost 1, and the clock advances
// 1 ms per decision. Three workloads, each a key sequence generated before
// the timer starts and read in order, so the timed loop does no random
// number generation and no extra random memory access:
//
//   - hot: one key, about one decision in twelve admitted;
//   - uniform: 1e6 keys, each step a uniformly random one;
//   - zipf: the same 1e6 keys drawn with math/rand/v2's Zipf (s = 1.1,
//     v = 1, fixed seed), a few keys very busy and a long cold tail, like
//     clients of a real service.
//
// Every subject (each policy, the hand-written map fixed window, a bare map
// lookup, x/time/rate limiters in a map) runs in the same binary on the same
// sequences, so their ratios are measured in the same run. The many-key
// subjects decide (or insert) all 1e6 keys once before the timer starts and
// report heapB/key: the live heap they hold, table included, measured with
// runtime.ReadMemStats around that fill.
//
//	go test -run '^$' -bench . -benchmem -benchtime 400ms -cpu 1,2 ./policies/

const (
	benchLimit  = 100
	benchWindow = 1200
	benchKeys   = 1_000_000
	benchSeqLen = 1 << 22 // steps in a precomputed sequence; indexed with a mask
	benchBase   = int64(1_700_000_000_000)
	benchZipfS  = 1.1
)

var benchPolicies = []struct {
	label, name string
	p           Params
}{
	{"fixed-window", FixedWindow, Params{}},
	{"sliding-log", SlidingLog, Params{}},
	{"sliding-counter-floor", SlidingCounter, Params{Arithmetic: Floor}},
	{"sliding-counter-exact", SlidingCounter, Params{Arithmetic: Exact}},
	{"sliding-buckets-k6", SlidingBuckets, Params{Buckets: 6}},
	{"token-bucket", TokenBucket, Params{}},
	{"gcra", GCRA, Params{}},
}

func benchParams(p Params) Params {
	p.Limit, p.WindowMs = benchLimit, benchWindow
	return p
}

// benchWorkload is a set of keys and the sequence of keys to decide.
type benchWorkload struct {
	name string
	keys []Key // every key the sequence uses, each decided once before timing
	seq  []Key // benchSeqLen steps
}

// The sequences are built on first use by a benchmark, never by ordinary
// tests.
var benchWorkloads = sync.OnceValue(func() []benchWorkload {
	r := rand.New(rand.NewPCG(1, 2))
	keys := make([]Key, benchKeys)
	for i := range keys {
		keys[i] = r.Uint64()
	}
	hot := benchWorkload{name: "hot", keys: keys[:1], seq: make([]Key, benchSeqLen)}
	uniform := benchWorkload{name: "uniform", keys: keys, seq: make([]Key, benchSeqLen)}
	zipf := benchWorkload{name: "zipf", keys: keys, seq: make([]Key, benchSeqLen)}
	z := rand.NewZipf(rand.New(rand.NewPCG(3, 4)), benchZipfS, 1, benchKeys-1)
	for i := range benchSeqLen {
		hot.seq[i] = keys[0]
		uniform.seq[i] = keys[r.IntN(benchKeys)]
		zipf.seq[i] = keys[z.Uint64()]
	}
	return []benchWorkload{hot, uniform, zipf}
})

// benchHeap is the live heap, table included, that a fill added per key.
type benchHeap float64

// report adds it to the benchmark's results; call it after the timed loop
// (b.Loop's start deletes metrics reported before it).
func (h benchHeap) report(b *testing.B) {
	if h > 0 {
		b.ReportMetric(float64(h), "heapB/key")
	}
}

// measureHeap runs fill and measures the live heap it added per key. It
// returns what fill built, so it stays reachable.
func measureHeap[T any](b *testing.B, keys int, fill func() T) (T, benchHeap) {
	b.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v := fill()
	runtime.GC()
	runtime.ReadMemStats(&after)
	if keys <= 1 {
		return v, 0
	}
	return v, benchHeap(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(keys))
}

func fillPolicy(b *testing.B, name string, p Params, keys []Key) (Policy, benchHeap) {
	b.Helper()
	return measureHeap(b, len(keys), func() Policy {
		pol := mustNew(b, name, p)
		for _, k := range keys {
			pol.Decide(k, benchBase, 1)
		}
		return pol
	})
}

func fillMapFixedWindow(b *testing.B, keys []Key) (*mapFixedWindow, benchHeap) {
	b.Helper()
	return measureHeap(b, len(keys), func() *mapFixedWindow {
		m := newMapFixedWindow(benchLimit, benchWindow)
		for _, k := range keys {
			m.Allow(k, benchBase, 1)
		}
		return m
	})
}

func fillMap(b *testing.B, keys []Key) (map[Key]uint64, benchHeap) {
	b.Helper()
	return measureHeap(b, len(keys), func() map[Key]uint64 {
		m := make(map[Key]uint64)
		for i, k := range keys {
			m[k] = uint64(i)
		}
		return m
	})
}

func newRateLimiter() *rate.Limiter {
	return rate.NewLimiter(rate.Limit(benchLimit*1000.0/benchWindow), benchLimit)
}

func fillRateMap(b *testing.B, keys []Key) (map[Key]*rate.Limiter, benchHeap) {
	b.Helper()
	return measureHeap(b, len(keys), func() map[Key]*rate.Limiter {
		m := make(map[Key]*rate.Limiter)
		for _, k := range keys {
			m[k] = newRateLimiter()
		}
		return m
	})
}

// benchCPU is the process's CPU time when a timed loop started. The
// machine the numbers come from is shared, so wall time per op counts the
// time other programs held the processor; CPU time per op does not.
type benchCPU time.Duration

func startCPU() benchCPU { return benchCPU(processCPU()) }

// report adds cpu-ns/op (all of the process's threads, so for RunParallel
// the CPU each decision costs) and the heap per key to the results.
func (c benchCPU) report(b *testing.B, heap benchHeap) {
	b.ReportMetric(float64(processCPU()-time.Duration(c))/float64(b.N), "cpu-ns/op")
	heap.report(b)
}

func reportStats(b *testing.B, pol Policy) {
	s := pol.Stats()
	b.ReportMetric(float64(s.BytesPerKey), "B/key")
	if s.Keys > 1 {
		b.ReportMetric(float64(s.HeapBytes)/float64(s.Keys), "statsHeapB/key")
	}
}

var sinkInt int64

// BenchmarkDecide times one decision per step, single goroutine, for every
// policy through the Policy interface, as callers use it (Allow, the
// server's path, and Decide with its explanation), beside the hand-written
// map fixed window, a bare map lookup and x/time/rate.
func BenchmarkDecide(b *testing.B) {
	for _, w := range benchWorkloads() {
		mask := len(w.seq) - 1
		b.Run(w.name, func(b *testing.B) {
			b.Run("map-lookup", func(b *testing.B) {
				m, heap := fillMap(b, w.keys)
				b.ReportAllocs()
				cpu := startCPU()
				var sum uint64
				for i := 0; b.Loop(); i++ {
					sum += m[w.seq[i&mask]]
				}
				sinkInt = int64(sum)
				cpu.report(b, heap)
			})
			b.Run("map-fixed-window", func(b *testing.B) {
				m, heap := fillMapFixedWindow(b, w.keys)
				b.ReportAllocs()
				cpu := startCPU()
				now, admitted := benchBase, int64(0)
				for i := 0; b.Loop(); i++ {
					now++
					if ok, _, _ := m.Allow(w.seq[i&mask], now, 1); ok {
						admitted++
					}
				}
				sinkInt = admitted
				cpu.report(b, heap)
			})
			for _, bp := range benchPolicies {
				b.Run(bp.label+".Allow", func(b *testing.B) {
					pol, heap := fillPolicy(b, bp.name, benchParams(bp.p), w.keys)
					b.ReportAllocs()
					cpu := startCPU()
					now, admitted := benchBase, int64(0)
					for i := 0; b.Loop(); i++ {
						now++
						if pol.Allow(w.seq[i&mask], now, 1).Allowed {
							admitted++
						}
					}
					sinkInt = admitted
					cpu.report(b, heap)
					reportStats(b, pol)
				})
				b.Run(bp.label+".Decide", func(b *testing.B) {
					pol, heap := fillPolicy(b, bp.name, benchParams(bp.p), w.keys)
					b.ReportAllocs()
					cpu := startCPU()
					now, admitted := benchBase, int64(0)
					for i := 0; b.Loop(); i++ {
						now++
						if pol.Decide(w.seq[i&mask], now, 1).Allowed {
							admitted++
						}
					}
					sinkInt = admitted
					cpu.report(b, heap)
				})
			}
			b.Run("x-time-rate", func(b *testing.B) {
				m, heap := fillRateMap(b, w.keys)
				t0 := time.UnixMilli(benchBase)
				b.ReportAllocs()
				cpu := startCPU()
				admitted := int64(0)
				for i := 0; b.Loop(); i++ {
					if m[w.seq[i&mask]].AllowN(t0.Add(time.Duration(i+1)*time.Millisecond), 1) {
						admitted++
					}
				}
				sinkInt = admitted
				cpu.report(b, heap)
			})
		})
	}
}

// BenchmarkDecideDependent is the uniform workload one cache miss at a time:
// each step's position in the sequence depends on a number the previous
// step read from its key's state (the map's value, the count or estimate
// before the request), through arithmetic rather than a branch, so the
// processor cannot start the next step's lookup before the previous one's
// load has arrived. The number is never negative, so the step always moves
// by one; the processor cannot know that in advance. (A branch on, say,
// Decision.Allowed would be predicted and let the misses overlap again.)
// Where a policy's own code replaces a loaded value by a predicted branch
// (a window that has turned resets the count), the processor may still run
// ahead; the hand-written map has the same branch.
func BenchmarkDecideDependent(b *testing.B) {
	w := benchWorkloads()[1]
	mask := len(w.seq) - 1
	b.Run("map-lookup", func(b *testing.B) {
		m, heap := fillMap(b, w.keys)
		b.ReportAllocs()
		cpu := startCPU()
		j := 0
		for b.Loop() {
			v := m[w.seq[j&mask]]
			j += 1 + int(v>>63)
		}
		sinkInt = int64(j)
		cpu.report(b, heap)
	})
	b.Run("map-fixed-window", func(b *testing.B) {
		m, heap := fillMapFixedWindow(b, w.keys)
		b.ReportAllocs()
		cpu := startCPU()
		now, j := benchBase, 0
		for b.Loop() {
			now++
			_, _, count := m.Allow(w.seq[j&mask], now, 1)
			j += 1 + int(uint64(count)>>63)
		}
		sinkInt = int64(j)
		cpu.report(b, heap)
	})
	for _, bp := range benchPolicies {
		b.Run(bp.label, func(b *testing.B) {
			pol, heap := fillPolicy(b, bp.name, benchParams(bp.p), w.keys)
			b.ReportAllocs()
			cpu := startCPU()
			now, j := benchBase, 0
			for b.Loop() {
				now++
				d := pol.Decide(w.seq[j&mask], now, 1)
				j += 1 + int(uint64(d.Estimate.Num)>>63)
			}
			sinkInt = int64(j)
			cpu.report(b, heap)
		})
	}
}

// Package benchload holds what the benchmarks of policies and limiter share,
// so that the single-goroutine policies, their concurrent forms and the
// baselines beside them are timed on the same workloads and measured the
// same way: the key sequences, the live-heap and CPU-time measurements, and
// the baselines a Go engineer would write without either package (a fixed
// window in a plain map, x/time/rate limiters in a map).
//
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
// It imports neither policies nor limiter (keys are uint64, which
// policies.Key is), so policies' own tests can use it.
package benchload

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/windowlab/playground/internal/procstat"
)

const (
	Limit  = 100
	Window = 1200
	Keys   = 1_000_000
	SeqLen = 1 << 22 // steps in a precomputed sequence; indexed with a mask
	Base   = int64(1_700_000_000_000)
	ZipfS  = 1.1
)

// Workload is a set of keys and the sequence of keys to decide.
type Workload struct {
	Name string
	Keys []uint64 // every key the sequence uses, each decided once before timing
	Seq  []uint64 // SeqLen steps
}

// Workloads are hot, uniform and zipf, in that order, built on first use by
// a benchmark, never by ordinary tests.
var Workloads = sync.OnceValue(func() []Workload {
	r := rand.New(rand.NewPCG(1, 2))
	keys := make([]uint64, Keys)
	for i := range keys {
		keys[i] = r.Uint64()
	}
	hot := Workload{Name: "hot", Keys: keys[:1], Seq: make([]uint64, SeqLen)}
	uniform := Workload{Name: "uniform", Keys: keys, Seq: make([]uint64, SeqLen)}
	zipf := Workload{Name: "zipf", Keys: keys, Seq: make([]uint64, SeqLen)}
	z := rand.NewZipf(rand.New(rand.NewPCG(3, 4)), ZipfS, 1, Keys-1)
	for i := range SeqLen {
		hot.Seq[i] = keys[0]
		uniform.Seq[i] = keys[r.IntN(Keys)]
		zipf.Seq[i] = keys[z.Uint64()]
	}
	return []Workload{hot, uniform, zipf}
})

// Heap is the live heap, table included, that a fill added per key.
type Heap float64

// Report adds it to the benchmark's results; call it after the timed loop
// (b.Loop's start deletes metrics reported before it).
func (h Heap) Report(b *testing.B) {
	if h > 0 {
		b.ReportMetric(float64(h), "heapB/key")
	}
}

// MeasureHeap runs fill and measures the live heap it added per key. It
// returns what fill built, so it stays reachable.
func MeasureHeap[T any](b *testing.B, keys int, fill func() T) (T, Heap) {
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
	return v, Heap(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(keys))
}

var processStart = time.Now()

// ProcessCPU is the CPU time the process has used, user and system; where
// getrusage is missing it falls back to wall time, and the benchmarks'
// cpu-ns/op is then wall time too.
func ProcessCPU() time.Duration {
	if d, ok := procstat.SelfCPU(); ok {
		return d
	}
	return time.Since(processStart)
}

// CPU is the process's CPU time when a timed loop started. The machine the
// numbers come from is shared, so wall time per op counts the time other
// programs held the processor; CPU time per op does not.
type CPU time.Duration

func StartCPU() CPU { return CPU(ProcessCPU()) }

// Report adds cpu-ns/op (all of the process's threads, so for RunParallel
// the CPU each decision costs) and the heap per key to the results.
func (c CPU) Report(b *testing.B, heap Heap) {
	b.ReportMetric(float64(ProcessCPU()-time.Duration(c))/float64(b.N), "cpu-ns/op")
	heap.Report(b)
}

// MapFixedWindow is the limiter a Go engineer would write without policies:
// a fixed window in a plain map, one entry per key holding the window's
// start and its count. The benchmarks time every policy beside it in the
// same binary, so "faster than the obvious code" is measured, not claimed.
// It takes the same uint64 keys as the policies (a string-keyed map would
// also have to hash and compare the string, which only makes it slower).
// policies' TestMapFixedWindowAgreesWithPolicy holds it to fixed-window.
type MapFixedWindow struct {
	limit, windowMs int64
	keys            map[uint64]mapFixedWindowEntry
}

type mapFixedWindowEntry struct {
	count, start int64
}

func NewMapFixedWindow(limit, windowMs int64) *MapFixedWindow {
	return &MapFixedWindow{limit: limit, windowMs: windowMs, keys: map[uint64]mapFixedWindowEntry{}}
}

// Allow admits a request of cost at now (never earlier than the key's last
// now) and, when it refuses, says how long until the window turns. count is
// the key's count before the request, which the dependent benchmarks chain
// on.
func (m *MapFixedWindow) Allow(key uint64, now, cost int64) (allowed bool, retryAfterMs, count int64) {
	start := now - now%m.windowMs
	e := m.keys[key]
	if e.start != start {
		e = mapFixedWindowEntry{start: start}
	}
	if e.count+cost > m.limit {
		return false, start + m.windowMs - now, e.count
	}
	count = e.count
	e.count += cost
	m.keys[key] = e
	return true, 0, count
}

// FillMapFixedWindow builds a MapFixedWindow at the benchmarks' limit and
// window with every key decided once.
func FillMapFixedWindow(b *testing.B, keys []uint64) (*MapFixedWindow, Heap) {
	b.Helper()
	return MeasureHeap(b, len(keys), func() *MapFixedWindow {
		m := NewMapFixedWindow(Limit, Window)
		for _, k := range keys {
			m.Allow(k, Base, 1)
		}
		return m
	})
}

// FillMap is a bare map holding every key: the floor under every subject.
func FillMap(b *testing.B, keys []uint64) (map[uint64]uint64, Heap) {
	b.Helper()
	return MeasureHeap(b, len(keys), func() map[uint64]uint64 {
		m := make(map[uint64]uint64)
		for i, k := range keys {
			m[k] = uint64(i)
		}
		return m
	})
}

// NewRateLimiter is x/time/rate at the benchmarks' rate and burst.
func NewRateLimiter() *rate.Limiter {
	return rate.NewLimiter(rate.Limit(Limit*1000.0/Window), Limit)
}

// FillRateMap is an x/time/rate limiter per key in a map.
func FillRateMap(b *testing.B, keys []uint64) (map[uint64]*rate.Limiter, Heap) {
	b.Helper()
	return MeasureHeap(b, len(keys), func() map[uint64]*rate.Limiter {
		m := make(map[uint64]*rate.Limiter)
		for _, k := range keys {
			m[k] = NewRateLimiter()
		}
		return m
	})
}

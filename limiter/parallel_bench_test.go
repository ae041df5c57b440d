package limiter

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/windowlab/playground/internal/benchload"
	"github.com/windowlab/playground/policies"
)

// BenchmarkDecideParallel runs the uniform workload (1e6 keys; see
// internal/benchload) from every goroutine at once, and BenchmarkDecideParallelHot
// and BenchmarkDecideParallelZipf the other two: the concurrency-safe form
// of each policy (NewConcurrent with its default shards, Allow) beside
// x/time/rate limiters in a map under a mutex and in a sync.Map, and the
// hand-written map fixed window under a mutex. Run them with -cpu 1,2: the
// testing package sets GOMAXPROCS to each value and RunParallel starts that
// many goroutines. Each goroutine starts at its own place in the sequence
// and keeps its own clock, so a key sometimes sees an instant earlier than
// one another goroutine used (the late rule). Every subject is called
// through a func value, so each pays the same indirect call. The names,
// which docs/performance.md's tables are built from, are
//
//	BenchmarkDecideParallel{,Hot,Zipf}/<subject>-<procs>
//
// with <subject> a label of benchPolicies, map-fixed-window-mutex,
// x-time-rate-mutex-map or x-time-rate-sync-map. Beside ns/op (wall time
// per decision, all goroutines together) each reports cpu-ns/op (the
// process's CPU time per decision, all threads), cpus (that CPU time over
// the wall time: how many processors the run actually used; below procs,
// either its goroutines slept on a contended lock, or other programs held
// the processors and the wall time is theirs as much as ours) and, at 1e6
// keys, heapB/key. cmd/scaling measures the same subjects' wall-time
// throughput at 1 and 2 processors in interleaved rounds, which is what
// shows scaling.
func BenchmarkDecideParallel(b *testing.B) { parallelSubjects(b, benchload.Workloads()[1]) }

// BenchmarkDecideParallelHot is every goroutine on one key: one shard, one
// lock, for the concurrent form and for x/time/rate alike.
func BenchmarkDecideParallelHot(b *testing.B) { parallelSubjects(b, benchload.Workloads()[0]) }

// BenchmarkDecideParallelZipf is the zipf workload from every goroutine.
func BenchmarkDecideParallelZipf(b *testing.B) { parallelSubjects(b, benchload.Workloads()[2]) }

// benchPolicies are the subjects, every registered policy as policies'
// BenchmarkDecide labels it (policies.Variants), so that cmd/benchreport
// can set the two side by side.
var benchPolicies = policies.Variants()

func benchParams(p policies.Params) policies.Params {
	p.Limit, p.WindowMs = benchload.Limit, benchload.Window
	return p
}

func parallelSubjects(b *testing.B, w benchload.Workload) {
	t0 := time.UnixMilli(benchload.Base)
	for _, bp := range benchPolicies {
		runParallel(b, bp.Label, w, func(b *testing.B) (*Concurrent, benchload.Heap) {
			return benchload.MeasureHeap(b, len(w.Keys), func() *Concurrent {
				c, err := NewConcurrent(bp.Name, benchParams(bp.Params), 0)
				if err != nil {
					b.Fatal(err)
				}
				for _, k := range w.Keys {
					c.Allow(k, benchload.Base, 1)
				}
				return c
			})
		}, func(c *Concurrent, k uint64, now int64) bool { return c.Allow(k, now, 1).Allowed })
	}
	// The floor under every subject: a map lookup and nothing else. Only
	// reads, so no lock is needed (Go's map allows concurrent readers) and
	// nothing is decided: what a decision costs beyond finding its key.
	runParallel(b, "map-lookup", w, func(b *testing.B) (map[uint64]uint64, benchload.Heap) {
		return benchload.FillMap(b, w.Keys)
	}, func(m map[uint64]uint64, k uint64, _ int64) bool { return m[k]&1 == 0 })
	type lockedMap struct {
		mu sync.Mutex
		m  *benchload.MapFixedWindow
	}
	runParallel(b, "map-fixed-window-mutex", w, func(b *testing.B) (*lockedMap, benchload.Heap) {
		m, heap := benchload.FillMapFixedWindow(b, w.Keys)
		return &lockedMap{m: m}, heap
	}, func(l *lockedMap, k uint64, now int64) bool {
		l.mu.Lock()
		ok, _, _ := l.m.Allow(k, now, 1)
		l.mu.Unlock()
		return ok
	})
	type lockedRate struct {
		mu sync.Mutex
		m  map[uint64]*rate.Limiter
	}
	// The map's lock covers only the lookup; each limiter has a lock of
	// its own. (A server would also insert new keys under it; the
	// benchmark's keys are all inserted before timing.)
	runParallel(b, "x-time-rate-mutex-map", w, func(b *testing.B) (*lockedRate, benchload.Heap) {
		m, heap := benchload.FillRateMap(b, w.Keys)
		return &lockedRate{m: m}, heap
	}, func(l *lockedRate, k uint64, now int64) bool {
		l.mu.Lock()
		lim := l.m[k]
		l.mu.Unlock()
		return lim.AllowN(t0.Add(time.Duration(now-benchload.Base)*time.Millisecond), 1)
	})
	runParallel(b, "x-time-rate-sync-map", w, func(b *testing.B) (*sync.Map, benchload.Heap) {
		return benchload.MeasureHeap(b, len(w.Keys), func() *sync.Map {
			var m sync.Map
			for _, k := range w.Keys {
				m.Store(k, benchload.NewRateLimiter())
			}
			return &m
		})
	}, func(m *sync.Map, k uint64, now int64) bool {
		v, _ := m.Load(k)
		return v.(*rate.Limiter).AllowN(t0.Add(time.Duration(now-benchload.Base)*time.Millisecond), 1)
	})
}

// runParallel runs op from every goroutine as sub-benchmark name. build
// runs once, outside the timer, however many times the testing package
// calls the sub-benchmark (RunParallel benchmarks are called once per
// round).
func runParallel[T any](b *testing.B, name string, w benchload.Workload, build func(*testing.B) (T, benchload.Heap), op func(v T, k uint64, now int64) bool) {
	mask := len(w.Seq) - 1
	var v T
	var heap benchload.Heap
	built := false
	b.Run(name, func(b *testing.B) {
		if !built {
			v, heap = build(b)
			built = true
		}
		var next atomic.Int64
		b.ReportAllocs()
		b.ResetTimer()
		cpu := benchload.StartCPU()
		b.RunParallel(func(pb *testing.PB) {
			i, now := int(next.Add(1))*1_000_003, benchload.Base
			admitted := 0
			for pb.Next() {
				now++
				if op(v, w.Seq[i&mask], now) {
					admitted++
				}
				i++
			}
			sinkAdmitted.Add(int64(admitted))
		})
		b.StopTimer()
		used := benchload.ProcessCPU() - time.Duration(cpu)
		cpu.Report(b, heap)
		if wall := b.Elapsed(); wall > 0 {
			b.ReportMetric(float64(used)/float64(wall), "cpus")
		}
	})
}

var sinkAdmitted atomic.Int64

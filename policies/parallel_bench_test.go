package policies

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// BenchmarkDecideParallel runs the uniform workload (1e6 keys; see
// bench_test.go) from every goroutine at once, and BenchmarkDecideParallelHot
// and BenchmarkDecideParallelZipf the other two: the concurrency-safe form
// of each policy (NewConcurrent with its default shards, Allow) beside
// x/time/rate limiters in a map under a mutex and in a sync.Map, and the
// hand-written map fixed window under a mutex. Run them with -cpu 1,2: the
// testing package sets GOMAXPROCS to each value and RunParallel starts that
// many goroutines. Each goroutine starts at its own place in the sequence
// and keeps its own clock, so a key sometimes sees an instant earlier than
// one another goroutine used (the late rule). Every subject is called
// through a func value, so each pays the same indirect call. The names,
// which the README's tables are built from, are
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
func BenchmarkDecideParallel(b *testing.B) { parallelSubjects(b, benchWorkloads()[1]) }

// BenchmarkDecideParallelHot is every goroutine on one key: one shard, one
// lock, for the concurrent form and for x/time/rate alike.
func BenchmarkDecideParallelHot(b *testing.B) { parallelSubjects(b, benchWorkloads()[0]) }

// BenchmarkDecideParallelZipf is the zipf workload from every goroutine.
func BenchmarkDecideParallelZipf(b *testing.B) { parallelSubjects(b, benchWorkloads()[2]) }

func parallelSubjects(b *testing.B, w benchWorkload) {
	t0 := time.UnixMilli(benchBase)
	for _, bp := range benchPolicies {
		runParallel(b, bp.label, w, func(b *testing.B) (*Concurrent, benchHeap) {
			return measureHeap(b, len(w.keys), func() *Concurrent {
				c, err := NewConcurrent(bp.name, benchParams(bp.p), 0)
				if err != nil {
					b.Fatal(err)
				}
				for _, k := range w.keys {
					c.Allow(k, benchBase, 1)
				}
				return c
			})
		}, func(c *Concurrent, k Key, now int64) bool { return c.Allow(k, now, 1).Allowed })
	}
	// The floor under every subject: a map lookup and nothing else. Only
	// reads, so no lock is needed (Go's map allows concurrent readers) and
	// nothing is decided: what a decision costs beyond finding its key.
	runParallel(b, "map-lookup", w, func(b *testing.B) (map[Key]uint64, benchHeap) {
		return fillMap(b, w.keys)
	}, func(m map[Key]uint64, k Key, _ int64) bool { return m[k]&1 == 0 })
	type lockedMap struct {
		mu sync.Mutex
		m  *mapFixedWindow
	}
	runParallel(b, "map-fixed-window-mutex", w, func(b *testing.B) (*lockedMap, benchHeap) {
		m, heap := fillMapFixedWindow(b, w.keys)
		return &lockedMap{m: m}, heap
	}, func(l *lockedMap, k Key, now int64) bool {
		l.mu.Lock()
		ok, _, _ := l.m.Allow(k, now, 1)
		l.mu.Unlock()
		return ok
	})
	type lockedRate struct {
		mu sync.Mutex
		m  map[Key]*rate.Limiter
	}
	// The map's lock covers only the lookup; each limiter has a lock of
	// its own. (A server would also insert new keys under it; the
	// benchmark's keys are all inserted before timing.)
	runParallel(b, "x-time-rate-mutex-map", w, func(b *testing.B) (*lockedRate, benchHeap) {
		m, heap := fillRateMap(b, w.keys)
		return &lockedRate{m: m}, heap
	}, func(l *lockedRate, k Key, now int64) bool {
		l.mu.Lock()
		lim := l.m[k]
		l.mu.Unlock()
		return lim.AllowN(t0.Add(time.Duration(now-benchBase)*time.Millisecond), 1)
	})
	runParallel(b, "x-time-rate-sync-map", w, func(b *testing.B) (*sync.Map, benchHeap) {
		return measureHeap(b, len(w.keys), func() *sync.Map {
			var m sync.Map
			for _, k := range w.keys {
				m.Store(k, newRateLimiter())
			}
			return &m
		})
	}, func(m *sync.Map, k Key, now int64) bool {
		v, _ := m.Load(k)
		return v.(*rate.Limiter).AllowN(t0.Add(time.Duration(now-benchBase)*time.Millisecond), 1)
	})
}

// runParallel runs op from every goroutine as sub-benchmark name. build
// runs once, outside the timer, however many times the testing package
// calls the sub-benchmark (RunParallel benchmarks are called once per
// round).
func runParallel[T any](b *testing.B, name string, w benchWorkload, build func(*testing.B) (T, benchHeap), op func(v T, k Key, now int64) bool) {
	mask := len(w.seq) - 1
	var v T
	var heap benchHeap
	built := false
	b.Run(name, func(b *testing.B) {
		if !built {
			v, heap = build(b)
			built = true
		}
		var next atomic.Int64
		b.ReportAllocs()
		b.ResetTimer()
		cpu := startCPU()
		b.RunParallel(func(pb *testing.PB) {
			i, now := int(next.Add(1))*1_000_003, benchBase
			admitted := 0
			for pb.Next() {
				now++
				if op(v, w.seq[i&mask], now) {
					admitted++
				}
				i++
			}
			sinkAdmitted.Add(int64(admitted))
		})
		b.StopTimer()
		used := processCPU() - time.Duration(cpu)
		cpu.report(b, heap)
		if wall := b.Elapsed(); wall > 0 {
			b.ReportMetric(float64(used)/float64(wall), "cpus")
		}
	})
}

var sinkAdmitted atomic.Int64

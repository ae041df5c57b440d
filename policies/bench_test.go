package policies

import (
	"testing"
	"time"

	"github.com/windowlab/playground/internal/benchload"
)

// The workloads (hot, uniform 1e6 keys, zipf), the heap and CPU
// measurements and the baselines are internal/benchload's, shared with
// limiter's benchmarks of the concurrent forms. Every subject (each policy,
// the hand-written map fixed window, a bare map lookup, x/time/rate
// limiters in a map) runs in the same binary on the same sequences, so
// their ratios are measured in the same run. The many-key subjects decide
// (or insert) all 1e6 keys once before the timer starts and report
// heapB/key: the live heap they hold, table included, measured with
// runtime.ReadMemStats around that fill.
//
//	go test -run '^$' -bench . -benchmem -benchtime 400ms -cpu 1,2 ./policies/

const (
	benchLimit  = benchload.Limit
	benchWindow = benchload.Window
	benchBase   = benchload.Base
)

// benchPolicies are the subjects: every registered policy, once per word
// of a choice option (Variants), so that a policy added to the registry
// is measured and reported without a line here.
var benchPolicies = Variants()

func benchParams(p Params) Params {
	p.Limit, p.WindowMs = benchLimit, benchWindow
	return p
}

func fillPolicy(b *testing.B, name string, p Params, keys []Key) (Policy, benchload.Heap) {
	b.Helper()
	return benchload.MeasureHeap(b, len(keys), func() Policy {
		pol := mustNew(b, name, p)
		for _, k := range keys {
			pol.Decide(k, benchBase, 1)
		}
		return pol
	})
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
	for _, w := range benchload.Workloads() {
		mask := len(w.Seq) - 1
		b.Run(w.Name, func(b *testing.B) {
			b.Run("map-lookup", func(b *testing.B) {
				m, heap := benchload.FillMap(b, w.Keys)
				b.ReportAllocs()
				cpu := benchload.StartCPU()
				var sum uint64
				for i := 0; b.Loop(); i++ {
					sum += m[w.Seq[i&mask]]
				}
				sinkInt = int64(sum)
				cpu.Report(b, heap)
			})
			b.Run("map-fixed-window", func(b *testing.B) {
				m, heap := benchload.FillMapFixedWindow(b, w.Keys)
				b.ReportAllocs()
				cpu := benchload.StartCPU()
				now, admitted := benchBase, int64(0)
				for i := 0; b.Loop(); i++ {
					now++
					if ok, _, _ := m.Allow(w.Seq[i&mask], now, 1); ok {
						admitted++
					}
				}
				sinkInt = admitted
				cpu.Report(b, heap)
			})
			for _, bp := range benchPolicies {
				b.Run(bp.Label+".Allow", func(b *testing.B) {
					pol, heap := fillPolicy(b, bp.Name, benchParams(bp.Params), w.Keys)
					b.ReportAllocs()
					cpu := benchload.StartCPU()
					now, admitted := benchBase, int64(0)
					for i := 0; b.Loop(); i++ {
						now++
						if pol.Allow(w.Seq[i&mask], now, 1).Allowed {
							admitted++
						}
					}
					sinkInt = admitted
					cpu.Report(b, heap)
					reportStats(b, pol)
				})
				b.Run(bp.Label+".Decide", func(b *testing.B) {
					pol, heap := fillPolicy(b, bp.Name, benchParams(bp.Params), w.Keys)
					b.ReportAllocs()
					cpu := benchload.StartCPU()
					now, admitted := benchBase, int64(0)
					for i := 0; b.Loop(); i++ {
						now++
						if pol.Decide(w.Seq[i&mask], now, 1).Allowed {
							admitted++
						}
					}
					sinkInt = admitted
					cpu.Report(b, heap)
				})
			}
			b.Run("x-time-rate", func(b *testing.B) {
				m, heap := benchload.FillRateMap(b, w.Keys)
				t0 := time.UnixMilli(benchBase)
				b.ReportAllocs()
				cpu := benchload.StartCPU()
				admitted := int64(0)
				for i := 0; b.Loop(); i++ {
					if m[w.Seq[i&mask]].AllowN(t0.Add(time.Duration(i+1)*time.Millisecond), 1) {
						admitted++
					}
				}
				sinkInt = admitted
				cpu.Report(b, heap)
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
	w := benchload.Workloads()[1]
	mask := len(w.Seq) - 1
	b.Run("map-lookup", func(b *testing.B) {
		m, heap := benchload.FillMap(b, w.Keys)
		b.ReportAllocs()
		cpu := benchload.StartCPU()
		j := 0
		for b.Loop() {
			v := m[w.Seq[j&mask]]
			j += 1 + int(v>>63)
		}
		sinkInt = int64(j)
		cpu.Report(b, heap)
	})
	b.Run("map-fixed-window", func(b *testing.B) {
		m, heap := benchload.FillMapFixedWindow(b, w.Keys)
		b.ReportAllocs()
		cpu := benchload.StartCPU()
		now, j := benchBase, 0
		for b.Loop() {
			now++
			_, _, count := m.Allow(w.Seq[j&mask], now, 1)
			j += 1 + int(uint64(count)>>63)
		}
		sinkInt = int64(j)
		cpu.Report(b, heap)
	})
	for _, bp := range benchPolicies {
		b.Run(bp.Label, func(b *testing.B) {
			pol, heap := fillPolicy(b, bp.Name, benchParams(bp.Params), w.Keys)
			b.ReportAllocs()
			cpu := benchload.StartCPU()
			now, j := benchBase, 0
			for b.Loop() {
				now++
				d := pol.Decide(w.Seq[j&mask], now, 1)
				j += 1 + int(uint64(d.Estimate.Num)>>63)
			}
			sinkInt = int64(j)
			cpu.Report(b, heap)
		})
	}
}

package play

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// benchLanes are the seven lanes of the benchmarks, the first n used.
var benchLanes = []scenario.PolicySpec{
	{Name: policies.FixedWindow}, {Name: policies.SlidingLog},
	{Name: policies.SlidingCounter, Arithmetic: policies.Floor}, {Name: policies.SlidingCounter, Arithmetic: policies.Exact},
	{Name: policies.SlidingBuckets, Buckets: 6}, {Name: policies.TokenBucket}, {Name: policies.GCRA},
}

// benchScenario is lanes lanes over requests requests of Poisson traffic,
// at most 1,000 per 120 s as the pattern button fires them.
func benchScenario(b *testing.B, lanes, requests int) scenario.Scenario {
	b.Helper()
	s, err := NewSession("bench", scenario.Scenario{Limit: 100, WindowMs: 60_000, Policies: benchLanes[:lanes]})
	if err != nil {
		b.Fatal(err)
	}
	for left := int64(requests); left > 0; left -= MaxPatternCount {
		if err := s.FirePattern(Pattern{Kind: Poisson, Count: min(left, MaxPatternCount), SpanMs: 120_000}); err != nil {
			b.Fatal(err)
		}
	}
	return s.Scenario()
}

// cpuMeter adds up the process's CPU time (user + system, every thread)
// over the stretches between start and stop: lanes are replayed in parallel
// goroutines, so wall time understates what an update costs the machine.
type cpuMeter struct {
	from  time.Duration
	total time.Duration
}

func cpuNow(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func (m *cpuMeter) start(b *testing.B) { m.from = cpuNow(b) }
func (m *cpuMeter) stop(b *testing.B)  { m.total += cpuNow(b) - m.from }

// BenchmarkViewUpdate is one playground update: an action, then the View
// that every open stream renders. "step" moves the clock 100 ms; "fire"
// sends one request at the clock. "full" replays every lane from the first
// request, as every view did before a session kept its replay; "kept"
// continues the kept replay. cpu-ns/op is the process's CPU time per update.
// Every 100 updates the session is loaded afresh (outside the measurement),
// so it stays at its size and its clock near its last request.
func BenchmarkViewUpdate(b *testing.B) {
	for _, lanes := range []int{1, 4, 7} {
		for _, requests := range []int{500, 5000} {
			sc := benchScenario(b, lanes, requests)
			for _, action := range []string{"step", "fire"} {
				for _, mode := range []string{"full", "kept"} {
					b.Run(fmt.Sprintf("lanes=%d/requests=%d/%s/%s", lanes, requests, action, mode), func(b *testing.B) {
						benchUpdate(b, sc, action, mode == "full")
					})
				}
			}
		}
	}
}

func benchUpdate(b *testing.B, sc scenario.Scenario, action string, full bool) {
	// Fired requests must fit: start below the cap by what a round fires.
	const round = 100
	if action == "fire" {
		total := int64(0)
		for i, r := range sc.Requests {
			if total += r.Count; total > MaxRequests-round {
				sc.Requests = sc.Requests[:i]
				break
			}
		}
	}
	s, err := NewSession("bench", sc)
	if err != nil {
		b.Fatal(err)
	}
	s.fullReplay = full
	fresh := func() {
		if err := s.Load(sc); err != nil {
			b.Fatal(err)
		}
		must(b, "cost", s.SetCost(1))
		s.View()
	}
	fresh()
	var cpu cpuMeter
	updates := 0
	cpu.start(b)
	for b.Loop() {
		if updates > 0 && updates%round == 0 {
			cpu.stop(b)
			b.StopTimer()
			fresh()
			b.StartTimer()
			cpu.start(b)
		}
		if action == "fire" {
			must(b, "fire", s.Fire(1))
		} else {
			must(b, "step", s.Step(100))
		}
		s.View()
		updates++
	}
	cpu.stop(b)
	b.ReportMetric(float64(cpu.total.Nanoseconds())/float64(updates), "cpu-ns/op")
}

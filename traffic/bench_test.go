package traffic

import (
	"bytes"
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

func benchLog(b *testing.B, lines int) []byte {
	b.Helper()
	var buf bytes.Buffer
	if err := (Generated{Lines: lines, Clients: 5000, Start: time.UnixMilli(t0), Span: 24 * time.Hour, Seed: 1}).WriteCombined(&buf); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkRead is the reading alone: parsing and interning, per line.
func BenchmarkRead(b *testing.B) {
	log := benchLog(b, 100_000)
	b.SetBytes(int64(len(log)))
	for b.Loop() {
		if _, _, err := Read(Source{Name: "b", R: bytes.NewReader(log)}, Options{}, func([]Request, *Clients) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100_000, "ns/line")
}

// BenchmarkReplay is a replay through every registered policy, per line.
func BenchmarkReplay(b *testing.B) {
	log := benchLog(b, 100_000)
	set := Settings{Limit: 100, WindowMs: 60_000}
	for _, n := range policies.Names {
		set.Policies = append(set.Policies, scenario.PolicySpec{Name: n})
	}
	for b.Loop() {
		if _, err := Replay(context.Background(), Source{Name: "b", R: bytes.NewReader(log)}, Options{}, set, ReplayOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100_000, "ns/line")
}

// BenchmarkSweep is 20 limits through every registered policy, per line.
func BenchmarkSweep(b *testing.B) {
	log := benchLog(b, 100_000)
	set := Settings{Limit: 100, WindowMs: 60_000}
	for _, n := range policies.Names {
		set.Policies = append(set.Policies, scenario.PolicySpec{Name: n})
	}
	limits, err := ParseLimits("10:200:10")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Sweep(context.Background(), Source{Name: "b", R: bytes.NewReader(log)}, Options{}, set, limits); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100_000, "ns/line")
}

// BenchmarkDecisionPaths is, per policy, one decision made as a replay at
// one setting makes it (Feed: the full decision, for late counts) and as a
// sweep's lane makes it (FeedVerdicts: the policy's Allow), on a trace
// already read; cpu-ns/decision is the process's CPU time, which a shared
// machine disturbs less than wall time.
func BenchmarkDecisionPaths(b *testing.B) {
	log := benchLog(b, 100_000)
	tr, err := Load(Source{Name: "b", R: bytes.NewReader(log)}, Options{WindowMs: 60_000}, 0)
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range policies.Names {
		set := Settings{Limit: 100, WindowMs: 60_000, Policies: []scenario.PolicySpec{{Name: name}}}
		for _, path := range []string{"full", "verdict"} {
			b.Run(path+"/"+name, func(b *testing.B) {
				c0 := cpuTime(b)
				for b.Loop() {
					var err error
					if path == "full" {
						_, err = ReplayTrace(context.Background(), tr, set, 1)
					} else {
						_, err = SweepTrace(context.Background(), tr, set, []int64{set.Limit})
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(cpuTime(b)-c0)/float64(b.N)/float64(tr.Len()), "cpu-ns/decision")
			})
		}
	}
}

// cpuTime is the process's user and system time in ns.
func cpuTime(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

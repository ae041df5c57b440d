package traffic

import (
	"bytes"
	"context"
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

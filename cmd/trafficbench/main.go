// Command trafficbench measures playground traffic against the numbers
// docs/performance.md gives: a generated combined log through every
// registered policy beside GoAccess (Debian's goaccess) parsing the same file, the
// two run in turn; a sweep of 20 limits against one replay; and the peak
// memory of a replay at 1× and 10× the lines from the same clients at the
// same rate (the log streamed on standard input, so no 10× file is written).
//
//	go build -o /tmp/playground ./cmd/playground
//	go run ./cmd/trafficbench -playground /tmp/playground
//
// Times are each process's CPU time (user + system, from the kernel's
// accounting) and wall time, medians of -runs; on a shared machine the CPU
// times are the ones to compare.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/windowlab/playground/internal/procstat"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/traffic"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "trafficbench:", err)
		os.Exit(1)
	}
}

type sample struct {
	cpu, wall time.Duration
	maxRSSKB  int64
}

func run(ctx context.Context) error {
	pg := flag.String("playground", "", "the playground binary (go build -o /tmp/playground ./cmd/playground)")
	lines := flag.Int("lines", 1_000_000, "lines of the generated log")
	clients := flag.Int("clients", 5000, "distinct client addresses")
	runs := flag.Int("runs", 3, "runs of each command; medians are reported")
	goaccess := flag.String("goaccess", "/usr/bin/goaccess", "GoAccess")
	flag.Parse()
	if *pg == "" {
		return errors.New("give -playground (go build -o /tmp/playground ./cmd/playground)")
	}
	dir, err := os.MkdirTemp("", "trafficbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	gen := traffic.Generated{Lines: *lines, Clients: *clients, Start: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Span: 24 * time.Hour, Seed: 1}
	logPath := filepath.Join(dir, "access.log")
	f, err := os.Create(logPath)
	if err != nil {
		return err
	}
	if err := gen.WriteCombined(f); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Printf("log: %d combined lines from %d clients over 24 h; load average %s\n", *lines, *clients, procstat.LoadAverage())

	replay := []string{"traffic", "--limit", "100", "--window", "1m", logPath}
	sweep := []string{"traffic", "--window", "1m", "--sweep", "10:200:10", logPath}
	ga := []string{logPath, "--log-format=COMBINED", "--no-global-config", "--no-progress", "-o", filepath.Join(dir, "report.json")}

	var ours, theirs, sweeps []sample
	for range *runs {
		s, err := measure(ctx, *pg, replay, nil)
		if err != nil {
			return err
		}
		ours = append(ours, s)
		if s, err = measure(ctx, *goaccess, ga, nil); err != nil {
			return err
		}
		theirs = append(theirs, s)
		if s, err = measure(ctx, *pg, sweep, nil); err != nil {
			return err
		}
		sweeps = append(sweeps, s)
	}
	o, t, sw := median(ours), median(theirs), median(sweeps)
	fmt.Printf("replay, %d policies at one setting: cpu %v, wall %v, peak %d MB\n", len(policies.Names), o.cpu.Round(time.Millisecond), o.wall.Round(time.Millisecond), o.maxRSSKB>>10)
	fmt.Printf("goaccess parsing the same file:     cpu %v, wall %v, peak %d MB\n", t.cpu.Round(time.Millisecond), t.wall.Round(time.Millisecond), t.maxRSSKB>>10)
	fmt.Printf("sweep of 20 limits, %d policies:     cpu %v, wall %v, peak %d MB\n", len(policies.Names), sw.cpu.Round(time.Millisecond), sw.wall.Round(time.Millisecond), sw.maxRSSKB>>10)
	fmt.Printf("replay / goaccess: cpu %.3f×, wall %.3f× (goal ≤ 0.25×)\n", ratio(o.cpu, t.cpu), ratio(o.wall, t.wall))
	fmt.Printf("sweep / replay:    cpu %.2f×, wall %.2f× (goal ≤ 5×)\n", ratio(sw.cpu, o.cpu), ratio(sw.wall, o.wall))

	// Peak memory at 1× and 10× the lines, the same clients at the same
	// rate, streamed.
	var peaks [2]int64
	for i, n := range []int{*lines, 10 * *lines} {
		// The same clients at the same rate: 10× the lines span 10× the time.
		g := gen
		g.Lines, g.Span = n, gen.Span*time.Duration(n / *lines)
		s, err := measure(ctx, *pg, []string{"traffic", "--limit", "100", "--window", "1m", "-"}, func(w io.Writer) error { return g.WriteCombined(w) })
		if err != nil {
			return err
		}
		peaks[i] = s.maxRSSKB
		fmt.Printf("replay of %d lines on standard input: peak %d MB, cpu %v\n", n, s.maxRSSKB>>10, s.cpu.Round(time.Millisecond))
	}
	fmt.Printf("peak at 10× / 1×: %.3f (goal within 10%%)\n", float64(peaks[1])/float64(peaks[0]))
	return nil
}

// measure runs a command to its end, feeding it from feed when given, and
// reads its CPU time and peak resident memory from the kernel.
func measure(ctx context.Context, bin string, args []string, feed func(io.Writer) error) (sample, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout = io.Discard
	var stderr limitedBuffer
	cmd.Stderr = &stderr
	var in io.WriteCloser
	if feed != nil {
		var err error
		if in, err = cmd.StdinPipe(); err != nil {
			return sample{}, err
		}
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return sample{}, err
	}
	var feedErr error
	if feed != nil {
		feedErr = feed(in)
		in.Close()
	}
	err := cmd.Wait()
	wall := time.Since(start)
	if err != nil {
		return sample{}, fmt.Errorf("%s %v: %v: %s", bin, args, err, stderr)
	}
	if feedErr != nil {
		return sample{}, feedErr
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return sample{}, errors.New("no resource usage on this system")
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return sample{cpu: cpu, wall: wall, maxRSSKB: ru.Maxrss}, nil
}

func median(s []sample) sample {
	cpus := make([]time.Duration, len(s))
	walls := make([]time.Duration, len(s))
	rss := make([]int64, len(s))
	for i, x := range s {
		cpus[i], walls[i], rss[i] = x.cpu, x.wall, x.maxRSSKB
	}
	slices.Sort(cpus)
	slices.Sort(walls)
	slices.Sort(rss)
	m := len(s) / 2
	return sample{cpu: cpus[m], wall: walls[m], maxRSSKB: rss[m]}
}

func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }

// limitedBuffer keeps the first 4 KB a command writes to standard error.
type limitedBuffer []byte

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := 4096 - len(*b); room > 0 {
		*b = append(*b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (b limitedBuffer) String() string { return string(b) }

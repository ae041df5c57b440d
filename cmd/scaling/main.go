// Command scaling measures whether the concurrency-safe policies
// (limiter.NewConcurrent) scale with processors, beside x/time/rate
// limiters in a map under a mutex: decisions per second of wall time with
// 1 and 2 goroutines at GOMAXPROCS 1 and 2, over 1e6 keys drawn uniformly,
// every key decided once before timing.
//
//	go run ./cmd/scaling                     # 5 rounds of 1 s per subject and processor count
//	go run ./cmd/scaling -rounds 9 -procs 1,2,4 -subjects sliding-buckets-k6,x-time-rate-mutex-map
//	go run ./cmd/scaling -subjects gcra,sharded-gcra,x-time-rate-mutex-map   # A/B with the sharded-mutex form
//	go run ./cmd/scaling -pingpong           # what one cache line handed between two processors costs
//
// The sharded-<policy> subjects (limiter.NewSharded, a mutex per shard, the
// concurrent form before the per-slot one) run only when -subjects names
// them.
//
// Rounds interleave: each round measures every subject at every processor
// count, so a burst of load from other programs spreads over all of them
// rather than spoiling one. The table gives medians. Wall-time scaling means
// something only when the program had the processors it asked for, so
// beside each wall-time figure it prints "cpus", the process's CPU time
// over the wall time (from getrusage), and warns when it is under 90% of
// the processors asked for, and it prints the load average before and
// after. (A subject whose goroutines park on a contended lock also uses
// fewer processors than it asked for; other programs' load lowers every
// subject's.) The workload is BenchmarkDecideParallel's uniform one (limit 100
// per 1,200 ms, cost 1, each goroutine at its own place in one precomputed
// key sequence with its own clock advancing 1 ms per decision), so the two
// agree on CPU per decision.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/windowlab/playground/internal/cli"
	"github.com/windowlab/playground/internal/procstat"
	"github.com/windowlab/playground/internal/summary"
	"github.com/windowlab/playground/limiter"
	"github.com/windowlab/playground/policies"
)

// Bounds of one run, whatever the flags say.
const (
	maxKeys     = 4_000_000
	maxRounds   = 50
	maxDuration = 10 * time.Second
	maxProcs    = 256

	limit    = 100
	windowMs = 1200
	base     = int64(1_700_000_000_000)
	seqLen   = 1 << 22 // steps in the precomputed key sequence
)

func main() {
	os.Exit(cli.ExitCode("scaling", run(os.Args[1:], os.Stdout), os.Stderr))
}

type options struct {
	keys     int
	rounds   int
	duration time.Duration
	procs    []int
	subjects []string
	pingPong bool
}

// decider is one subject's decision, called through a func value for every
// subject alike.
type decider func(key uint64, now int64) bool

type subject struct {
	name  string
	build func(keys []uint64) (decider, error)
	// extra subjects run only when -subjects names them.
	extra bool
}

func concurrent(name string, p policies.Params) func([]uint64) (decider, error) {
	return filled(func() (policies.Policy, error) {
		p.Limit, p.WindowMs = limit, windowMs
		return limiter.NewConcurrent(name, p, 0)
	})
}

// sharded is the earlier concurrent form, a mutex per shard, for an A/B
// against concurrent in one process.
func sharded(name string, p policies.Params) func([]uint64) (decider, error) {
	return filled(func() (policies.Policy, error) {
		p.Limit, p.WindowMs = limit, windowMs
		return limiter.NewSharded(name, p, 0)
	})
}

// filled builds a policy and decides every key once.
func filled(build func() (policies.Policy, error)) func([]uint64) (decider, error) {
	return func(keys []uint64) (decider, error) {
		c, err := build()
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			c.Allow(k, base, 1)
		}
		return func(k uint64, now int64) bool { return c.Allow(k, now, 1).Allowed }, nil
	}
}

// lockedRate is x/time/rate as a Go server would hold it: a limiter per key
// in a map under a mutex, the map's lock held only for the lookup (each
// limiter has a lock of its own).
func lockedRate(keys []uint64) (decider, error) {
	var mu sync.Mutex
	m := make(map[uint64]*rate.Limiter, len(keys))
	for _, k := range keys {
		m[k] = rate.NewLimiter(rate.Limit(limit*1000.0/windowMs), limit)
	}
	t0 := time.UnixMilli(base)
	return func(k uint64, now int64) bool {
		mu.Lock()
		lim := m[k]
		mu.Unlock()
		return lim.AllowN(t0.Add(time.Duration(now-base)*time.Millisecond), 1)
	}, nil
}

// The baseline's name; every other subject is compared with it.
const baseline = "x-time-rate-mutex-map"

// allSubjects has the labels BenchmarkDecideParallel uses, then the
// earlier sharded form of each policy (sharded-<label>), which only -subjects
// asks for.
var allSubjects = []subject{
	{"fixed-window", concurrent(policies.FixedWindow, policies.Params{}), false},
	{"sliding-log", concurrent(policies.SlidingLog, policies.Params{}), false},
	{"sliding-counter-floor", concurrent(policies.SlidingCounter, policies.Params{Arithmetic: policies.Floor}), false},
	{"sliding-counter-exact", concurrent(policies.SlidingCounter, policies.Params{Arithmetic: policies.Exact}), false},
	{"sliding-buckets-k6", concurrent(policies.SlidingBuckets, policies.Params{Buckets: 6}), false},
	{"token-bucket", concurrent(policies.TokenBucket, policies.Params{}), false},
	{"gcra", concurrent(policies.GCRA, policies.Params{}), false},
	{baseline, lockedRate, false},
	{"sharded-fixed-window", sharded(policies.FixedWindow, policies.Params{}), true},
	{"sharded-sliding-log", sharded(policies.SlidingLog, policies.Params{}), true},
	{"sharded-sliding-counter-floor", sharded(policies.SlidingCounter, policies.Params{Arithmetic: policies.Floor}), true},
	{"sharded-sliding-counter-exact", sharded(policies.SlidingCounter, policies.Params{Arithmetic: policies.Exact}), true},
	{"sharded-sliding-buckets-k6", sharded(policies.SlidingBuckets, policies.Params{Buckets: 6}), true},
	{"sharded-token-bucket", sharded(policies.TokenBucket, policies.Params{}), true},
	{"sharded-gcra", sharded(policies.GCRA, policies.Params{}), true},
}

// subjectNames lists every subject, or only those run by default.
func subjectNames(all bool) []string {
	var names []string
	for _, s := range allSubjects {
		if all || !s.extra {
			names = append(names, s.name)
		}
	}
	return names
}

// helpRequested is parse's answer to -h: the usage text, which run
// prints as the answer rather than as an error.
type helpRequested string

func (h helpRequested) Error() string { return string(h) }

func parse(args []string) (options, error) {
	fs := flag.NewFlagSet("scaling", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o := options{}
	fs.IntVar(&o.keys, "keys", 1_000_000, "distinct keys, drawn uniformly")
	fs.BoolVar(&o.pingPong, "pingpong", false, "instead, measure what handing one cache line between two processors costs")
	fs.IntVar(&o.rounds, "rounds", 5, "rounds; the table gives medians")
	fs.DurationVar(&o.duration, "d", time.Second, "wall time of one measurement")
	procs := fs.String("procs", "1,2", "comma-separated processor counts (GOMAXPROCS and goroutines)")
	subjects := fs.String("subjects", strings.Join(subjectNames(false), ","),
		"comma-separated subjects, of "+strings.Join(subjectNames(true), ","))
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		var b strings.Builder
		b.WriteString("usage: scaling [flags]\n\nDecisions a second of the concurrent policies at 1 and 2 processors, or (-pingpong) the cost of handing a cache line between two.\n\nflags:\n")
		fs.SetOutput(&b)
		fs.PrintDefaults()
		return o, helpRequested(b.String())
	} else if err != nil {
		return o, cli.Usage{Err: err}
	}
	if fs.NArg() > 0 {
		return o, cli.Usagef("unexpected argument %q", fs.Arg(0))
	}
	if o.keys < 1 || o.keys > maxKeys {
		return o, cli.Usagef("-keys %d is out of range [1, %d]", o.keys, maxKeys)
	}
	if o.rounds < 1 || o.rounds > maxRounds {
		return o, cli.Usagef("-rounds %d is out of range [1, %d]", o.rounds, maxRounds)
	}
	if o.duration < time.Millisecond || o.duration > maxDuration {
		return o, cli.Usagef("-d %v is out of range [1ms, %v]", o.duration, maxDuration)
	}
	for f := range strings.SplitSeq(*procs, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > maxProcs {
			return o, cli.Usagef("-procs: %q is not a processor count in [1, %d]", f, maxProcs)
		}
		if !slices.Contains(o.procs, n) {
			o.procs = append(o.procs, n)
		}
	}
	for f := range strings.SplitSeq(*subjects, ",") {
		f = strings.TrimSpace(f)
		if !slices.Contains(subjectNames(true), f) {
			return o, cli.Usagef("-subjects: unknown subject %q (want some of %s)", f, strings.Join(subjectNames(true), ","))
		}
		if !slices.Contains(o.subjects, f) {
			o.subjects = append(o.subjects, f)
		}
	}
	return o, nil
}

// sample is one measurement: decisions over wall and CPU time.
type sample struct {
	decisions int64
	wall, cpu time.Duration
}

func (s sample) perSecond() float64 { return float64(s.decisions) / s.wall.Seconds() }
func (s sample) cpuNs() float64     { return float64(s.cpu.Nanoseconds()) / float64(s.decisions) }
func (s sample) cpus() float64      { return s.cpu.Seconds() / s.wall.Seconds() }

// measure runs decide from procs goroutines at GOMAXPROCS procs for about
// d. Goroutine g starts at step g×1,000,003 of seq with its own clock.
func measure(decide decider, seq []uint64, procs int, d time.Duration) sample {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	mask := len(seq) - 1
	var stop atomic.Bool
	var total atomic.Int64
	var ready, done sync.WaitGroup
	begin := make(chan struct{})
	for g := range procs {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			i, now, n := (g+1)*1_000_003, base, int64(0)
			ready.Done()
			<-begin
			for !stop.Load() {
				// A batch between looks at the flag keeps the shared
				// load out of the timing without overrunning d by much.
				for range 64 {
					now++
					decide(seq[i&mask], now)
					i++
				}
				n += 64
			}
			total.Add(n)
		}()
	}
	ready.Wait()
	cpu0 := processCPU()
	start := time.Now()
	close(begin)
	time.Sleep(d)
	stop.Store(true)
	done.Wait()
	return sample{decisions: total.Load(), wall: time.Since(start), cpu: processCPU() - cpu0}
}

func loadAverage() string { return procstat.LoadAverage() }

func run(args []string, out io.Writer) error {
	o, err := parse(args)
	if help, ok := err.(helpRequested); ok {
		_, err := io.WriteString(out, string(help))
		return err
	}
	if err != nil {
		return err
	}
	if o.pingPong {
		reportPingPong(out, o.rounds, pingPongHandoffs)
		return nil
	}
	r := rand.New(rand.NewPCG(1, 2))
	keys := make([]uint64, o.keys)
	for i := range keys {
		keys[i] = r.Uint64()
	}
	seq := make([]uint64, seqLen)
	for i := range seq {
		seq[i] = keys[r.IntN(len(keys))]
	}
	deciders := make([]decider, len(o.subjects))
	for i, name := range o.subjects {
		j := slices.IndexFunc(allSubjects, func(s subject) bool { return s.name == name })
		if deciders[i], err = allSubjects[j].build(keys); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	runtime.GC()

	fmt.Fprintf(out, "scaling: %d keys, %d rounds of %v, processors %v; machine: %d CPUs, GOMAXPROCS %d, %s/%s\n",
		o.keys, o.rounds, o.duration, o.procs, runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(out, "load average before: %s\n", loadAverage())
	// samples[subject][procs index][round]
	samples := make([][][]sample, len(o.subjects))
	for i := range samples {
		samples[i] = make([][]sample, len(o.procs))
	}
	for range o.rounds {
		for i := range o.subjects {
			for j, p := range o.procs {
				samples[i][j] = append(samples[i][j], measure(deciders[i], seq, p, o.duration))
			}
		}
	}
	fmt.Fprintf(out, "load average after: %s\n\n", loadAverage())
	report(out, o, samples)
	return nil
}

// pingPongHandoffs is how many times one round hands the line over.
const pingPongHandoffs = 1 << 21

// pingPong is the wall time of one handoff of a cache line between two
// goroutines at GOMAXPROCS 2: they take turns adding one to a counter,
// each spinning until the other has added its one, so every addition
// first brings the line over from the other processor's cache. It is
// what a decision pays for writing a line the other processor wrote last,
// such as a shared lock.
func pingPong(handoffs int64) (perHandoff time.Duration, cpus float64) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var counter atomic.Int64
	var wg sync.WaitGroup
	cpu0 := processCPU()
	start := time.Now()
	for parity := range int64(2) {
		wg.Go(func() {
			for v := parity; v < handoffs; v += 2 {
				for counter.Load() != v {
					// spin: yielding would measure the scheduler, not the line
				}
				counter.Store(v + 1)
			}
		})
	}
	wg.Wait()
	wall := time.Since(start)
	return wall / time.Duration(handoffs), (processCPU() - cpu0).Seconds() / wall.Seconds()
}

// reportPingPong prints the median handoff over the rounds.
func reportPingPong(out io.Writer, rounds int, handoffs int64) {
	fmt.Fprintf(out, "pingpong: %d rounds of %d handoffs of one cache line between 2 goroutines at GOMAXPROCS 2; machine: %d CPUs\n",
		rounds, handoffs, runtime.NumCPU())
	fmt.Fprintf(out, "load average before: %s\n", loadAverage())
	var ns, cpus []float64
	for range rounds {
		d, c := pingPong(handoffs)
		ns, cpus = append(ns, float64(d.Nanoseconds())), append(cpus, c)
	}
	fmt.Fprintf(out, "load average after: %s\n", loadAverage())
	fmt.Fprintf(out, "median %.0f ns per handoff (rounds: %v), cpus %.2f\n", summary.Median(ns), ns, summary.Median(cpus))
	if summary.Median(cpus) < 1.8 {
		fmt.Fprintf(out, "warning: the two goroutines did not have two processors to themselves (cpus under 1.8): a handoff then waits for the scheduler and the figure is not the line's\n")
	}
}

// report prints, per subject and processor count, the median decisions per
// second of wall time, the median CPU ns per decision and the median cpus,
// then the scaling (median rate at n processors over the median at the
// first count) and each rate over the baseline's at the same count.
func report(out io.Writer, o options, samples [][][]sample) {
	type stat struct{ rate, cpuNs, cpus float64 }
	stats := make([][]stat, len(o.subjects))
	for i := range samples {
		for j := range o.procs {
			var rate, cpuNs, cpus []float64
			for _, s := range samples[i][j] {
				rate = append(rate, s.perSecond())
				cpuNs = append(cpuNs, s.cpuNs())
				cpus = append(cpus, s.cpus())
			}
			stats[i] = append(stats[i], stat{summary.Median(rate), summary.Median(cpuNs), summary.Median(cpus)})
		}
	}
	base := slices.Index(o.subjects, baseline)
	fmt.Fprint(out, "| subject | procs | decisions/s (wall) | × at first procs | × "+baseline+" | CPU ns/decision | cpus |\n")
	fmt.Fprint(out, "| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	short := false
	for i, name := range o.subjects {
		for j, p := range o.procs {
			st := stats[i][j]
			vsBase := "–"
			if base >= 0 {
				vsBase = fmt.Sprintf("%.2f", st.rate/stats[base][j].rate)
			}
			fmt.Fprintf(out, "| %s | %d | %.3g M | %.2f | %s | %.0f | %.2f |\n",
				name, p, st.rate/1e6, st.rate/stats[i][0].rate, vsBase, st.cpuNs, st.cpus)
			if st.cpus < 0.9*float64(p) {
				short = true
			}
		}
	}
	if short {
		fmt.Fprintf(out, "\nwarning: some runs used under 90%% of the processors they asked for (cpus column). Either their goroutines slept waiting for a lock (a subject that does not scale), or other programs held the processors (then every subject shows it, the load average is high, and the wall-time rates and scaling are not this code's: rerun on a quiet machine).\n")
	}
}

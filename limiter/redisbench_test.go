package limiter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
	"github.com/windowlab/playground/internal/redistest"
	"github.com/windowlab/playground/limiter"
	"github.com/windowlab/playground/limiter/redisbench"
	"github.com/windowlab/playground/policies"
)

// updateRedisBench rewrites limiter/redisbench/redis-bench.json and the table in docs/redis.md
// from a fresh measurement:
//
//	go test ./limiter/ -run TestRedisBenchFile -update-redis-bench
var updateRedisBench = flag.Bool("update-redis-bench", false, "rewrite limiter/redisbench/redis-bench.json and docs/redis.md's table from a fresh measurement")

const (
	benchFile   = "redisbench/redis-bench.json"
	docFile     = "../docs/redis.md"
	benchBegin  = "<!-- redis-bench: begin (written by go test ./limiter/ -run TestRedisBenchFile -update-redis-bench) -->\n"
	benchEnd    = "<!-- redis-bench: end -->\n"
	benchCmd    = redisbench.Command
	benchKeys   = 100 // keys of the memory and commands workload
	benchPerKey = 20  // requests per key there: a minute at one every 3 s
	benchBatch1 = 100 // decisions per pipeline in the batch measurement
)

// benchParams are the lessons' settings: ten a minute, six buckets, a
// burst of the limit.
var benchParams = policies.Params{Limit: 10, WindowMs: 60_000, Buckets: 6}

// benchReport is the measurement; redisbench holds its shape, so that the
// lessons read the file this writes.
type benchReport = redisbench.Report

type benchRow = redisbench.Row

// gcraLabel is the row set against redis_rate, also the form batched.
const gcraLabel = "gcra"

// benchForms are the forms measured, labelled as the table shows them:
// every registered policy with benchParams, once per choice of an option
// that has choices ("sliding-counter floor").
func benchForms() []struct {
	label string
	form  form
} {
	var out []struct {
		label string
		form  form
	}
	add := func(label, name string, p policies.Params) {
		out = append(out, struct {
			label string
			form  form
		}{label, form{name, p}})
	}
	for _, in := range policies.Registered() {
		choices := false
		for _, o := range in.Options {
			if o.Kind != policies.Choice {
				continue
			}
			choices = true
			for i, c := range o.Choices {
				p := benchParams
				o.Set(&p, int64(i))
				add(in.Name+" "+c, in.Name, p)
			}
		}
		if !choices {
			add(in.Name, in.Name, benchParams)
		}
	}
	return out
}

// decider is one decision on key at the caller's instant at.
type decider func(ctx context.Context, key string, at int64) error

// scriptMicros is Redis's time per EVALSHA since the stats were reset.
func scriptMicros(ctx context.Context, rdb *redis.Client) (float64, error) {
	info, err := rdb.Info(ctx, "commandstats").Result()
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(info, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "cmdstat_evalsha:"); ok {
			for _, f := range strings.Split(rest, ",") {
				if v, ok := strings.CutPrefix(f, "usec_per_call="); ok {
					return strconv.ParseFloat(v, 64)
				}
			}
		}
	}
	return 0, fmt.Errorf("no cmdstat_evalsha in %q", info)
}

// commandStats is INFO commandstats as calls per command.
func commandStats(ctx context.Context, rdb *redis.Client) (map[string]int64, error) {
	info, err := rdb.Info(ctx, "commandstats").Result()
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, line := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":calls=")
		if !ok {
			continue
		}
		n, _ := strconv.ParseInt(rest[:strings.IndexByte(rest, ',')], 10, 64)
		out[strings.TrimPrefix(name, "cmdstat_")] = n
	}
	return out, nil
}

// benchWorkload decides benchPerKey requests on each of benchKeys keys, one at
// a time, and reports the commands and round trips per decision and the
// bytes a key then holds.
func benchWorkload(ctx context.Context, rdb *redis.Client, row *benchRow, prefix string, keyOf func(string) string, decide decider) error {
	if err := decide(ctx, "warm", 0); err != nil { // loads the script
		return err
	}
	if err := rdb.ConfigResetStat(ctx).Err(); err != nil {
		return err
	}
	// Ten clients of ten keys each: a key's requests stay in order, which
	// is all the counts depend on.
	const clients = 10
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range benchPerKey {
				for k := c; k < benchKeys; k += clients {
					if err := decide(ctx, fmt.Sprintf("%sm%d", prefix, k), int64(j)*3000+int64(k)); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	n := benchPerKey * benchKeys
	stats, err := commandStats(ctx, rdb)
	if err != nil {
		return err
	}
	var sent, ran int64
	for name, calls := range stats {
		switch name {
		case "evalsha", "eval":
			sent += calls
		case "config|resetstat", "config", "info":
		case "hello", "client|setinfo", "client", "ping", "select":
			// a client's new connection introducing itself
		default:
			ran += calls
		}
	}
	row.Commands = round3(float64(ran) / float64(n))
	row.RoundTrips = round3(float64(sent) / float64(n))
	var bytes int64
	for k := range benchKeys {
		b, err := rdb.MemoryUsage(ctx, keyOf(fmt.Sprintf("%sm%d", prefix, k)), 0).Result()
		if err != nil {
			return err
		}
		bytes += b
	}
	row.BytesPerKey = bytes / benchKeys
	return nil
}

// benchThroughput runs clients goroutines deciding one at a time for d, each on
// its own thousand keys with its own clock, and returns decisions a second.
func benchThroughput(ctx context.Context, clients int, d time.Duration, prefix string, decide decider) (float64, error) {
	var total atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	stop := time.Now().Add(d)
	start := time.Now()
	for g := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int64(0); ; i++ {
				if i%64 == 0 && time.Now().After(stop) {
					return
				}
				if err := decide(ctx, fmt.Sprintf("%st%d:%d", prefix, g, i%1000), i*6); err != nil {
					errs <- err
					return
				}
				total.Add(1)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	if err := <-errs; err != nil {
		return 0, err
	}
	return math.Round(float64(total.Load()) / elapsed.Seconds()), nil
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// benchRounds is how many times each throughput is measured, the forms taking
// turns, so that a change in the machine's load falls on all of them; the
// median is reported.
const benchRounds = 3

func medianOf(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// benchMeasure takes every figure of the report on a fresh server, each
// throughput run lasting d.
func benchMeasure(t *testing.T, d time.Duration) benchReport {
	t.Helper()
	rdb := redistest.Start(t).Client(t)
	ctx := context.Background()
	info, err := rdb.Info(ctx, "server").Result()
	if err != nil {
		t.Fatal(err)
	}
	rep := benchReport{
		Command: benchCmd,
		Machine: redisbench.Machine{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPUs: runtime.NumCPU(), Go: runtime.Version(), Load: loadAverage()},
		Params: redisbench.Settings{Limit: benchParams.Limit, WindowMs: benchParams.WindowMs, Buckets: benchParams.Buckets,
			Keys: benchKeys, RequestsKey: benchPerKey, MeasureMs: d.Milliseconds(), Rounds: benchRounds},
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "redis_version:"); ok {
			rep.Redis = v
		}
	}
	const base = 1_700_000_000_000
	// decide is on the caller's instant, for the workload; live on the
	// real clock, for the throughput, so that the forms and redis_rate
	// (which reads Redis TIME) see the same traffic: each key far above
	// its rate, so after its first ten most requests are refused.
	type subject struct {
		label, policy, arithmetic string
		keyOf                     func(string) string
		decide, live              decider
	}
	var subjects []subject
	var gcra *limiter.Redis
	for i, f := range benchForms() {
		r, err := limiter.NewRedis(rdb, f.form.name, f.form.p, limiter.RedisOptions{Prefix: fmt.Sprintf("b%d:", i), TTLPadMs: replayPad})
		if err != nil {
			t.Fatal(err)
		}
		if f.form.name == policies.GCRA {
			gcra = r
		}
		subjects = append(subjects, subject{f.label, f.form.name, string(r.Params().Arithmetic), r.Key, func(ctx context.Context, key string, at int64) error {
			_, err := r.DecideAt(ctx, key, base+at, 1)
			return err
		}, func(ctx context.Context, key string, _ int64) error {
			_, err := r.Decide(ctx, key, 1)
			return err
		}})
	}
	rl := redis_rate.NewLimiter(rdb)
	limit := redis_rate.Limit{Rate: int(benchParams.Limit), Burst: int(benchParams.Limit), Period: time.Duration(benchParams.WindowMs) * time.Millisecond}
	anchor := func(ctx context.Context, key string, _ int64) error {
		_, err := rl.AllowN(ctx, key, limit, 1)
		return err
	}
	subjects = append(subjects, subject{"redis_rate v10 (gcra)", "", "", func(k string) string { return "rate:" + k }, anchor, anchor})
	rows := make([]benchRow, len(subjects))
	for i, s := range subjects {
		rows[i].Form, rows[i].Policy, rows[i].Arithmetic = s.label, s.policy, s.arithmetic
		if err := benchWorkload(ctx, rdb, &rows[i], "", s.keyOf, s.decide); err != nil {
			t.Fatalf("%s: %v", s.label, err)
		}
	}
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = fmt.Sprintf("p%d", i)
	}
	// The batch and the one-at-a-time calls it is compared with decide the
	// same requests: request n is on key n mod 1000 at 60 ms per hundred.
	request := func(n int) limiter.RedisRequest {
		return limiter.RedisRequest{Key: keys[n%len(keys)], At: base + int64(n/benchBatch1)*60, Cost: 1}
	}
	reqs := make([]limiter.RedisRequest, benchBatch1)
	pipelined := func(batch bool) float64 {
		n, start, stop := 0, time.Now(), time.Now().Add(d)
		for time.Now().Before(stop) {
			for j := range reqs {
				reqs[j] = request(n + j)
			}
			if batch {
				if _, err := gcra.Batch(ctx, reqs); err != nil {
					t.Fatal(err)
				}
			} else {
				for _, q := range reqs {
					if _, err := gcra.DecideAt(ctx, q.Key, q.At, q.Cost); err != nil {
						t.Fatal(err)
					}
				}
			}
			n += len(reqs)
		}
		return math.Round(float64(n) / time.Since(start).Seconds())
	}
	one, eight, micros := make([][]float64, len(subjects)), make([][]float64, len(subjects)), make([][]float64, len(subjects))
	var alone, batched []float64
	for round := range benchRounds {
		for i, s := range subjects {
			prefix := fmt.Sprintf("r%d:", round)
			if err := rdb.ConfigResetStat(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			a, err := benchThroughput(ctx, 1, d, prefix+"a", s.live)
			if err != nil {
				t.Fatalf("%s: %v", s.label, err)
			}
			us, err := scriptMicros(ctx, rdb)
			if err != nil {
				t.Fatal(err)
			}
			micros[i] = append(micros[i], us)
			b, err := benchThroughput(ctx, 8, d, prefix+"b", s.live)
			if err != nil {
				t.Fatalf("%s: %v", s.label, err)
			}
			one[i], eight[i] = append(one[i], a), append(eight[i], b)
		}
		alone, batched = append(alone, pipelined(false)), append(batched, pipelined(true))
	}
	for i := range rows {
		rows[i].PerSecond1, rows[i].PerSecond8 = medianOf(one[i]), medianOf(eight[i])
		rows[i].ServerMicros = round3(medianOf(micros[i]))
	}
	rep.Forms, rep.Anchor = rows[:len(rows)-1], rows[len(rows)-1]
	rep.Batch = redisbench.Batch{Form: gcraLabel, Size: benchBatch1, OneAtATime: medianOf(alone), Pipelined: medianOf(batched)}
	const clients, windows, raceLimit = 8, 5, 50
	naive, script, err := overAdmission(rdb, clients, windows, raceLimit)
	if err != nil {
		t.Fatal(err)
	}
	rep.Race = redisbench.Race{Clients: clients, Limit: raceLimit, Windows: windows, Admitted: naive, ScriptAdmitted: script}
	return rep
}

// loadAverage is the machine's one-minute load average as /proc/loadavg
// gives it, "" where there is none.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	return strings.Fields(string(b))[0]
}

// goals are the goals, each met or not by the report.
func benchGoals(r benchReport) []struct {
	text string
	met  bool
} {
	var gcra benchRow
	for _, f := range r.Forms {
		if f.Form == gcraLabel {
			gcra = f
		}
	}
	oneTrip := true
	for _, f := range r.Forms {
		oneTrip = oneTrip && f.RoundTrips == 1
	}
	return []struct {
		text string
		met  bool
	}{
		{"every form decides in one round trip", oneTrip},
		{fmt.Sprintf("gcra decides at least as many a second as redis_rate from 1 client (%.0f vs %.0f)", gcra.PerSecond1, r.Anchor.PerSecond1), gcra.PerSecond1 >= r.Anchor.PerSecond1},
		{fmt.Sprintf("gcra decides at least as many a second as redis_rate from 8 clients (%.0f vs %.0f)", gcra.PerSecond8, r.Anchor.PerSecond8), gcra.PerSecond8 >= r.Anchor.PerSecond8},
		{fmt.Sprintf("a pipelined batch of %d decides at least 5× one-at-a-time calls (%.1f×)", r.Batch.Size, r.Batch.Pipelined/r.Batch.OneAtATime), r.Batch.Pipelined >= 5*r.Batch.OneAtATime},
		{fmt.Sprintf("the script admits exactly the limit under %d racing clients (%d of %d), where read-then-write admits %d",
			r.Race.Clients, r.Race.ScriptAdmitted, r.Race.Limit*int64(r.Race.Windows), r.Race.Admitted), r.Race.ScriptAdmitted == r.Race.Limit*int64(r.Race.Windows)},
	}
}

// table renders the report as docs/redis.md shows it.
func benchTable(r benchReport) string {
	var b strings.Builder
	b.WriteString(benchBegin)
	fmt.Fprintf(&b, "\nRedis %s on %s/%s, %d CPUs (load average %s), %s; limit %d per %d ms, %d buckets; %d keys × %d requests for the commands and bytes; decisions/s the median of %d runs of %d ms, the forms taking turns. Command: `%s`.\n\n",
		r.Redis, r.Machine.GOOS, r.Machine.GOARCH, r.Machine.CPUs, r.Machine.Load, r.Machine.Go, r.Params.Limit, r.Params.WindowMs, r.Params.Buckets,
		r.Params.Keys, r.Params.RequestsKey, r.Params.Rounds, r.Params.MeasureMs, r.Command)
	b.WriteString("| form | commands / decision | round trips / decision | bytes / key | Redis µs / decision | decisions/s, 1 client | decisions/s, 8 clients |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, f := range append(append([]benchRow{}, r.Forms...), r.Anchor) {
		fmt.Fprintf(&b, "| %s | %.2f | %.2f | %d | %.2f | %.0f | %.0f |\n", f.Form, f.Commands, f.RoundTrips, f.BytesPerKey, f.ServerMicros, f.PerSecond1, f.PerSecond8)
	}
	fmt.Fprintf(&b, "\nPipelined %s, %d decisions a round trip: %.0f decisions/s, against %.0f one at a time from 1 client (%.1f×).\n",
		r.Batch.Form, r.Batch.Size, r.Batch.Pipelined, r.Batch.OneAtATime, r.Batch.Pipelined/r.Batch.OneAtATime)
	fmt.Fprintf(&b, "\nRead-then-write fixed window (GET, decide in Go, SET), %d clients each trying twice the limit of %d on one key, %d windows: %d admitted where %d may be (%.1f×); the script admitted %d.\n\n",
		r.Race.Clients, r.Race.Limit, r.Race.Windows, r.Race.Admitted, r.Race.Limit*int64(r.Race.Windows),
		float64(r.Race.Admitted)/float64(r.Race.Limit*int64(r.Race.Windows)), r.Race.ScriptAdmitted)
	b.WriteString("Goals:\n\n")
	for _, g := range benchGoals(r) {
		mark := "not met"
		if g.met {
			mark = "met"
		}
		fmt.Fprintf(&b, "- %s: **%s**\n", g.text, mark)
	}
	b.WriteString("\n" + benchEnd)
	return b.String()
}

// spliceTable is doc with its section from benchBegin to benchEnd replaced
// by table (which carries both markers); false if doc has no such section.
func spliceTable(doc []byte, table string) ([]byte, bool) {
	before, rest, ok1 := bytes.Cut(doc, []byte(benchBegin))
	_, after, ok2 := bytes.Cut(rest, []byte(benchEnd))
	if !ok1 || !ok2 {
		return nil, false
	}
	// A fresh slice: before and after share doc's array, and appending
	// to before would write over after.
	return slices.Concat(before, []byte(table), after), true
}

// TestSpliceTableKeepsTheRest: rewriting the section leaves the text on
// either side as it was, however long the new table is.
func TestSpliceTableKeepsTheRest(t *testing.T) {
	doc := "intro\n" + benchBegin + "old\n" + benchEnd + "\n## After\n\nthe rest\n"
	for i, table := range []string{benchBegin + benchEnd, benchBegin + strings.Repeat("a much longer table\n", 20) + benchEnd} {
		got, ok := spliceTable([]byte(doc), table)
		if want := "intro\n" + table + "\n## After\n\nthe rest\n"; !ok || string(got) != want {
			t.Errorf("%d: spliceTable = %q, %v; want %q", i, got, ok, want)
		}
	}
	if _, ok := spliceTable([]byte("no section\n"), benchBegin+benchEnd); ok {
		t.Error("spliceTable found a section in a doc without one")
	}
}

// TestRedisBenchFile checks limiter/redisbench/redis-bench.json against a fresh, shorter
// measurement (the same forms and fields, one round trip each, the same
// commands per decision on the same Redis, bytes within a quarter) and
// docs/redis.md's table against the file. With -update-redis-bench it writes both.
func TestRedisBenchFile(t *testing.T) {
	if *updateRedisBench {
		rep := benchMeasure(t, time.Second)
		data, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(benchFile, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		doc, err := os.ReadFile(docFile)
		if err != nil {
			t.Fatal(err)
		}
		out, ok := spliceTable(doc, benchTable(rep))
		if !ok {
			t.Fatalf("%s has no %q … %q section to write", docFile, benchBegin, benchEnd)
		}
		if err := os.WriteFile(docFile, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(benchFile)
	if err != nil {
		t.Fatalf("%v (write it with %s)", err, benchCmd)
	}
	committed, err := redisbench.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(docFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), benchTable(committed)) {
		t.Errorf("%s's table is not the one %s renders: run %s", docFile, benchFile, benchCmd)
	}
	fresh := benchMeasure(t, 50*time.Millisecond)
	if len(fresh.Forms) != len(committed.Forms) {
		t.Fatalf("%s has %d forms, a fresh measurement %d", benchFile, len(committed.Forms), len(fresh.Forms))
	}
	rows := func(r benchReport) []benchRow { return append(append([]benchRow{}, r.Forms...), r.Anchor) }
	for i, c := range rows(committed) {
		f := rows(fresh)[i]
		switch {
		case c.Form != f.Form || c.Policy != f.Policy || c.Arithmetic != f.Arithmetic:
			t.Errorf("row %d: form %q (%q %q), fresh %q (%q %q)", i, c.Form, c.Policy, c.Arithmetic, f.Form, f.Policy, f.Arithmetic)
		case c.RoundTrips != 1 || f.RoundTrips != 1:
			t.Errorf("%s: round trips per decision %v, fresh %v; want 1", c.Form, c.RoundTrips, f.RoundTrips)
		case i < len(committed.Forms) && committed.Redis == fresh.Redis && c.Commands != f.Commands:
			t.Errorf("%s: %v commands per decision, fresh %v", c.Form, c.Commands, f.Commands)
		case c.Commands <= 0 || c.PerSecond1 <= 0 || c.PerSecond8 <= 0 || c.ServerMicros <= 0 || f.ServerMicros <= 0:
			t.Errorf("%s: a figure is not positive: %+v", c.Form, c)
		case math.Abs(float64(c.BytesPerKey-f.BytesPerKey)) > float64(c.BytesPerKey)/4:
			t.Errorf("%s: %d bytes per key, fresh %d", c.Form, c.BytesPerKey, f.BytesPerKey)
		}
	}
	if committed.Batch.Pipelined <= 0 || committed.Batch.OneAtATime <= 0 || committed.Batch.Size != fresh.Batch.Size {
		t.Errorf("batch %+v: not the measurement a fresh one makes (%+v)", committed.Batch, fresh.Batch)
	}
	if committed.Race.Admitted <= committed.Race.Limit*int64(committed.Race.Windows) || fresh.Race.Admitted <= fresh.Race.Limit*int64(fresh.Race.Windows) {
		t.Errorf("read-then-write admitted %d (fresh %d), no more than the limits allow", committed.Race.Admitted, fresh.Race.Admitted)
	}
}

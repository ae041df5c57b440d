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
	"github.com/windowlab/playground/policies"
)

// update rewrites docs/redis-bench.json and the table in docs/redis.md
// from a fresh measurement:
//
//	go test ./limiter/ -run TestRedisBenchFile -update
var update = flag.Bool("update", false, "rewrite docs/redis-bench.json and docs/redis.md's table from a fresh measurement")

const (
	benchFile   = "../docs/redis-bench.json"
	docFile     = "../docs/redis.md"
	benchBegin  = "<!-- redis-bench: begin (written by go test ./limiter/ -run TestRedisBenchFile -update) -->\n"
	benchEnd    = "<!-- redis-bench: end -->\n"
	benchCmd    = "go test ./limiter/ -run TestRedisBenchFile -update"
	benchKeys   = 100 // keys of the memory and commands workload
	benchPerKey = 20  // requests per key there: a minute at one every 3 s
	benchBatch1 = 100 // decisions per pipeline in the batch measurement
)

// benchParams are the lessons' settings: ten a minute, six buckets, a
// burst of the limit.
var benchParams = policies.Params{Limit: 10, WindowMs: 60_000, Buckets: 6}

// benchReport is docs/redis-bench.json.
type benchReport struct {
	Command string        `json:"command"`
	Machine benchMachine  `json:"machine"`
	Redis   string        `json:"redisVersion"`
	Params  benchSettings `json:"params"`
	Forms   []benchRow    `json:"forms"`
	Anchor  benchRow      `json:"anchor"` // go-redis/redis_rate v10, GCRA, reading Redis TIME
	Batch   benchBatch    `json:"batch"`
	Race    benchRace     `json:"readThenWrite"`
}

type benchMachine struct {
	GOOS, GOARCH string
	CPUs         int
	Go           string
}

type benchSettings struct {
	Limit       int64 `json:"limit"`
	WindowMs    int64 `json:"windowMs"`
	Buckets     int64 `json:"buckets"`
	Keys        int   `json:"keys"`
	RequestsKey int   `json:"requestsPerKey"`
	MeasureMs   int64 `json:"msPerThroughputRun"`
}

type benchRow struct {
	Form string `json:"form"`
	// Commands is what Redis ran per decision inside the script (GET,
	// SET, LINDEX, …), from INFO commandstats.
	Commands float64 `json:"commandsPerDecision"`
	// RoundTrips is the commands the client sent per decision (EVALSHA),
	// each one round trip when sent alone.
	RoundTrips  float64 `json:"roundTripsPerDecision"`
	BytesPerKey int64   `json:"bytesPerKey"` // MEMORY USAGE, averaged over the keys
	PerSecond1  float64 `json:"decisionsPerSecond1Client"`
	PerSecond8  float64 `json:"decisionsPerSecond8Clients"`
}

type benchBatch struct {
	Form       string  `json:"form"`
	Size       int     `json:"benchBatch1"`
	OneAtATime float64 `json:"oneAtATimePerSecond"`
	Pipelined  float64 `json:"pipelinedPerSecond"`
}

type benchRace struct {
	Clients        int   `json:"clients"`
	Limit          int64 `json:"limit"`
	Windows        int   `json:"windows"`
	Admitted       int64 `json:"admitted"`
	ScriptAdmitted int64 `json:"scriptAdmitted"`
}

// benchForms are the forms measured, labelled as the table shows them.
func benchForms() []struct {
	label string
	form  form
} {
	p := benchParams
	return []struct {
		label string
		form  form
	}{
		{"fixed-window", form{policies.FixedWindow, p}},
		{"sliding-log", form{policies.SlidingLog, p}},
		{"sliding-counter floor", form{policies.SlidingCounter, policies.Params{Limit: p.Limit, WindowMs: p.WindowMs, Arithmetic: policies.Floor}}},
		{"sliding-counter exact", form{policies.SlidingCounter, policies.Params{Limit: p.Limit, WindowMs: p.WindowMs, Arithmetic: policies.Exact}}},
		{"sliding-buckets", form{policies.SlidingBuckets, p}},
		{"token-bucket", form{policies.TokenBucket, p}},
		{"gcra", form{policies.GCRA, p}},
	}
}

// decider is one decision on key at the caller's instant at.
type decider func(ctx context.Context, key string, at int64) error

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

// workload decides benchPerKey requests on each of benchKeys keys, one at
// a time, and reports the commands and round trips per decision and the
// bytes a key then holds.
func workload(ctx context.Context, rdb *redis.Client, row *benchRow, prefix string, keyOf func(string) string, decide decider) error {
	if err := decide(ctx, "warm", 0); err != nil { // loads the script
		return err
	}
	if err := rdb.ConfigResetStat(ctx).Err(); err != nil {
		return err
	}
	n := 0
	for j := range benchPerKey {
		for k := range benchKeys {
			if err := decide(ctx, fmt.Sprintf("%sm%d", prefix, k), int64(j)*3000+int64(k)); err != nil {
				return err
			}
			n++
		}
	}
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

// throughput runs clients goroutines deciding one at a time for d, each on
// its own thousand keys with its own clock, and returns decisions a second.
func throughput(ctx context.Context, clients int, d time.Duration, prefix string, decide decider) (float64, error) {
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

// measureRow fills a row for one decider.
func measureRow(ctx context.Context, rdb *redis.Client, label, prefix string, keyOf func(string) string, decide decider, d time.Duration) (benchRow, error) {
	row := benchRow{Form: label}
	if err := workload(ctx, rdb, &row, prefix, keyOf, decide); err != nil {
		return row, err
	}
	var err error
	if row.PerSecond1, err = throughput(ctx, 1, d, prefix+"a", decide); err != nil {
		return row, err
	}
	row.PerSecond8, err = throughput(ctx, 8, d, prefix+"b", decide)
	return row, err
}

// measure takes every figure of the report on a fresh server, each
// throughput run lasting d.
func measure(t *testing.T, d time.Duration) benchReport {
	t.Helper()
	rdb := redistest.Start(t).Client(t)
	ctx := context.Background()
	info, err := rdb.Info(ctx, "server").Result()
	if err != nil {
		t.Fatal(err)
	}
	rep := benchReport{
		Command: benchCmd,
		Machine: benchMachine{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPUs: runtime.NumCPU(), Go: runtime.Version()},
		Params: benchSettings{Limit: benchParams.Limit, WindowMs: benchParams.WindowMs, Buckets: benchParams.Buckets,
			Keys: benchKeys, RequestsKey: benchPerKey, MeasureMs: d.Milliseconds()},
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "redis_version:"); ok {
			rep.Redis = v
		}
	}
	const base = 1_700_000_000_000
	var gcra *limiter.Redis
	for i, f := range benchForms() {
		r, err := limiter.NewRedis(rdb, f.form.name, f.form.p, limiter.RedisOptions{Prefix: fmt.Sprintf("b%d:", i), TTLPadMs: replayPad})
		if err != nil {
			t.Fatal(err)
		}
		if f.form.name == policies.GCRA {
			gcra = r
		}
		decide := func(ctx context.Context, key string, at int64) error {
			_, err := r.DecideAt(ctx, key, base+at, 1)
			return err
		}
		row, err := measureRow(ctx, rdb, f.label, "", r.Key, decide, d)
		if err != nil {
			t.Fatalf("%s: %v", f.label, err)
		}
		rep.Forms = append(rep.Forms, row)
	}
	rl := redis_rate.NewLimiter(rdb)
	limit := redis_rate.Limit{Rate: int(benchParams.Limit), Burst: int(benchParams.Limit), Period: time.Duration(benchParams.WindowMs) * time.Millisecond}
	anchor := func(ctx context.Context, key string, _ int64) error {
		_, err := rl.AllowN(ctx, key, limit, 1)
		return err
	}
	if rep.Anchor, err = measureRow(ctx, rdb, "redis_rate v10 (gcra)", "", func(k string) string { return "rate:" + k }, anchor, d); err != nil {
		t.Fatalf("redis_rate: %v", err)
	}
	rep.Batch = benchBatch{Form: "gcra", Size: benchBatch1, OneAtATime: rep.Forms[len(rep.Forms)-1].PerSecond1}
	var total atomic.Int64
	start, stop := time.Now(), time.Now().Add(d)
	reqs := make([]limiter.Request, benchBatch1)
	for i := int64(0); time.Now().Before(stop); i++ {
		for j := range reqs {
			reqs[j] = limiter.Request{Key: fmt.Sprintf("p%d", (i*benchBatch1+int64(j))%1000), At: base + i*60, Cost: 1}
		}
		if _, err := gcra.Batch(ctx, reqs); err != nil {
			t.Fatal(err)
		}
		total.Add(benchBatch1)
	}
	rep.Batch.Pipelined = math.Round(float64(total.Load()) / time.Since(start).Seconds())
	const clients, windows, raceLimit = 8, 5, 50
	naive, script, err := overAdmission(rdb, clients, windows, raceLimit)
	if err != nil {
		t.Fatal(err)
	}
	rep.Race = benchRace{Clients: clients, Limit: raceLimit, Windows: windows, Admitted: naive, ScriptAdmitted: script}
	return rep
}

// goals are the goals, each met or not by the report.
func (r benchReport) goals() []struct {
	text string
	met  bool
} {
	gcra := r.Forms[len(r.Forms)-1]
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
func (r benchReport) table() string {
	var b strings.Builder
	b.WriteString(benchBegin)
	fmt.Fprintf(&b, "\nRedis %s on %s/%s, %d CPUs, %s; limit %d per %d ms, %d buckets; %d keys × %d requests for the commands and bytes; %d ms per throughput run. Command: `%s`.\n\n",
		r.Redis, r.Machine.GOOS, r.Machine.GOARCH, r.Machine.CPUs, r.Machine.Go, r.Params.Limit, r.Params.WindowMs, r.Params.Buckets,
		r.Params.Keys, r.Params.RequestsKey, r.Params.MeasureMs, r.Command)
	b.WriteString("| form | commands / decision | round trips / decision | bytes / key | decisions/s, 1 client | decisions/s, 8 clients |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: |\n")
	for _, f := range append(append([]benchRow{}, r.Forms...), r.Anchor) {
		fmt.Fprintf(&b, "| %s | %.2f | %.2f | %d | %.0f | %.0f |\n", f.Form, f.Commands, f.RoundTrips, f.BytesPerKey, f.PerSecond1, f.PerSecond8)
	}
	fmt.Fprintf(&b, "\nPipelined %s, %d decisions a round trip: %.0f decisions/s, against %.0f one at a time from 1 client (%.1f×).\n",
		r.Batch.Form, r.Batch.Size, r.Batch.Pipelined, r.Batch.OneAtATime, r.Batch.Pipelined/r.Batch.OneAtATime)
	fmt.Fprintf(&b, "\nRead-then-write fixed window (GET, decide in Go, SET), %d clients each trying twice the limit of %d on one key, %d windows: %d admitted where %d may be (%.1f×); the script admitted %d.\n\n",
		r.Race.Clients, r.Race.Limit, r.Race.Windows, r.Race.Admitted, r.Race.Limit*int64(r.Race.Windows),
		float64(r.Race.Admitted)/float64(r.Race.Limit*int64(r.Race.Windows)), r.Race.ScriptAdmitted)
	b.WriteString("Goals:\n\n")
	for _, g := range r.goals() {
		mark := "not met"
		if g.met {
			mark = "met"
		}
		fmt.Fprintf(&b, "- %s: **%s**\n", g.text, mark)
	}
	b.WriteString("\n" + benchEnd)
	return b.String()
}

// TestRedisBenchFile checks docs/redis-bench.json against a fresh, shorter
// measurement (the same forms and fields, one round trip each, the same
// commands per decision on the same Redis, bytes within a quarter) and
// docs/redis.md's table against the file. With -update it writes both.
func TestRedisBenchFile(t *testing.T) {
	if *update {
		rep := measure(t, 2*time.Second)
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
		before, rest, ok1 := bytes.Cut(doc, []byte(benchBegin))
		_, after, ok2 := bytes.Cut(rest, []byte(benchEnd))
		if !ok1 || !ok2 {
			t.Fatalf("%s has no %q … %q section to write", docFile, benchBegin, benchEnd)
		}
		out := append(append(before, rep.table()...), after...)
		if err := os.WriteFile(docFile, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(benchFile)
	if err != nil {
		t.Fatalf("%v (write it with %s)", err, benchCmd)
	}
	var committed benchReport
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&committed); err != nil {
		t.Fatalf("%s: %v", benchFile, err)
	}
	doc, err := os.ReadFile(docFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), committed.table()) {
		t.Errorf("%s's table is not the one %s renders: run %s", docFile, benchFile, benchCmd)
	}
	fresh := measure(t, 150*time.Millisecond)
	if len(fresh.Forms) != len(committed.Forms) {
		t.Fatalf("%s has %d forms, a fresh measurement %d", benchFile, len(committed.Forms), len(fresh.Forms))
	}
	rows := func(r benchReport) []benchRow { return append(append([]benchRow{}, r.Forms...), r.Anchor) }
	for i, c := range rows(committed) {
		f := rows(fresh)[i]
		switch {
		case c.Form != f.Form:
			t.Errorf("row %d: form %q, fresh %q", i, c.Form, f.Form)
		case c.RoundTrips != 1 || f.RoundTrips != 1:
			t.Errorf("%s: round trips per decision %v, fresh %v; want 1", c.Form, c.RoundTrips, f.RoundTrips)
		case i < len(committed.Forms) && committed.Redis == fresh.Redis && c.Commands != f.Commands:
			t.Errorf("%s: %v commands per decision, fresh %v", c.Form, c.Commands, f.Commands)
		case c.Commands <= 0 || c.PerSecond1 <= 0 || c.PerSecond8 <= 0:
			t.Errorf("%s: a figure is not positive: %+v", c.Form, c)
		case math.Abs(float64(c.BytesPerKey-f.BytesPerKey)) > float64(c.BytesPerKey)/4:
			t.Errorf("%s: %d bytes per key, fresh %d", c.Form, c.BytesPerKey, f.BytesPerKey)
		}
	}
	if committed.Batch.Pipelined <= 0 || committed.Batch.OneAtATime != committed.Forms[len(committed.Forms)-1].PerSecond1 {
		t.Errorf("batch %+v: not a measurement beside gcra's one-at-a-time figure", committed.Batch)
	}
	if committed.Race.Admitted <= committed.Race.Limit*int64(committed.Race.Windows) || fresh.Race.Admitted <= fresh.Race.Limit*int64(fresh.Race.Windows) {
		t.Errorf("read-then-write admitted %d (fresh %d), no more than the limits allow", committed.Race.Admitted, fresh.Race.Admitted)
	}
}

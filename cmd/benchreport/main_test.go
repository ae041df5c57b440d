package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/windowlab/playground/internal/cli"
)

// sampleFile is the output of one run of
// `go test -run '^$' -bench . -benchmem -benchtime 100ms -cpu 1,2 ./policies/`
// on the shared 2-vCPU machine, kept to test the report against a real run.
const sampleFile = "testdata/bench-sample.txt"

// rawValue reads one benchmark's value in unit straight from the text of a
// single-round run, without parseRun, so the tests check the report's
// arithmetic against numbers found independently.
func rawValue(t *testing.T, text, name string, procs int, unit string) float64 {
	t.Helper()
	want := "Benchmark" + name
	if procs != 1 {
		want += "-" + strconv.Itoa(procs)
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || f[0] != want {
			continue
		}
		for i := 3; i < len(f); i++ {
			if f[i] == unit {
				v, err := strconv.ParseFloat(f[i-1], 64)
				if err != nil {
					t.Fatalf("%s %s: %v", want, unit, err)
				}
				return v
			}
		}
	}
	t.Fatalf("%s has no %s in the sample", want, unit)
	return 0
}

// tableRows maps each Markdown table row's first cell to its cells, for
// the table that follows the line starting with intro.
func tableRows(t *testing.T, report, intro string) map[string][]string {
	t.Helper()
	i := strings.Index(report, "\n"+intro)
	if i < 0 {
		t.Fatalf("no table introduced by %q in:\n%s", intro, report)
	}
	rows := map[string][]string{}
	started := false
	for _, line := range strings.Split(report[i+1:], "\n")[1:] {
		if !strings.HasPrefix(line, "|") {
			if started {
				break
			}
			continue
		}
		started = true
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		rows[cells[0]] = cells[1:]
	}
	return rows
}

// sampled is the variants the sample run measured: it predates
// leaky-bucket, stepped-bucket and exp-histogram in the benchmarks, whose
// rows the report prints as not measured (TestUnmeasuredSubjectsSaySo).
func sampled(t *testing.T, text string) []policy {
	t.Helper()
	var out []policy
	for _, pol := range variants {
		if strings.Contains(text, "/"+pol.label+".Allow ") {
			out = append(out, pol)
		}
	}
	if len(out) < 7 {
		t.Fatalf("the sample measures %d of the variants; want the 7 it was run with", len(out))
	}
	return out
}

func renderSample(t *testing.T) (text, report string) {
	t.Helper()
	b, err := os.ReadFile(sampleFile)
	if err != nil {
		t.Fatal(err)
	}
	r, err := parseRun(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := writeReport(&out, r, ""); err != nil {
		t.Fatal(err)
	}
	return string(b), out.String()
}

func TestSingleTableRatiosComeFromTheRun(t *testing.T) {
	text, report := renderSample(t)
	rows := tableRows(t, report, "Single goroutine")
	for wi, wl := range workloads {
		ref := rawValue(t, text, "Decide/"+wl.name+"/map-fixed-window", 1, cpuNs)
		for _, pol := range sampled(t, text) {
			title := pol.title + " `Allow`"
			cells, ok := rows[title]
			if !ok {
				t.Fatalf("no row %q", title)
			}
			v := rawValue(t, text, "Decide/"+wl.name+"/"+pol.label+".Allow", 1, cpuNs)
			if got, want := cells[2*wi+1], formatRatio(v/ref); got != want {
				t.Errorf("%s, %s: × map = %s, want %s (%.3f / %.3f)", title, wl.name, got, want, v, ref)
			}
			if got, want := cells[2*wi], formatNs(v); got != want {
				t.Errorf("%s, %s: ns = %s, want %s", title, wl.name, got, want)
			}
		}
	}
	// A paired row keeps each half's own ratio.
	cells := rows["sliding-counter floor / exact `Decide`"]
	ref := rawValue(t, text, "Decide/zipf/map-fixed-window", 1, cpuNs)
	floor := rawValue(t, text, "Decide/zipf/sliding-counter-floor.Decide", 1, cpuNs)
	exact := rawValue(t, text, "Decide/zipf/sliding-counter-exact.Decide", 1, cpuNs)
	if got, want := cells[5], formatRatio(floor/ref)+" / "+formatRatio(exact/ref); got != want {
		t.Errorf("sliding-counter Decide, zipf: × map = %s, want %s", got, want)
	}
}

func TestParallelTableRatiosComeFromTheRun(t *testing.T) {
	text, report := renderSample(t)
	for _, wl := range []struct{ intro, bench string }{
		{"Many goroutines, uniform 1e6 keys", "DecideParallel/"},
		{"Many goroutines, one hot key", "DecideParallelHot/"},
		{"Many goroutines, zipf 1e6 keys", "DecideParallelZipf/"},
	} {
		rows := tableRows(t, report, wl.intro)
		for pi, procs := range []int{1, 2} {
			ref := rawValue(t, text, wl.bench+"x-time-rate-mutex-map", procs, cpuNs)
			for _, pol := range sampled(t, text) {
				v := rawValue(t, text, wl.bench+pol.label, procs, cpuNs)
				if got, want := rows[pol.title][2*pi+1], formatRatio(v/ref); got != want {
					t.Errorf("%s, %s at -cpu %d: × x/time/rate = %s, want %s", wl.intro, pol.title, procs, got, want)
				}
			}
		}
		wall := rawValue(t, text, wl.bench+"gcra", 2, wallNs)
		if got, want := rows["gcra"][4], formatNs(wall); got != want {
			t.Errorf("%s: gcra wall ns at -cpu 2 = %s, want %s", wl.intro, got, want)
		}
	}
}

// TestHotKeyScalingIsNoGoal: one key is one lock, so its scaling line is
// printed but neither met nor not met, while zipf's is held to the rule.
func TestHotKeyScalingIsNoGoal(t *testing.T) {
	_, report := renderSample(t)
	for _, tc := range []struct{ title, want string }{
		{"one hot key", "no goal"},
		{"zipf 1e6 keys", "met**"},
	} {
		i := strings.Index(report, "- Scaling with cores, "+tc.title)
		if i < 0 {
			t.Fatalf("no scaling line for %s in:\n%s", tc.title, report)
		}
		line := report[i : i+strings.Index(report[i:], "\n")]
		if !strings.Contains(line, tc.want) {
			t.Errorf("scaling line %q lacks %q", line, tc.want)
		}
	}
}

// TestScalingGoalAsksForAGain: the scaling line scales the wall ratio by
// the processors added, so that 1.00 (met) means twice the decisions a
// second on twice the processors, not merely no loss.
func TestScalingGoalAsksForAGain(t *testing.T) {
	text, report := renderSample(t)
	i := strings.Index(report, "- Scaling with cores")
	if i < 0 {
		t.Fatalf("no scaling goal in:\n%s", report)
	}
	line := report[i : i+strings.Index(report[i:], "\n")]
	at1 := rawValue(t, text, "DecideParallel/gcra", 1, wallNs)
	at2 := rawValue(t, text, "DecideParallel/gcra", 2, wallNs)
	if want := "gcra " + formatRatio(at2/at1*2) + "×"; !strings.Contains(line, want) {
		t.Errorf("scaling line %q lacks %q (wall %.1f ns at -cpu 1, %.1f at -cpu 2)", line, want, at1, at2)
	}
	if wantMet := isMet(at2 / at1 * 2); strings.Contains(line, "**met**") && !wantMet {
		t.Errorf("scaling line %q says met, but gcra is %.2f", line, at2/at1*2)
	}
}

func TestMemoryTableComesFromTheRun(t *testing.T) {
	text, report := renderSample(t)
	rows := tableRows(t, report, "Memory per key")
	ref := rawValue(t, text, "Decide/uniform/map-fixed-window", 1, "heapB/key")
	for _, pol := range sampled(t, text) {
		heap := rawValue(t, text, "Decide/uniform/"+pol.label+".Allow", 1, "heapB/key")
		stats := rawValue(t, text, "Decide/uniform/"+pol.label+".Allow", 1, "statsHeapB/key")
		cells := rows[pol.title]
		if got, want := cells[0], formatNs(heap); got != want {
			t.Errorf("%s: heap B/key = %s, want %s", pol.title, got, want)
		}
		if got, want := cells[1], formatRatio(heap/ref); got != want {
			t.Errorf("%s: × map fixed window = %s, want %s", pol.title, got, want)
		}
		if got, want := cells[2], formatNs(stats); got != want {
			t.Errorf("%s: Stats.HeapBytes / keys = %s, want %s", pol.title, got, want)
		}
	}
	syncMap := rawValue(t, text, "DecideParallel/x-time-rate-sync-map", 1, "heapB/key")
	if got, want := rows["x/time/rate limiters in a `sync.Map`"][0], formatNs(syncMap); got != want {
		t.Errorf("sync.Map heap B/key = %s, want %s", got, want)
	}
}

// line builds one result line as `go test -bench` prints it.
func line(name string, cpuNsPerOp float64) string {
	return fmt.Sprintf("Benchmark%s \t 1000000\t 10.0 ns/op\t %g cpu-ns/op\t 0 B/op\t 0 allocs/op\n", name, cpuNsPerOp)
}

// TestGoalRule checks the one rule on hand-made numbers around 1.00: a
// ratio is met when it prints as at most 1.00.
func TestGoalRule(t *testing.T) {
	tests := []struct {
		v    float64 // cpu-ns/op of every small-state policy on the hot key; the map takes 100
		want string
	}{
		{99, "**met**"},
		{100, "**met**"},
		{100.4, "**met**"},     // prints as 1.00
		{100.6, "**not met**"}, // prints as 1.01
		{150, "**not met**"},
	}
	for i, tt := range tests {
		var in strings.Builder
		in.WriteString(line("Decide/hot/map-fixed-window", 100))
		for _, pol := range variants {
			in.WriteString(line("Decide/hot/"+pol.label+".Allow", tt.v))
		}
		r, err := parseRun(strings.NewReader(in.String()))
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		var out bytes.Buffer
		if err := writeReport(&out, r, ""); err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		prefix := "  - hot: " + tt.want + " ("
		found := false
		for _, l := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(l, prefix) && strings.Contains(l, "fixed-window "+formatRatio(tt.v/100)+"×") {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("case %d: %g against 100: no line starting %q with ratio %s in:\n%s", i, tt.v, prefix, formatRatio(tt.v/100), out.String())
		}
	}
}

func TestMedianOfRounds(t *testing.T) {
	in := line("Decide/hot/map-fixed-window", 4) + line("Decide/hot/map-fixed-window", 9) + line("Decide/hot/map-fixed-window", 5) +
		line("Decide/hot/gcra.Allow", 2) + line("Decide/hot/gcra.Allow", 3)
	r, err := parseRun(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := r.value("Decide/hot/map-fixed-window", 1, cpuNs); v != 5 {
		t.Errorf("median of 4, 9, 5 = %g, want 5", v)
	}
	if v, _ := r.value("Decide/hot/gcra.Allow", 1, cpuNs); v != 2.5 {
		t.Errorf("median of 2, 3 = %g, want 2.5", v)
	}
	if n := r.rounds(); n != 3 {
		t.Errorf("rounds = %d, want 3", n)
	}
}

func TestSplitName(t *testing.T) {
	tests := []struct {
		in   string
		want result
	}{
		{"BenchmarkDecide/hot/gcra.Allow", result{"Decide/hot/gcra.Allow", 1}},
		{"BenchmarkDecide/hot/gcra.Allow-2", result{"Decide/hot/gcra.Allow", 2}},
		{"BenchmarkDecide/hot/sliding-buckets-k6.Allow", result{"Decide/hot/sliding-buckets-k6.Allow", 1}},
		{"BenchmarkDecideParallel/x-time-rate-sync-map-16", result{"DecideParallel/x-time-rate-sync-map", 16}},
	}
	for _, tt := range tests {
		if got := splitName(tt.in); got != tt.want {
			t.Errorf("splitName(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestBadInputIsAUsageError(t *testing.T) {
	tests := []struct {
		name, in, wantErr string
	}{
		{"empty", "", "no benchmark results"},
		{"only headers", "goos: linux\nPASS\n", "no benchmark results in 2 lines"},
		{"odd fields", "BenchmarkDecide/hot/gcra.Allow 100 4.0\n", "line 1"},
		{"bad iterations", "BenchmarkDecide/hot/gcra.Allow x 4.0 ns/op\n", "iterations \"x\""},
		{"bad value", "BenchmarkDecide/hot/gcra.Allow 100 fast ns/op\n", "value \"fast\" of ns/op"},
		{"no reference", line("Decide/hot/gcra.Allow", 4), "map-fixed-window"},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		err := run(nil, strings.NewReader(tt.in), &out)
		var u cli.Usage
		if !errors.As(err, &u) {
			t.Errorf("%s: err = %v, want a usage error", tt.name, err)
			continue
		}
		if !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: err = %q, want it to mention %q", tt.name, err, tt.wantErr)
		}
	}
}

func TestDocSplice(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "performance.md")
	text := "# Title\n\nbefore\n" + beginMarker + "\nold table\n" + endMarker + "\nafter\n"
	if err := os.WriteFile(doc, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"-doc", doc, sampleFile}, strings.NewReader(""), &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	s := string(got)
	if !strings.HasPrefix(s, "# Title\n\nbefore\n"+beginMarker+"\n<!-- Generated") || !strings.HasSuffix(s, "\n"+endMarker+"\nafter\n") {
		t.Errorf("the text around the markers changed:\n%s", s)
	}
	if strings.Contains(s, "old table") || !strings.Contains(s, "| **map fixed window** |") {
		t.Errorf("the tables were not replaced:\n%s", s)
	}

	for _, bad := range []string{"no markers\n", endMarker + "\n" + beginMarker + "\n", beginMarker + "\n" + beginMarker + "\n" + endMarker + "\n"} {
		if err := os.WriteFile(doc, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		err := run([]string{"-doc", doc, sampleFile}, strings.NewReader(""), &bytes.Buffer{})
		var u cli.Usage
		if !errors.As(err, &u) {
			t.Errorf("markers %q: err = %v, want a usage error", bad, err)
		}
		if after, _ := os.ReadFile(doc); string(after) != bad {
			t.Errorf("markers %q: the file changed to %q", bad, after)
		}
	}
}

// TestHelpIsAnAnswer: -h prints the flags and succeeds instead of being a
// usage error.
func TestHelpIsAnAnswer(t *testing.T) {
	var out strings.Builder
	if err := run([]string{"-h"}, strings.NewReader(""), &out); err != nil {
		t.Fatalf("run -h = %v, want nil", err)
	}
	for _, flag := range []string{"-doc", "-note"} {
		if !strings.Contains(out.String(), flag) {
			t.Errorf("-h output lacks %s:\n%s", flag, out.String())
		}
	}
}

// TestUnmeasuredSubjectsSaySo: a registered policy the run did not
// measure (as the sample's run predates three of them) still gets its
// rows, each cell "–", and every goal naming it says "not measured" and is
// not met, rather than the policy dropping out of the tables unseen.
func TestUnmeasuredSubjectsSaySo(t *testing.T) {
	unmeasured := variants[len(variants)-1]
	var in strings.Builder
	in.WriteString(line("Decide/hot/map-fixed-window", 100))
	for _, pol := range variants[:len(variants)-1] {
		in.WriteString(line("Decide/hot/"+pol.label+".Allow", 90))
	}
	r, err := parseRun(strings.NewReader(in.String()))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := writeReport(&out, r, ""); err != nil {
		t.Fatal(err)
	}
	report := out.String()
	cells, ok := tableRows(t, report, "Single goroutine")[unmeasured.title+" `Allow`"]
	if !ok {
		t.Fatalf("no row for %s, which the run did not measure, in:\n%s", unmeasured.title, report)
	}
	if cells[0] != missing || cells[1] != missing {
		t.Errorf("%s: cells %q, want %q", unmeasured.title, cells[:2], missing)
	}
	const want = "  - hot: **not met** ("
	found := false
	for _, l := range strings.Split(report, "\n") {
		if strings.HasPrefix(l, want) && strings.Contains(l, unmeasured.title+" not measured") {
			found = true
		}
	}
	if !found {
		t.Errorf("no hot goal line says %s is not measured and not met in:\n%s", unmeasured.title, report)
	}
}

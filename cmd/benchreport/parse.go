package main

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/windowlab/playground/internal/summary"
)

// Bounds on what one run may hold, so a wrong file (a log, a binary) fails
// with a message instead of filling memory.
const (
	maxInputBytes = 16 << 20
	maxResults    = 100_000
	maxLineBytes  = 64 << 10
)

// result identifies one benchmark at one -cpu value.
type result struct {
	name  string // without the "Benchmark" prefix and the -N suffix
	procs int    // GOMAXPROCS: the -N suffix, 1 when there is none
}

// benchRun holds every measurement of one `go test -bench` output: each
// benchmark's values per unit, one per round (-count), in input order.
type benchRun struct {
	cpu     string // the "cpu:" header line
	values  map[result]map[string][]float64
	results []result // in input order, each once
}

// parseRun reads `go test -bench` output. Lines that are not results
// (headers, PASS, ok, test logs) are skipped; a result line that does not
// parse is an error naming its line, as is input with no results at all.
func parseRun(r io.Reader) (*benchRun, error) {
	out := &benchRun{values: map[result]map[string][]float64{}}
	sc := bufio.NewScanner(io.LimitReader(r, maxInputBytes+1))
	sc.Buffer(make([]byte, 0, 4096), maxLineBytes)
	read, lines := 0, 0
	for sc.Scan() {
		line := sc.Text()
		lines++
		read += len(line) + 1
		if read > maxInputBytes {
			return nil, fmt.Errorf("input is larger than %d MiB; give the output of one benchmark run", maxInputBytes>>20)
		}
		if cpu, ok := strings.CutPrefix(line, "cpu: "); ok {
			out.cpu = strings.TrimSpace(cpu)
			continue
		}
		if !strings.HasPrefix(line, "Benchmark") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) == 1 {
			// A benchmark's name alone: its results follow on a later line
			// when it logged something in between, which these do not.
			continue
		}
		if len(fields) < 4 || len(fields)%2 != 0 {
			return nil, fmt.Errorf("line %d: %q is not a benchmark result (name, iterations, then value-unit pairs)", lines, line)
		}
		if _, err := strconv.ParseInt(fields[1], 10, 64); err != nil {
			return nil, fmt.Errorf("line %d: iterations %q is not a whole number", lines, fields[1])
		}
		res := splitName(fields[0])
		units, seen := out.values[res]
		if !seen {
			if len(out.results) == maxResults {
				return nil, fmt.Errorf("line %d: more than %d distinct benchmarks; give the output of one benchmark run", lines, maxResults)
			}
			units = map[string][]float64{}
			out.values[res] = units
			out.results = append(out.results, res)
		}
		for i := 2; i < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: value %q of %s is not a number", lines, fields[i], fields[i+1])
			}
			units[fields[i+1]] = append(units[fields[i+1]], v)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading line %d: %w", lines+1, err)
	}
	if len(out.results) == 0 {
		return nil, fmt.Errorf("no benchmark results in %d lines; give the output of `go test -run '^$' -bench . -benchmem -cpu 1,2 ./policies/ ./limiter/`", lines)
	}
	return out, nil
}

// splitName turns "BenchmarkDecide/hot/gcra.Allow-2" into
// {"Decide/hot/gcra.Allow", 2}. The testing package adds -N only when
// GOMAXPROCS is not 1, and no sub-benchmark name here ends in -digits.
func splitName(s string) result {
	s = strings.TrimPrefix(s, "Benchmark")
	if i := strings.LastIndexByte(s, '-'); i >= 0 {
		if n, err := strconv.Atoi(s[i+1:]); err == nil && n > 0 {
			return result{name: s[:i], procs: n}
		}
	}
	return result{name: s, procs: 1}
}

// value is the median of a benchmark's rounds in unit, and whether there
// was one.
func (r *benchRun) value(name string, procs int, unit string) (float64, bool) {
	vs := r.values[result{name, procs}][unit]
	if len(vs) == 0 {
		return 0, false
	}
	return summary.Median(vs), true
}

// rounds is the largest number of rounds any benchmark has (-count).
func (r *benchRun) rounds() int {
	n := 0
	for _, units := range r.values {
		for _, vs := range units {
			n = max(n, len(vs))
		}
	}
	return n
}

// procs lists the -cpu values the benchmarks named with prefix ran at.
func (r *benchRun) procs(prefix string) []int {
	var ps []int
	for _, res := range r.results {
		if strings.HasPrefix(res.name, prefix) && !slices.Contains(ps, res.procs) {
			ps = append(ps, res.procs)
		}
	}
	slices.Sort(ps)
	return ps
}

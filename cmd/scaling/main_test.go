package main

import (
	"bytes"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/windowlab/playground/internal/cli"
)

func TestParseRejects(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-keys", "0"}, "-keys 0 is out of range"},
		{[]string{"-keys", "5000000"}, "-keys 5000000 is out of range"},
		{[]string{"-rounds", "0"}, "-rounds 0 is out of range"},
		{[]string{"-d", "11s"}, "-d 11s is out of range"},
		{[]string{"-procs", "1,x"}, `-procs: "x" is not a processor count`},
		{[]string{"-procs", "0"}, `-procs: "0" is not a processor count`},
		{[]string{"-subjects", "gcra,tumbling"}, `unknown subject "tumbling"`},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"-nope"}, "flag provided but not defined: -nope"},
	} {
		_, err := parse(tc.args)
		var u cli.Usage
		if !errors.As(err, &u) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parse(%q) error = %v, want a usage error containing %q", tc.args, err, tc.want)
		}
	}
}

// TestMeasureCountsEveryDecision: the rate's numerator must be the number
// of calls the goroutines made, all of them, at every processor count.
func TestMeasureCountsEveryDecision(t *testing.T) {
	seq := make([]uint64, 1<<4)
	for _, procs := range []int{1, 2, 3} {
		var calls atomic.Int64
		s := measure(func(uint64, int64) bool { calls.Add(1); return true }, seq, procs, 5*time.Millisecond)
		if s.decisions == 0 || s.decisions != calls.Load() {
			t.Errorf("procs %d: measured %d decisions, the decider was called %d times", procs, s.decisions, calls.Load())
		}
		if s.wall < 5*time.Millisecond {
			t.Errorf("procs %d: wall %v, want at least the 5ms asked for", procs, s.wall)
		}
	}
}

func TestRunPrintsEverySubjectAndProcessorCount(t *testing.T) {
	var out bytes.Buffer
	err := run([]string{"-keys", "1000", "-d", "2ms", "-rounds", "1", "-procs", "1,2", "-subjects", "gcra,sliding-buckets-k6," + baseline}, &out)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{"| gcra | 1 |", "| gcra | 2 |", "| sliding-buckets-k6 | 2 |", "| " + baseline + " | 1 | ", "| " + baseline + " | 2 |"} {
		if !strings.Contains(out.String(), row) {
			t.Errorf("output has no row starting %q:\n%s", row, out.String())
		}
	}
	// The baseline at the first processor count is 1.00 of itself twice.
	for line := range strings.SplitSeq(out.String(), "\n") {
		if strings.HasPrefix(line, "| "+baseline+" | 1 | ") && !strings.Contains(line, " | 1.00 | 1.00 | ") {
			t.Errorf("baseline row %q: want both ratios 1.00", line)
		}
	}
	if !strings.Contains(out.String(), "load average before:") {
		t.Errorf("output lacks the load average:\n%s", out.String())
	}
}

// TestPingPongReportsAHandoff: the two goroutines finish (each waits for
// the other, so a broken alternation would hang) and the report gives the
// time per handoff.
func TestPingPongReportsAHandoff(t *testing.T) {
	var out bytes.Buffer
	reportPingPong(&out, 2, 2000)
	if !strings.Contains(out.String(), "ns per handoff") {
		t.Errorf("-pingpong output lacks the handoff time:\n%s", out.String())
	}
}

// TestHelpIsAnAnswer: -h prints every flag and succeeds, where it used to
// print "flag: help requested" and exit 2.
func TestHelpIsAnAnswer(t *testing.T) {
	var out strings.Builder
	if err := run([]string{"-h"}, &out); err != nil {
		t.Fatalf("run -h = %v, want nil", err)
	}
	for _, flag := range []string{"-pingpong", "-procs", "-subjects", "-keys"} {
		if !strings.Contains(out.String(), flag) {
			t.Errorf("-h output lacks %s:\n%s", flag, out.String())
		}
	}
}

package lessons

import (
	"html"
	"strings"
	"testing"

	"github.com/windowlab/playground/limiter/redisbench"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// TestCompareRedisColumnIsTheMeasurement: every policy's Redis figures in
// the comparison are its row of the committed measurement, and the page
// names the file and the command that wrote it.
func TestCompareRedisColumnIsTheMeasurement(t *testing.T) {
	bench, err := redisbench.Committed()
	if err != nil {
		t.Fatal(err)
	}
	lib, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	r, err := lib.Render(lib.Lesson("choosing-a-policy"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var table *Table
	for i := range r.Tables {
		if strings.HasPrefix(r.Tables[i].Caption, "compare ") {
			table = &r.Tables[i]
		}
	}
	if table == nil {
		t.Fatal("the lesson has no comparison table")
	}
	refs := lessonRefs(true)
	if len(table.Rows) != len(refs) {
		t.Fatalf("the comparison has %d rows, want one per policy and arithmetic: %v", len(table.Rows), refs)
	}
	s := scenario.Scenario{Limit: 10, WindowMs: 1000}
	for i, ref := range refs {
		spec, err := scenario.ParsePolicyRef(ref)
		if err != nil {
			t.Fatal(err)
		}
		p, err := policies.Normalised(spec.Name, spec.Params(s))
		if err != nil {
			t.Fatal(err)
		}
		row, ok := bench.Of(spec.Name, string(p.Arithmetic))
		if !ok {
			t.Fatalf("%s: no row in %s", ref, redisbench.Path)
		}
		want := redisFigures(row)
		if got := table.Rows[i][len(table.Rows[i])-1]; got != want {
			t.Errorf("row %d (%s): redis %q, want %q from %s", i, ref, got, want, redisbench.Path)
		}
		if !strings.Contains(string(r.HTML), `data-testid="compare-redis">`+html.EscapeString(want)+"<") {
			t.Errorf("row %d (%s): the page does not show %q", i, ref, want)
		}
	}
	for _, want := range []string{redisbench.Command, redisbench.Path, "measured, not typed"} {
		if !strings.Contains(string(r.HTML), want) {
			t.Errorf("the comparison does not say where its Redis figures come from: no %q", want)
		}
	}
}

// A policy the file does not measure is an error naming the command, not
// a blank or typed figure.
func TestMeasuredOnRedisWithoutARow(t *testing.T) {
	bench := redisbench.Report{Forms: []redisbench.Row{{Form: "gcra", Policy: policies.GCRA, Commands: 2, RoundTrips: 1}}}
	s := scenario.Scenario{Limit: 10, WindowMs: 1000}
	if row, err := measuredOnRedis(bench, scenario.PolicySpec{Name: policies.GCRA}, s); err != nil || row.Commands != 2 {
		t.Errorf("gcra: %+v, %v; want its row", row, err)
	}
	_, err := measuredOnRedis(bench, scenario.PolicySpec{Name: policies.SlidingCounter, Arithmetic: policies.Exact}, s)
	if err == nil || !strings.Contains(err.Error(), "sliding-counter exact has no row") || !strings.Contains(err.Error(), redisbench.Command) {
		t.Errorf("sliding-counter exact: %v, want an error naming it and the command", err)
	}
}

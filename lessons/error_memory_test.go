package lessons

import (
	"fmt"
	"strings"
	"testing"

	"github.com/windowlab/playground/scenario"
)

// frontLoaded is generated traffic that crowds each window's requests into
// its first part: the ring's guessed-at bucket holds most of a window.
const frontLoaded = `"generated/front-loaded/100/60000/4/1"`

func errorMemoryBody(opts string) string {
	return "```error-memory\n" + `{"caption": "error and memory", "scenario": ` + frontLoaded + opts + "}\n```\n"
}

// The chart is drawn from EstimateErrors and the policies' bytes per key
// as the page is built: the table, the text alternative and the lines say
// the same figures, one line per kind of policy; the log is exact, and the
// histogram's error falls as its k grows.
func TestErrorMemoryDrawsTheComparison(t *testing.T) {
	refs := []string{"sliding-counter/exact", "sliding-buckets/6", "sliding-buckets/20", "exp-histogram/2", "exp-histogram/8", "sliding-log"}
	lib, l := predictLib(t, errorMemoryBody(`, "policies": ["`+strings.Join(refs, `", "`)+`"]`))
	r, doc := renderDoc(t, lib, l, nil)
	if len(r.Problems) != 0 {
		t.Fatalf("problems: %v", r.Problems)
	}
	s, err := scenario.Generated(strings.Trim(frontLoaded, `"`))
	if err != nil {
		t.Fatal(err)
	}
	specs := make([]scenario.PolicySpec, len(refs))
	for i, ref := range refs {
		if specs[i], err = s.Lane(ref); err != nil {
			t.Fatal(err)
		}
	}
	errs, err := EstimateErrors(s, specs)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Tables) != 1 {
		t.Fatalf("%d tables recorded, want 1", len(r.Tables))
	}
	table := r.Tables[0]
	if got, want := strings.Join(table.Head, " | "), "policy | bytes per key | worst error | mean error"; got != want {
		t.Errorf("head = %q, want %q", got, want)
	}
	for i, row := range table.Rows {
		per, err := EntryBytesPerKey(specs[i], s.Limit, s.WindowMs)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{refs[i], FormatBytes(per), errs[i].Share(errs[i].Worst), errs[i].Share(errs[i].Mean)}
		if strings.Join(row, " | ") != strings.Join(want, " | ") {
			t.Errorf("row %d: %q, want %q", i+1, row, want)
		}
	}
	if log := errs[len(errs)-1]; log.Worst != 0 || log.Mean != 0 {
		t.Errorf("sliding-log: worst %v, mean %v; want an exact count", log.Worst, log.Mean)
	}
	if errs[3].Worst <= errs[4].Worst {
		t.Errorf("exp-histogram: worst error %v at k=2, %v at k=8; want less with the larger k", errs[3].Worst, errs[4].Worst)
	}
	svg := doc.Find(`[data-testid="error-memory"] svg[role="img"]`)
	if svg.Length() != 1 {
		t.Fatalf("%d chart pictures, want 1", svg.Length())
	}
	if got := svg.Find(`[data-testid="sweep-series"]`).Length(); got != 4 {
		t.Errorf("%d lines, want one for each kind of policy (4)", got)
	}
	desc := svg.Find("desc").Text()
	for i, ref := range refs {
		if !strings.Contains(desc, ref+": "+table.Rows[i][1]+" per key, worst error "+table.Rows[i][2]) {
			t.Errorf("the text alternative does not say %s's figures: %s", ref, desc)
		}
	}
	if legend := doc.Find(`[data-testid="error-memory"] [data-testid="sweep-legend"]`).Text(); !strings.Contains(legend, "exponential histogram") {
		t.Errorf("the legend does not name the histogram's line in text: %q", legend)
	}
}

func TestErrorMemoryNamesWhatIsWrong(t *testing.T) {
	for _, tt := range []struct {
		body, want string
	}{
		{"```error-memory\n" + `{"scenario": ` + frontLoaded + `, "policies": ["sliding-log", "gcra"]}` + "\n```\n", "needs a caption"},
		{errorMemoryBody(`, "policies": ["sliding-log"]`), "at least two"},
		{errorMemoryBody(`, "policies": ["sliding-log", "tumbling"]`), `policies[1]: unknown policy "tumbling"`},
		{errorMemoryBody(`, "policies": ["sliding-log", "gcra"], "measure": "median"`), "neither worst nor mean"},
		{errorMemoryBody(`, "policies": ["sliding-log", "gcra", "fixed-window", "token-bucket", "exp-histogram"]`), "at most 4"},
	} {
		lib, l := predictLib(t, tt.body)
		r, err := lib.Render(l, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Problems) != 1 || !strings.Contains(r.Problems[0].What, tt.want) {
			t.Errorf("problems %v, want one saying %q", r.Problems, tt.want)
		}
	}
}

// TestEstimateErrorAgainstMemory holds the ring lesson's chart to what the
// histogram promises, on the lesson's own traffic and on smoother traffic:
// its worst error is at most 1/k of the most the window ever held (the
// bound is 1/k of each decision's true count), the log is exact, and a
// larger k never does worse. With -v it prints the figures
// docs/performance.md quotes.
func TestEstimateErrorAgainstMemory(t *testing.T) {
	refs := []string{"sliding-counter/exact", "sliding-buckets/2", "sliding-buckets/6", "sliding-buckets/20", "sliding-buckets/60",
		"exp-histogram/2", "exp-histogram/4", "exp-histogram/8", "exp-histogram/16", "sliding-log"}
	for _, name := range []string{"generated/front-loaded/1000/60000/5/1", "generated/poisson/1000/60000/5/1", "generated/bursty/1000/60000/5/1"} {
		s, err := scenario.Generated(name)
		if err != nil {
			t.Fatal(err)
		}
		specs := make([]scenario.PolicySpec, len(refs))
		for i, ref := range refs {
			if specs[i], err = s.Lane(ref); err != nil {
				t.Fatal(err)
			}
		}
		errs, err := EstimateErrors(s, specs)
		if err != nil {
			t.Fatal(err)
		}
		if name == "generated/front-loaded/1000/60000/5/1" {
			for _, limit := range []int64{10, 100, 1000, 10000} {
				line := ""
				for _, ref := range []string{"sliding-log", "sliding-buckets/60", "exp-histogram/8"} {
					spec, _ := s.Lane(ref)
					per, err := EntryBytesPerKey(spec, limit, s.WindowMs)
					if err != nil {
						t.Fatal(err)
					}
					line += fmt.Sprintf("  %s %s", ref, FormatBytes(per))
				}
				t.Logf("bytes per key at limit %d:%s", limit, line)
			}
		}
		open := s
		open.Limit = scenario.MaxLimit
		open.Policies = []scenario.PolicySpec{{Name: "sliding-log"}}
		res, err := scenario.Run(open)
		if err != nil {
			t.Fatal(err)
		}
		most := 0.0
		for _, d := range res.Results[0].Decisions {
			most = max(most, d.Estimate.Float()+float64(d.Cost))
		}
		t.Logf("%s (%d requests, at most %.0f in one window; limit %d)", name, len(s.Requests), most, s.Limit)
		prev := map[string]float64{}
		for i, spec := range specs {
			per, err := EntryBytesPerKey(spec, s.Limit, s.WindowMs)
			if err != nil {
				t.Fatal(err)
			}
			e := errs[i]
			t.Logf("  %-22s %8s  worst %7s  mean %6s", refs[i], FormatBytes(per), e.Share(e.Worst), e.Share(e.Mean))
			switch spec.Name {
			case "sliding-log":
				if e.Worst != 0 {
					t.Errorf("%s: the log's worst error %v, want 0", name, e.Worst)
				}
			case "exp-histogram":
				if bound := most / float64(spec.Buckets); e.Worst > bound {
					t.Errorf("%s: %s's worst error %v is above 1/k of the most in a window (%v)", name, refs[i], e.Worst, bound)
				}
				if p, ok := prev[spec.Name]; ok && e.Worst > p {
					t.Errorf("%s: %s's worst error %v is above the smaller k's %v", name, refs[i], e.Worst, p)
				}
				prev[spec.Name] = e.Worst
			}
		}
	}
}

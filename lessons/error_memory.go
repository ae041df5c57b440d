package lessons

import (
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// errorMemoryBlock is the JSON of a ```error-memory block: the estimate
// error of each policy over one scenario's requests (EstimateErrors),
// drawn against the bytes one key's state takes at the scenario's limit.
// Policies of one name make one line (the ring at several k, the
// histogram at several k); a policy named once is a lone marker.
type errorMemoryBlock struct {
	Caption  string      `json:"caption"`
	Scenario scenarioRef `json:"scenario"`
	// Policies are refs of policies that count the look-back
	// (sliding-counter, sliding-buckets/K, exp-histogram/K, sliding-log):
	// the error is their estimate against the exact count.
	Policies []string `json:"policies"`
	// Measure is the y axis: "worst" (the largest error of any decision,
	// the default) or "mean".
	Measure string `json:"measure"`
	Note    string `json:"note"`
}

// maxErrorMemoryPolicies bounds one chart's markers, so that its labels
// stay readable on a phone.
const maxErrorMemoryPolicies = 16

func (st *renderState) errorMemory(body []byte) (template.HTML, error) {
	var b errorMemoryBlock
	if err := decodeBlock(body, &b); err != nil {
		return "", err
	}
	switch {
	case b.Caption == "":
		return "", fmt.Errorf("an error-memory block needs a caption")
	case len(b.Policies) < 2:
		return "", fmt.Errorf("policies: list at least two policies to compare")
	case len(b.Policies) > maxErrorMemoryPolicies:
		return "", fmt.Errorf("policies: %d policies; a chart compares at most %d", len(b.Policies), maxErrorMemoryPolicies)
	}
	switch b.Measure {
	case "":
		b.Measure = "worst"
	case "worst", "mean":
	default:
		return "", fmt.Errorf("measure: %q is neither worst nor mean", b.Measure)
	}
	s, err := st.resolve(b.Scenario)
	if err != nil {
		return "", err
	}
	specs := make([]scenario.PolicySpec, len(b.Policies))
	for i, ref := range b.Policies {
		if specs[i], err = lane(s, ref); err != nil {
			return "", fmt.Errorf("policies[%d]: %w", i, err)
		}
	}
	errs, err := EstimateErrors(s, specs)
	if err != nil {
		return "", err
	}
	pts := make([]memoryPoint, len(specs))
	for i, spec := range specs {
		per, err := EntryBytesPerKey(spec, s.Limit, s.WindowMs)
		if err != nil {
			return "", fmt.Errorf("policies[%d]: %w", i, err)
		}
		pts[i] = memoryPoint{spec: spec, ref: b.Policies[i], bytes: per, err: errs[i]}
	}
	v, err := errorMemoryChart(b, s, pts)
	if err != nil {
		return "", err
	}
	v.ID = fmt.Sprintf("error-memory-%d", st.blockSeen["error-memory"])
	v.Note = b.Note
	st.out.Tables = append(st.out.Tables, Table{Caption: v.Caption, Head: v.Head, Rows: v.Rows})
	return renderHTML(sweepFigure(v))
}

type memoryPoint struct {
	spec  scenario.PolicySpec
	ref   string
	bytes int64
	err   EstimateError
}

func (p memoryPoint) y(measure string) float64 {
	if measure == "mean" {
		return p.err.Mean
	}
	return p.err.Worst
}

// errorMemoryChart lays the points out: bytes per key along x on a
// logarithmic scale (the log's bytes grow with the limit, the others'
// with k or its logarithm, so a linear axis would crush all but one),
// the error as a share of the limit up y.
func errorMemoryChart(b errorMemoryBlock, s scenario.Scenario, pts []memoryPoint) (sweepView, error) {
	v := sweepView{Caption: b.Caption, TestID: "error-memory",
		XTitle: "bytes per key (logarithmic)", YTitle: b.Measure + " error, % of the limit"}
	var names []string
	for _, p := range pts {
		if !slices.Contains(names, p.spec.Name) {
			names = append(names, p.spec.Name)
		}
	}
	if len(names) > len(sweepMarkers) {
		return v, fmt.Errorf("policies: %d kinds of policy; a chart draws at most %d, each with its own marker", len(names), len(sweepMarkers))
	}
	pct := func(p memoryPoint) float64 { return 100 * p.y(b.Measure) / float64(s.Limit) }
	lo, hi := math.Inf(1), math.Inf(-1)
	top := 0.0
	for _, p := range pts {
		lb := math.Log10(float64(max(p.bytes, 1)))
		lo, hi = math.Min(lo, lb), math.Max(hi, lb)
		top = math.Max(top, pct(p))
	}
	lo, hi = math.Floor(lo), math.Ceil(hi)
	if hi == lo {
		hi = lo + 1
	}
	step := niceStep(int64(math.Ceil(top)))
	ceil := float64((int64(math.Ceil(top)) + step - 1) / step * step)
	if ceil == 0 {
		ceil = float64(step)
	}
	x := func(bytes int64) float64 {
		return sweepLeft + sweepPlotW*(math.Log10(float64(max(bytes, 1)))-lo)/(hi-lo)
	}
	y := func(p float64) float64 { return sweepTop + sweepPlotH*(ceil-p)/ceil }
	for e := lo; e <= hi; e++ {
		v.XTicks = append(v.XTicks, sweepTick{Pos: num(x(int64(math.Pow(10, e)))), Label: FormatBytes(int64(math.Pow(10, e)))})
	}
	for n := int64(0); float64(n) <= ceil; n += step {
		v.YTicks = append(v.YTicks, sweepTick{Pos: num(y(float64(n))), Label: strconv.FormatInt(n, 10) + " %"})
	}
	var desc []string
	for si, name := range names {
		m := sweepMarkers[si]
		human := name
		if in, ok := policies.Lookup(name); ok {
			human = in.Human
		}
		series := sweepSeries{Class: fmt.Sprintf("series-%d", si+1), Shape: m.shape, Dash: m.dash, Label: human}
		var path, said []string
		for _, p := range pts {
			if p.spec.Name != name {
				continue
			}
			px, py := num(x(p.bytes)), num(y(pct(p)))
			path = append(path, px+","+py)
			words := fmt.Sprintf("%s: %s per key, %s error %s", p.ref, FormatBytes(p.bytes), b.Measure, p.err.Share(p.y(b.Measure)))
			label := ""
			if p.spec.Buckets != 0 {
				label = "k=" + strconv.FormatInt(p.spec.Buckets, 10)
			}
			series.Points = append(series.Points, sweepPoint{X: px, Y: py, Title: words, Label: label, LabelY: num(y(pct(p)) - 2*sweepMarkerR)})
			said = append(said, words)
		}
		series.Path = strings.Join(path, " ")
		v.Series = append(v.Series, series)
		desc = append(desc, strings.Join(said, ", "))
	}
	v.Head = []string{"policy", "bytes per key", "worst error", "mean error"}
	for _, p := range pts {
		v.Rows = append(v.Rows, []string{p.ref, FormatBytes(p.bytes), p.err.Share(p.err.Worst), p.err.Share(p.err.Mean)})
	}
	v.TableCaption = fmt.Sprintf("Each policy's estimate against the exact count before every request, as a share of the limit (%d), and the bytes one key's state takes", s.Limit)
	v.Desc = fmt.Sprintf("The %s error of each policy's estimate, as a share of the limit of %d, against the bytes per key, on a logarithmic axis. %s.",
		b.Measure, s.Limit, strings.Join(desc, "; "))
	return v, nil
}

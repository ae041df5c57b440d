package lessons

import (
	"fmt"
	"html/template"
	"slices"
	"strconv"
	"strings"

	"github.com/windowlab/playground/cluster"
	"github.com/windowlab/playground/scenario"
)

// sweepBlock is the JSON of a ```sync-sweep block: one lane's policy run on
// a scenario's requests by 2, 4 and 8 servers at each sync interval, and
// the over-admission of each drawn against the interval.
type sweepBlock struct {
	Caption  string      `json:"caption"`
	Scenario scenarioRef `json:"scenario"`
	// Policy is the lane swept: a policy ref or "#N" (default "#1"); its
	// nodes and syncMs are replaced by the sweep's.
	Policy string  `json:"policy"`
	Syncs  []int64 `json:"syncs"` // sync intervals in ms, 0 for never
	Nodes  []int   `json:"nodes"` // default cluster.SweepNodes
	Note   string  `json:"note"`
}

// maxSweepSyncs bounds the intervals one chart compares, so that its
// labels stay readable on a phone.
const maxSweepSyncs = 10

// The chart's geometry, in the SVG's own units: a viewBox narrow enough
// that its labels stay legible when a 360 px screen scales it down.
// The templ's axis lines use the same numbers: the plot spans x 64 to 448
// and y 16 to 248, leaving room for the y labels and the axis's title on
// the left and for the last interval's label on the right.
const (
	sweepW                = 480.0
	sweepH                = 300.0
	sweepLeft, sweepRight = 64.0, 32.0
	sweepTop, sweepBottom = 16.0, 52.0
	sweepPlotW            = sweepW - sweepLeft - sweepRight
	sweepPlotH            = sweepH - sweepTop - sweepBottom
	sweepMarkerR          = 5.0
)

// sweepMarkers tell the series apart by shape and dash as well as colour.
var sweepMarkers = []struct{ shape, dash string }{
	{"circle", ""}, {"square", "8 4"}, {"triangle", "2 4"}, {"diamond", "12 4 2 4"},
}

type sweepPoint struct {
	X, Y   string
	Title  string
	Label  string // drawn beside the marker ("k=4"), or none
	LabelY string
}

type sweepSeries struct {
	Class  string // series-1 … for its colour
	Shape  string
	Dash   string
	Label  string // "4 servers"
	Path   string // the polyline's points
	Points []sweepPoint
}

type sweepTick struct {
	Pos   string // x or y
	Label string
}

type sweepView struct {
	ID      string
	TestID  string // "sync-sweep" or "error-memory"
	Caption string
	// XTitle and YTitle name the axes; TableCaption the table under the
	// chart.
	XTitle, YTitle, TableCaption string
	Desc                         string
	Series                       []sweepSeries
	XTicks                       []sweepTick
	YTicks                       []sweepTick
	Head                         []string
	Rows                         [][]string
	Note                         string
	Single                       string // what one server admits, for the caption
}

func (st *renderState) syncSweep(body []byte) (template.HTML, error) {
	var b sweepBlock
	if err := decodeBlock(body, &b); err != nil {
		return "", err
	}
	switch {
	case b.Caption == "":
		return "", fmt.Errorf("a sync-sweep needs a caption")
	case len(b.Syncs) == 0:
		return "", fmt.Errorf("syncs: list the sync intervals to compare, in ms (0: never)")
	case len(b.Syncs) > maxSweepSyncs:
		return "", fmt.Errorf("syncs: %d intervals; a chart compares at most %d", len(b.Syncs), maxSweepSyncs)
	}
	if b.Policy == "" {
		b.Policy = "#1"
	}
	if len(b.Nodes) == 0 {
		b.Nodes = cluster.SweepNodes
	}
	if len(b.Nodes) > len(sweepMarkers) {
		return "", fmt.Errorf("nodes: %d sizes; a chart draws at most %d, each with its own marker", len(b.Nodes), len(sweepMarkers))
	}
	s, err := st.resolve(b.Scenario)
	if err != nil {
		return "", err
	}
	spec, err := lane(s, b.Policy)
	if err != nil {
		return "", err
	}
	if spec.Central {
		return "", fmt.Errorf("policy %s: a central store has no sync interval to sweep", b.Policy)
	}
	points, err := scenario.Sweep(s, spec, b.Nodes, b.Syncs)
	if err != nil {
		return "", err
	}
	v := sweepChart(b, points)
	v.ID = fmt.Sprintf("sweep-%d", st.blockSeen["sync-sweep"])
	v.Note = b.Note
	st.out.Tables = append(st.out.Tables, Table{Caption: v.Caption, Head: v.Head, Rows: v.Rows})
	return renderHTML(sweepFigure(v))
}

// syncLabel words a sync interval as the chart's axis does.
func syncLabel(ms int64) string {
	if ms == 0 {
		return "never"
	}
	return scenario.FormatMs(ms)
}

// sweepChart lays the points out: the intervals evenly along x in the
// block's order (so "never" can sit at the end), over-admission up y.
func sweepChart(b sweepBlock, points []cluster.Point) sweepView {
	v := sweepView{Caption: b.Caption, TestID: "sync-sweep",
		XTitle: "sync interval (evenly spaced, not to scale)", YTitle: "over-admitted"}
	top := int64(0)
	for _, p := range points {
		top = max(top, p.OverAdmission)
	}
	low := min(int64(0), slices.MinFunc(points, func(a, b cluster.Point) int { return int(a.OverAdmission - b.OverAdmission) }).OverAdmission)
	step := niceStep(top - low)
	top = (top + step - 1) / step * step
	if top == low {
		top = low + step
	}
	x := func(i int) float64 {
		if len(b.Syncs) == 1 {
			return sweepLeft + sweepPlotW/2
		}
		return sweepLeft + sweepPlotW*float64(i)/float64(len(b.Syncs)-1)
	}
	y := func(n int64) float64 { return sweepTop + sweepPlotH*float64(top-n)/float64(top-low) }
	for i, ms := range b.Syncs {
		v.XTicks = append(v.XTicks, sweepTick{Pos: num(x(i)), Label: syncLabel(ms)})
	}
	for n := low; n <= top; n += step {
		v.YTicks = append(v.YTicks, sweepTick{Pos: num(y(n)), Label: strconv.FormatInt(n, 10)})
	}
	v.Head = []string{"sync interval"}
	var desc []string
	for si, n := range b.Nodes {
		m := sweepMarkers[si]
		series := sweepSeries{Class: fmt.Sprintf("series-%d", si+1), Shape: m.shape, Dash: m.dash, Label: fmt.Sprintf("%d servers", n)}
		v.Head = append(v.Head, series.Label)
		var path, said []string
		for i, ms := range b.Syncs {
			p := points[si*len(b.Syncs)+i]
			px, py := num(x(i)), num(y(p.OverAdmission))
			path = append(path, px+","+py)
			series.Points = append(series.Points, sweepPoint{X: px, Y: py,
				Title: fmt.Sprintf("%s, %s: %s", series.Label, syncPhrase(ms), overWords(p))})
			said = append(said, fmt.Sprintf("%d %s", p.OverAdmission, syncPhrase(ms)))
		}
		series.Path = strings.Join(path, " ")
		v.Series = append(v.Series, series)
		desc = append(desc, series.Label+": "+strings.Join(said, ", "))
	}
	for i, ms := range b.Syncs {
		row := []string{syncLabel(ms)}
		for si := range b.Nodes {
			row = append(row, overWords(points[si*len(b.Syncs)+i]))
		}
		v.Rows = append(v.Rows, row)
	}
	if len(points) > 0 {
		v.Single = strconv.FormatInt(points[0].Single, 10)
	}
	v.TableCaption = "Requests admitted beyond what one server admits (" + v.Single + "), by sync interval and number of servers"
	v.Desc = "Over-admission, the requests admitted across the servers beyond what one server admits (" + v.Single +
		"), for each sync interval. " + strings.Join(desc, "; ") + "."
	return v
}

// overWords is one point as the table and a marker's title say it.
func overWords(p cluster.Point) string {
	return fmt.Sprintf("%d over (%d admitted)", p.OverAdmission, p.Admitted)
}

func syncPhrase(ms int64) string {
	if ms == 0 {
		return "never syncing"
	}
	return "syncing every " + scenario.FormatMs(ms)
}

// niceStep is a step of 1, 2 or 5 times a power of ten that cuts span
// into at most five parts.
func niceStep(span int64) int64 {
	for p := int64(1); ; p *= 10 {
		for _, m := range []int64{1, 2, 5} {
			if span <= 5*m*p {
				return m * p
			}
		}
	}
}

// num writes an SVG coordinate to a tenth of a unit.
func num(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

// markerPath is a series' marker at (x, y) as an SVG path, so that the
// series differ in shape as well as colour.
func markerPath(shape, xs, ys string) string {
	x, _ := strconv.ParseFloat(xs, 64)
	y, _ := strconv.ParseFloat(ys, 64)
	r := sweepMarkerR
	switch shape {
	case "square":
		return fmt.Sprintf("M%s %sh%sv%sh-%sz", num(x-r), num(y-r), num(2*r), num(2*r), num(2*r))
	case "triangle":
		return fmt.Sprintf("M%s %sL%s %sL%s %sz", num(x), num(y-r-1), num(x+r+1), num(y+r), num(x-r-1), num(y+r))
	case "diamond":
		return fmt.Sprintf("M%s %sL%s %sL%s %sL%s %sz", num(x), num(y-r-1), num(x+r+1), num(y), num(x), num(y+r+1), num(x-r-1), num(y))
	}
	return fmt.Sprintf("M%s %sa%s %s 0 1 0 %s 0a%s %s 0 1 0 -%s 0z", num(x-r), num(y), num(r), num(r), num(2*r), num(r), num(r), num(2*r))
}

package traffic

import (
	"cmp"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/windowlab/playground/lane"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/traffic"
	"github.com/windowlab/playground/web/templates"
)

// pageView is the whole page.
type pageView struct {
	Page    templates.Page
	Form    form
	Problem string
	Result  *result
}

// The drawing's sizes, in viewBox units.
const (
	plotWidth   = 720
	densityRows = 40 // height of one policy's density row
	slices_     = 48 // time slices across the range
	// singleMax is how many requests a range may hold for the lanes to
	// draw each one rather than slices.
	singleMax = 300
	tableRows = 50
)

// result is what the page shows of an upload.
type result struct {
	Summary    traffic.Summary
	SummaryTxt string
	Policies   []traffic.PolicyReport
	Clients    int
	Range      rangeView
	Density    []densityLane
	Single     bool // the range holds few enough requests to draw each
	Table      tableView
	Client     *clientView
	Sweep      sweepChart
}

type rangeView struct {
	From, To       int64
	Label          string
	ZoomOut, Whole string // links; "" when already whole
	Requests       int
}

// densityLane is one policy over the range: a bar per slice, or a mark
// per request.
type densityLane struct {
	Label   string
	Summary string // its text alternative
	Bars    []bar
	Marks   []mark
}

type bar struct {
	X, W             float64
	AdmittedH, RefH  float64
	Admitted, Refuse int
	Zoom             string // link to the slice
	Aria             string
}

type mark struct {
	X       float64
	Allowed bool
	Title   string
}

type tableView struct {
	Sort     string
	Policies []string // column headings
	Rows     []tableRow
	SortURL  map[string]string
	Shown    int
}

type tableRow struct {
	Key      string
	URL      string
	Requests int64
	Peak     int64
	Refused  []int64
}

type clientView struct {
	Key     string
	Note    string
	Inputs  []lane.Input
	Options lane.Options
	Problem string
}

type sweepChart struct {
	Lines  []sweepLine
	XTicks []tick
	YTicks []tick
	Limits []int64
}

type sweepLine struct {
	Label  string
	Points string // SVG polyline points
	Dash   string
	Dots   []dot
	Shares []string // per limit, for the table
}

type dot struct{ X, Y float64 }

type tick struct {
	Pos   float64
	Label string
}

// chart geometry of the sweep
const (
	chartW, chartH        = 720, 300
	chartLeft, chartRight = 56, 16
	chartTop, chartBottom = 16, 40
	plotW                 = chartW - chartLeft - chartRight
	plotH                 = chartH - chartTop - chartBottom
)

// dashes tell the sweep's lines apart without colour.
var dashes = []string{"", "8 4", "2 3", "12 4 2 4", "4 4", "1 6", "10 2", "6 2 1 2"}

func newResult(u *upload, q url.Values) *result {
	t := u.trace
	res := &result{Summary: t.Summary, Policies: u.report.Policies, Clients: t.Clients.Len()}
	var b strings.Builder
	traffic.WriteSummary(&b, t.Summary)
	res.SummaryTxt = strings.TrimSpace(b.String())

	from, to := t.Summary.From, t.Summary.To+1
	if f, err := strconv.ParseInt(q.Get("from"), 10, 64); err == nil && f >= from && f < to {
		from = f
	}
	if e, err := strconv.ParseInt(q.Get("to"), 10, 64); err == nil && e > from && e <= to {
		to = e
	}
	res.Range = rangeView{From: from, To: to, Label: span(from, to)}
	if from > t.Summary.From || to < t.Summary.To+1 {
		w := to - from
		zf, zt := max(t.Summary.From, from-w/2), min(t.Summary.To+1, to+w/2)
		res.Range.ZoomOut = link(q, "from", zf, "to", zt)
		res.Range.Whole = link(q, "from", -1, "to", -1)
	}
	n := 0
	for _, c := range t.Chunks {
		for _, r := range c {
			if r.At >= from && r.At < to {
				n++
			}
		}
	}
	res.Range.Requests = n
	res.Single = n <= singleMax
	res.Density = density(u, q, from, to, res.Single)
	res.Table = table(u, q)
	if key := q.Get("client"); key != "" {
		res.Client = clientLanes(u, key)
	}
	res.Sweep = chart(u.sweep)
	return res
}

// link is the page's URL with q changed: a value of -1 drops the name.
func link(q url.Values, kv ...any) string {
	c := url.Values{}
	for k, v := range q {
		c[k] = slices.Clone(v)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		name := kv[i].(string)
		switch v := kv[i+1].(type) {
		case int64:
			if v < 0 {
				c.Del(name)
			} else {
				c.Set(name, strconv.FormatInt(v, 10))
			}
		case string:
			if v == "" {
				c.Del(name)
			} else {
				c.Set(name, v)
			}
		}
	}
	if len(c) == 0 {
		return "/traffic"
	}
	return "/traffic?" + c.Encode()
}

func span(from, to int64) string {
	f := time.UnixMilli(from).UTC()
	e := time.UnixMilli(to).UTC()
	return fmt.Sprintf("%s to %s (%s)", f.Format("2006-01-02 15:04:05.000"), e.Format("2006-01-02 15:04:05.000"), scenario.FormatMs(to-from))
}

func density(u *upload, q url.Values, from, to int64, single bool) []densityLane {
	t := u.trace
	width := float64(to - from)
	var lanes []densityLane
	for p, pr := range u.report.Policies {
		bits := u.outcomes[p]
		dl := densityLane{Label: pr.Label}
		adm := make([]int, slices_)
		ref := make([]int, slices_)
		i := 0
		var admitted, refused int
		for _, c := range t.Chunks {
			for _, r := range c {
				if r.At >= from && r.At < to {
					ok := traffic.Admitted(bits, i)
					s := int(float64(r.At-from) / width * slices_)
					s = min(s, slices_-1)
					if ok {
						adm[s]++
						admitted++
					} else {
						ref[s]++
						refused++
					}
					if single {
						x := float64(r.At-from) / width * plotWidth
						verdict := "refused"
						if ok {
							verdict = "admitted"
						}
						dl.Marks = append(dl.Marks, mark{X: x, Allowed: ok, Title: fmt.Sprintf("%s at %s: %s",
							t.Clients.Name(r.Client), time.UnixMilli(r.At).UTC().Format("15:04:05.000"), verdict)})
					}
				}
				i++
			}
		}
		dl.Summary = fmt.Sprintf("%s from %s: %d admitted, %d refused", pr.Label, span(from, to), admitted, refused)
		if !single {
			most := 1
			for s := range slices_ {
				most = max(most, adm[s]+ref[s])
			}
			w := float64(plotWidth) / slices_
			step := (to - from) / slices_
			for s := range slices_ {
				if adm[s]+ref[s] == 0 {
					continue
				}
				sf := from + int64(s)*step
				st := sf + step
				if s == slices_-1 {
					st = to
				}
				b := bar{X: float64(s) * w, W: w - 1, Admitted: adm[s], Refuse: ref[s],
					AdmittedH: float64(adm[s]) / float64(most) * (densityRows - 4),
					RefH:      float64(ref[s]) / float64(most) * (densityRows - 4),
					Zoom:      link(q, "from", sf, "to", max(st, sf+1))}
				b.Aria = fmt.Sprintf("zoom to %s: %d admitted, %d refused", span(sf, st), adm[s], ref[s])
				dl.Bars = append(dl.Bars, b)
			}
		}
		lanes = append(lanes, dl)
	}
	return lanes
}

// table lists the clients, sorted as asked: by refused (under the policy
// named by its index, "refused-N"), requests, peak or key.
func table(u *upload, q url.Values) tableView {
	tv := tableView{Sort: q.Get("sort"), SortURL: map[string]string{}}
	if tv.Sort == "" {
		tv.Sort = "refused-0"
	}
	ids := make([]uint32, u.trace.Clients.Len())
	refused := make([]map[string]int64, len(u.report.Policies))
	for p, pr := range u.report.Policies {
		tv.Policies = append(tv.Policies, pr.Label)
		refused[p] = make(map[string]int64, len(pr.Clients))
		for _, c := range pr.Clients {
			refused[p][c.Key] = c.Refused
		}
		tv.SortURL[fmt.Sprintf("refused-%d", p)] = link(q, "sort", fmt.Sprintf("refused-%d", p))
	}
	for _, s := range []string{"requests", "peak", "key"} {
		tv.SortURL[s] = link(q, "sort", s)
	}
	cl := u.trace.Clients
	for i := range ids {
		ids[i] = uint32(i)
	}
	by := func(a, b uint32) int { return 0 }
	switch {
	case tv.Sort == "requests":
		by = func(a, b uint32) int { return cmp.Compare(cl.Requests(b), cl.Requests(a)) }
	case tv.Sort == "peak":
		by = func(a, b uint32) int { return cmp.Compare(cl.Peak(b), cl.Peak(a)) }
	case tv.Sort == "key":
		by = func(a, b uint32) int { return strings.Compare(cl.Name(a), cl.Name(b)) }
	case strings.HasPrefix(tv.Sort, "refused-"):
		p, err := strconv.Atoi(strings.TrimPrefix(tv.Sort, "refused-"))
		if err != nil || p < 0 || p >= len(refused) {
			p, tv.Sort = 0, "refused-0"
		}
		by = func(a, b uint32) int { return cmp.Compare(refused[p][cl.Name(b)], refused[p][cl.Name(a)]) }
	default:
		tv.Sort = "refused-0"
		by = func(a, b uint32) int { return cmp.Compare(refused[0][cl.Name(b)], refused[0][cl.Name(a)]) }
	}
	slices.SortStableFunc(ids, func(a, b uint32) int {
		if c := by(a, b); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	for _, id := range ids[:min(len(ids), tableRows)] {
		row := tableRow{Key: cl.Name(id), URL: link(q, "client", cl.Name(id)) + "#client-lanes", Requests: cl.Requests(id), Peak: cl.Peak(id)}
		for p := range refused {
			row.Refused = append(row.Refused, refused[p][row.Key])
		}
		tv.Rows = append(tv.Rows, row)
	}
	tv.Shown = len(tv.Rows)
	return tv
}

// clientLanes draws one client's requests as the playground does: its
// slice as a scenario, in a playground session, at its last request.
func clientLanes(u *upload, key string) *clientView {
	cv := &clientView{Key: key}
	id, ok := u.trace.Clients.ID(key)
	if !ok {
		cv.Problem = fmt.Sprintf("No client %q in this log.", key)
		return cv
	}
	reqs := u.trace.Of(id)
	if len(reqs) > scenario.MaxRequests {
		cv.Note = fmt.Sprintf("The lanes hold its first %d of %d requests, a scenario's bound.", scenario.MaxRequests, len(reqs))
	}
	set := u.set
	set.Policies = set.Specs()
	if len(set.Policies) > scenario.MaxPolicies {
		set.Policies = set.Policies[:scenario.MaxPolicies]
	}
	s, err := traffic.ClientScenario(set, key, reqs)
	if err != nil {
		cv.Problem = "These requests cannot be drawn as a scenario: " + err.Error()
		return cv
	}
	sess, err := play.NewSession("traffic", s)
	if err == nil {
		err = sess.Jump(s.Requests[len(s.Requests)-1].At)
	}
	if err != nil {
		cv.Problem = "These requests cannot be drawn: " + err.Error()
		return cv
	}
	v := sess.View()
	for _, l := range v.Lanes {
		cv.Inputs = append(cv.Inputs, lane.FromView(v, l))
	}
	return cv
}

// chart lays the sweep out: x the limit, y the share of clients refused.
func chart(sw traffic.SweepReport) sweepChart {
	var c sweepChart
	if len(sw.Policies) == 0 || len(sw.Policies[0].Points) == 0 {
		return c
	}
	pts := sw.Policies[0].Points
	lo, hi := pts[0].Limit, pts[len(pts)-1].Limit
	xOf := func(l int64) float64 {
		if hi == lo {
			return chartLeft
		}
		return chartLeft + float64(l-lo)/float64(hi-lo)*plotW
	}
	yOf := func(share float64) float64 { return chartTop + (1-share)*plotH }
	for _, p := range pts {
		c.Limits = append(c.Limits, p.Limit)
	}
	for i := 0; i < len(pts); i += max(1, len(pts)/5) {
		c.XTicks = append(c.XTicks, tick{Pos: xOf(pts[i].Limit), Label: strconv.FormatInt(pts[i].Limit, 10)})
	}
	for _, s := range []float64{0, 0.25, 0.5, 0.75, 1} {
		c.YTicks = append(c.YTicks, tick{Pos: yOf(s), Label: fmt.Sprintf("%.0f%%", s*100)})
	}
	for i, cv := range sw.Policies {
		line := sweepLine{Label: cv.Label, Dash: dashes[i%len(dashes)]}
		var b strings.Builder
		for _, p := range cv.Points {
			x, y := xOf(p.Limit), yOf(p.ClientsShare)
			fmt.Fprintf(&b, "%.1f,%.1f ", x, y)
			line.Dots = append(line.Dots, dot{x, y})
			line.Shares = append(line.Shares, fmt.Sprintf("%.1f%%", p.ClientsShare*100))
		}
		line.Points = strings.TrimSpace(b.String())
		c.Lines = append(c.Lines, line)
	}
	return c
}

// policyChoices are the policies the form offers, as short refs.
func policyChoices() []string { return policies.Names }

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func itoa[T ~int | ~int64](n T) string { return strconv.FormatInt(int64(n), 10) }

func pct(part, whole int64) string {
	if whole == 0 {
		return "0%"
	}
	return strconv.FormatFloat(100*float64(part)/float64(whole), 'f', 2, 64) + "%"
}

// ariaSort marks the column the table is sorted by.
func ariaSort(on bool, key string) string {
	switch {
	case !on:
		return "none"
	case key == "key":
		return "ascending"
	}
	return "descending"
}

package templates

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// PlayPage is what the playground page needs besides the layout's Page.
type PlayPage struct {
	Page   Page
	View   play.View
	Base   string // "/play/<id>": the session's action URLs
	Share  string // the shared link of the scenario
	JSON   string // the scenario, indented: what "copy scenario" copies
	Errors scenario.Errors
	// LoadText is what was pasted into the load form, shown again next to
	// its error.
	LoadText string
}

// The SVG geometry of a lane, in viewBox units.
const (
	laneW      = 720
	laneH      = 150
	plotLeft   = 40
	plotRight  = 712
	plotTop    = 18
	plotBottom = 124
)

// LanePlot turns one lane into SVG coordinates.
type LanePlot struct {
	play.Lane
	View play.View
	yMax float64
}

// Plot prepares lane l of v for drawing.
func Plot(v play.View, l play.Lane) LanePlot {
	return LanePlot{Lane: l, View: v, yMax: float64(l.Capacity) * 1.5}
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

// px rounds a coordinate to a whole unit: a lane is 720 units wide, so a
// unit is at most a pixel or two on screen.
func px(f float64) string { return strconv.Itoa(int(math.Round(f))) }

// IndividualMarks is how many requests a lane draws as separate, clickable
// marks; beyond it the marks are drawn compactly as a few paths (selection
// then goes by the previous/next keys).
const IndividualMarks = 60

// X maps an instant to the horizontal axis.
func (p LanePlot) X(t int64) float64 {
	span := float64(p.View.To - p.View.From)
	if span <= 0 {
		return plotLeft
	}
	return plotLeft + float64(t-p.View.From)/span*(plotRight-plotLeft)
}

// Y maps a number of permits to the vertical axis (clamped to the plot).
func (p LanePlot) Y(v float64) float64 {
	v = min(max(v, 0), p.yMax)
	return plotBottom - v/p.yMax*(plotBottom-plotTop)
}

// ViewBox is the SVG viewBox.
func (p LanePlot) ViewBox() string { return fmt.Sprintf("0 0 %d %d", laneW, laneH) }

// CurvePoints is the estimate curve as a polyline's points.
func (p LanePlot) CurvePoints() string {
	// Points are rounded to whole units across; a point between two at the
	// same height adds nothing to the line and is left out.
	type pt struct{ x, y int } // y in tenths of a unit
	pts := make([]pt, 0, len(p.Curve))
	for _, c := range p.Curve {
		q := pt{int(math.Round(p.X(c.At))), int(math.Round(p.Y(c.Value) * 10))}
		n := len(pts)
		switch {
		case n > 0 && pts[n-1] == q:
		case n > 1 && pts[n-1].y == q.y && pts[n-2].y == q.y:
			pts[n-1] = q
		default:
			pts = append(pts, q)
		}
	}
	buf := make([]byte, 0, 12*len(pts))
	for i, q := range pts {
		if i > 0 {
			buf = append(buf, ' ')
		}
		buf = strconv.AppendInt(buf, int64(q.x), 10)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(q.y/10), 10)
		buf = append(buf, '.', byte('0'+q.y%10))
	}
	return string(buf)
}

// LimitY is the height of the capacity line.
func (p LanePlot) LimitY() string { return num(p.Y(float64(p.Capacity))) }

// LimitLabel names the capacity line.
func (p LanePlot) LimitLabel() string {
	if p.Policy == policies.TokenBucket || p.Policy == policies.GCRA {
		return fmt.Sprintf("burst %d", p.Capacity)
	}
	return fmt.Sprintf("limit %d", p.Capacity)
}

// Tick is one labelled instant on the time axis.
type Tick struct {
	X     string
	Label string
}

// Ticks labels the time axis six times across the span.
func (p LanePlot) Ticks() []Tick {
	var out []Tick
	for i := range 7 {
		t := p.View.From + int64(i)*(p.View.To-p.View.From)/6
		out = append(out, Tick{X: num(p.X(t)), Label: scenario.FormatMs(t)})
	}
	return out
}

// NowX is where the clock's line goes.
func (p LanePlot) NowX() string { return num(p.X(p.View.Clock.Now)) }

// BandRect is one drawn window.
type BandRect struct {
	X, W, LabelX, Label, Class string
}

// Bands are the windows of fixed-window and sliding-counter, each labelled
// with the permits admitted in it.
func (p LanePlot) Bands() []BandRect {
	var out []BandRect
	for i, b := range p.Windows {
		x0 := max(p.X(b.Start), plotLeft)
		x1 := min(p.X(b.End), plotRight)
		if x1 <= x0 {
			continue
		}
		class := "band"
		if i%2 == 1 {
			class = "band band-odd"
		}
		out = append(out, BandRect{X: num(x0), W: num(x1 - x0), LabelX: num((x0 + x1) / 2),
			Label: fmt.Sprintf("%d/%d", b.Admitted, p.Params.Limit), Class: class})
	}
	return out
}

// LookBack is the sliding log's window (now − window, now], when drawn.
func (p LanePlot) LookBack() (x, w string, ok bool) {
	if p.Policy != policies.SlidingLog {
		return "", "", false
	}
	x0 := max(p.X(p.View.Clock.Now-p.Params.WindowMs), plotLeft)
	x1 := min(p.X(p.View.Clock.Now), plotRight)
	if x1 <= x0 {
		return "", "", false
	}
	return num(x0), num(x1 - x0), true
}

// LogTicks draws the sliding log's timestamps inside the look-back as one
// path of short vertical strokes.
func (p LanePlot) LogTicks() string {
	var b strings.Builder
	for _, t := range p.State.Log {
		if t >= p.View.From {
			b.WriteString("M" + px(p.X(t)) + " 118v12")
		}
	}
	return b.String()
}

// DisagreePath marks, along the top of the plot, the instants of requests
// the lanes decided differently: one downward triangle per instant.
func (p LanePlot) DisagreePath() string {
	var b strings.Builder
	last := -1
	for _, m := range p.Lane.Marks {
		if !m.Disagree {
			continue
		}
		x := int(math.Round(p.X(m.At)))
		if x == last {
			continue
		}
		last = x
		b.WriteString("M" + strconv.Itoa(x-5) + " 19h10l-5 7z")
	}
	return b.String()
}

// Dense reports whether the lane draws its marks compactly.
func (p LanePlot) Dense() bool { return len(p.Lane.Marks) > IndividualMarks }

// DensePaths draws many marks as four paths: admitted dots (zero-length
// strokes with round caps), refused crosses, the same two for requests after
// the clock, and the disagreement triangles.
func (p LanePlot) DensePaths() (admitted, refused, futureAdmitted, futureRefused, selected string) {
	var a, r, fa, fr, sel strings.Builder
	type spot struct {
		x, y                      int
		allowed, future, disagree bool
	}
	drawn := map[spot]bool{} // marks that would cover one another are drawn once
	for _, m := range p.Lane.Marks {
		xi, yi := int(math.Round(p.X(m.At))), int(math.Round(p.Y(m.Level)-float64(m.Stack)*11))
		x, y := strconv.Itoa(xi), strconv.Itoa(yi)
		if m.Selected {
			sel.WriteString(x + " " + y)
		}
		at := spot{xi, yi, m.Allowed, m.Future, false}
		if drawn[at] {
			continue
		}
		drawn[at] = true
		switch {
		case m.Allowed && m.Future:
			fa.WriteString("M" + x + " " + y + "h0")
		case m.Allowed:
			a.WriteString("M" + x + " " + y + "h0")
		case m.Future:
			fr.WriteString("M" + x + " " + y + "m-5-5l10 10m0-10l-10 10")
		default:
			r.WriteString("M" + x + " " + y + "m-5-5l10 10m0-10l-10 10")
		}
	}
	return a.String(), r.String(), fa.String(), fr.String(), sel.String()
}

// SlotRect is one sub-bucket of sliding-buckets at the clock.
type SlotRect struct{ X, Y, W, H string }

// Slots draws sliding-buckets' slots, each as high as its weighted count.
func (p LanePlot) Slots() []SlotRect {
	var out []SlotRect
	width := int64(0)
	if p.Params.Buckets > 0 {
		width = p.Params.WindowMs / p.Params.Buckets
	}
	for _, s := range p.State.Slots {
		x0 := max(p.X(s.Start), plotLeft)
		x1 := min(p.X(s.Start+width), plotRight)
		if x1 <= x0 {
			continue
		}
		h := float64(s.Count) * s.Weight.Float()
		out = append(out, SlotRect{X: num(x0), Y: num(p.Y(h)), W: num(x1 - x0), H: num(p.Y(0) - p.Y(h))})
	}
	return out
}

// TATX is where GCRA's theoretical arrival time goes, when it is in view.
func (p LanePlot) TATX() (string, bool) {
	if p.Policy != policies.GCRA || p.State.TAT.Den == 0 {
		return "", false
	}
	tat := p.State.TAT.Float()
	if tat < float64(p.View.From) || tat > float64(p.View.To) {
		return "", false
	}
	return num(p.X(int64(tat))), true
}

// MarkPos is one request's drawing position.
type MarkPos struct {
	play.Mark
	X, Y  string
	Class string
}

// Marks places the requests: at their instant, at the height of estimate +
// cost (what the policy compared with its capacity); marks sharing a spot
// are drawn above one another.
func (p LanePlot) Marks() []MarkPos {
	out := make([]MarkPos, 0, len(p.Lane.Marks))
	for _, m := range p.Lane.Marks {
		class := "mark refused"
		if m.Allowed {
			class = "mark admitted"
		}
		if m.Future {
			class += " future"
		}
		out = append(out, MarkPos{Mark: m, X: num(p.X(m.At)), Y: num(p.Y(m.Level) - float64(m.Stack)*11), Class: class})
	}
	return out
}

// Status is the text under the lane.
func (p LanePlot) Status() string { return p.Lane.Status(p.View.Clock.Now) }

// Transform places a mark's group.
func (m MarkPos) Transform() string { return "translate(" + m.X + " " + m.Y + ")" }

// ClockText shows the clock.
func ClockText(v play.View) string { return scenario.FormatMs(v.Clock.Now) }

// Sec shows ms as seconds for a number field.
func Sec(ms int64) string { return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64) }

// Itoa formats an integer.
func Itoa[T ~int | ~int64](n T) string { return strconv.FormatInt(int64(n), 10) }

// CountOf writes n and the noun, plural unless n is 1: "1 request", "0 requests".
func CountOf(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return Itoa(n) + " " + noun + "s"
}

// Has reports whether the scenario runs a lane like spec.
func Has(v play.View, name string, arithmetic policies.Arithmetic) bool {
	for _, s := range v.Scenario.Specs() {
		if s.Name == name && (arithmetic == "" || s.Params(v.Scenario).Arithmetic == arithmetic) {
			return true
		}
	}
	return false
}

// SpecOption returns an option of the scenario's first spec with that name
// (buckets or burst), or def.
func SpecOption(v play.View, name string, def int64) int64 {
	for _, s := range v.Scenario.Specs() {
		if s.Name == name {
			switch name {
			case policies.SlidingBuckets:
				return s.Params(v.Scenario).Buckets
			default:
				if s.Burst != 0 {
					return s.Burst
				}
			}
		}
	}
	return def
}

// FieldError returns the message for one error slot of the page.
func (pp PlayPage) FieldError(slot string) string { return SlotMessage(pp.Errors, slot) }

// SlotMessage joins the errors that belong next to one field of the page.
func SlotMessage(errs scenario.Errors, slot string) string {
	var msgs []string
	for _, e := range errs {
		if ErrorSlot(e.Field) == slot {
			if label, ok := fieldLabels[e.Field]; ok {
				e.Field = label
			}
			msgs = append(msgs, e.Error())
		}
	}
	return strings.Join(msgs, "; ")
}

// fieldLabels name a field next to its problem as the page labels it: the
// learner typed into "Window (s)", not "windowMs". The X-Problem header and
// other callers keep the field's JSON name.
var fieldLabels = map[string]string{
	"limit":        "Limit",
	"windowMs":     "Window (s)",
	"buckets":      "sliding-buckets k",
	"burst":        "Burst",
	"cost":         "Cost",
	"count":        "Burst of",
	"patternCount": "Requests",
	"span":         "Over (s)",
	"at":           "Jump to (s)",
	"step":         "Step",
	"speed":        "Speed",
	"client":       "Client",
	"selected":     "Selection",
}

// ErrorSlots are the places on the page where field errors appear.
var ErrorSlots = []string{"settings", "cost", "count", "pattern", "clock", "client", "selected", "load"}

// ErrorSlot says where an error about a field is shown.
func ErrorSlot(field string) string {
	switch {
	case field == "limit" || field == "windowMs" || strings.HasPrefix(field, "policies") || field == "buckets" || field == "burst":
		return "settings"
	case field == "cost":
		return "cost"
	case field == "count" || field == "requests":
		return "count"
	case field == "span" || field == "pattern" || field == "patternCount":
		return "pattern"
	case field == "at" || field == "step" || field == "speed":
		return "clock"
	case field == "client":
		return "client"
	case field == "selected":
		return "selected"
	}
	return "load"
}

// HeaderLines writes the explanation's headers as an HTTP response would.
func HeaderLines(e play.Explained) string {
	var b strings.Builder
	for i, h := range e.Headers {
		if i == 0 {
			b.WriteString("HTTP/1.1 " + h.Value)
			continue
		}
		b.WriteString("\n" + h.Name + ": " + h.Value)
	}
	return b.String()
}

// StateText describes a policy state in one line.
func StateText(policy string, s policies.State) string {
	est := scenario.FormatFraction(s.Estimate)
	switch policy {
	case policies.FixedWindow:
		return fmt.Sprintf("window from %s, count %d", scenario.FormatMs(s.WindowStart), s.Count)
	case policies.SlidingLog:
		ts := make([]string, len(s.Log))
		for i, t := range s.Log {
			ts[i] = scenario.FormatMs(t)
		}
		return fmt.Sprintf("%d in the log: [%s]", len(s.Log), strings.Join(ts, ", "))
	case policies.SlidingCounter:
		return fmt.Sprintf("window from %s, previous %d, current %d, estimate %s", scenario.FormatMs(s.WindowStart), s.Previous, s.Current, est)
	case policies.SlidingBuckets:
		cs := make([]string, len(s.Slots))
		for i, sl := range s.Slots {
			cs[i] = strconv.FormatInt(sl.Count, 10)
		}
		return fmt.Sprintf("slots [%s], estimate %s", strings.Join(cs, " "), est)
	case policies.TokenBucket:
		return fmt.Sprintf("tokens %s of %d", scenario.FormatFraction(s.Tokens), s.Capacity)
	case policies.GCRA:
		return fmt.Sprintf("TAT %s, in use %s", play.FormatInstant(s.TAT), est)
	}
	return "estimate " + est
}

// LatestSummary is the live region's text: every lane's latest decisions.
func LatestSummary(v play.View) string {
	parts := make([]string, 0, len(v.Lanes))
	for _, l := range v.Lanes {
		parts = append(parts, l.LatestText())
	}
	return strings.Join(parts, " ")
}

// playSignals declares the page's signals with the session's values. Names
// are camelCase; the page binds them with kebab-case attributes
// (data-bind-use-sliding-log for useSlidingLog), because HTML lower-cases
// attribute names and Datastar turns kebab-case back into camelCase.
func playSignals(pp PlayPage) string {
	v := pp.View
	sig := map[string]any{
		"limit":                  v.Scenario.Limit,
		"windowSeconds":          float64(v.Scenario.WindowMs) / 1000,
		"useFixedWindow":         Has(v, policies.FixedWindow, ""),
		"useSlidingLog":          Has(v, policies.SlidingLog, ""),
		"useSlidingCounterFloor": Has(v, policies.SlidingCounter, policies.Floor),
		"useSlidingCounterExact": Has(v, policies.SlidingCounter, policies.Exact),
		"useSlidingBuckets":      Has(v, policies.SlidingBuckets, ""),
		"buckets":                SpecOption(v, policies.SlidingBuckets, scenario.DefaultBuckets),
		"useTokenBucket":         Has(v, policies.TokenBucket, ""),
		"useGcra":                Has(v, policies.GCRA, ""),
		"burst":                  SpecOption(v, policies.TokenBucket, SpecOption(v, policies.GCRA, 0)),
		"bucketsShown":           SpecOption(v, policies.SlidingBuckets, scenario.DefaultBuckets),
		"burstShown":             SpecOption(v, policies.TokenBucket, SpecOption(v, policies.GCRA, 0)),
		"cost":                   v.Cost,
		"burstCount":             3,
		"pattern":                string(play.Steady),
		"patternCount":           10,
		"patternSeconds":         float64(v.Scenario.WindowMs) / 1000,
		"jumpSeconds":            float64(v.Clock.Now) / 1000,
		"speed":                  v.Clock.Speed.String(),
		"clientName":             "",
	}
	data, err := json.Marshal(sig)
	if err != nil {
		panic("templates: " + err.Error()) // numbers, strings and booleans only
	}
	return string(data)
}

// ShownSignals are the k and burst the settings form stands for once sc's
// lanes are applied (the signals bucketsshown and burstshown), as JSON.
func ShownSignals(sc scenario.Scenario) []byte {
	v := play.View{Scenario: sc}
	data, err := json.Marshal(map[string]int64{
		"bucketsShown": SpecOption(v, policies.SlidingBuckets, scenario.DefaultBuckets),
		"burstShown":   SpecOption(v, policies.TokenBucket, SpecOption(v, policies.GCRA, 0)),
	})
	if err != nil {
		panic("templates: " + err.Error()) // numbers only
	}
	return data
}

// MaxEmbeddedLink is the longest shared link the page embeds; a longer one
// is reached through the session's /link redirect, so the page and its
// updates stay small.
const MaxEmbeddedLink = 8 << 10

// MaxShownJSON is the longest scenario JSON the page shows in full; a longer
// one is offered as a download.
const MaxShownJSON = 16 << 10

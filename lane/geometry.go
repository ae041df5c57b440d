package lane

// The geometry of a lane: where each instant, count and mark goes in the
// SVG, and the paths and rectangles the components draw.

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/windowlab/playground/explain"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// Input is one lane to draw and the frame around it.
type Input struct {
	play.Lane
	// Client names whose requests the lane draws, for its text alternative.
	Client string
	// From and To are the span of time shown, in ms; Now is the clock.
	From, To, Now int64
}

// FromView takes lane l of a playground view, in the view's span.
func FromView(v play.View, l play.Lane) Input {
	return Input{Lane: l, Client: v.Client, From: v.From, To: v.To, Now: v.Clock.Now}
}

// Options say how a lane is drawn. The zero value draws a static lane of
// the default size over the input's span.
type Options struct {
	// SelectURL makes the lane interactive: a click on a mark posts the
	// page's signals to SelectURL?i=<the mark's request index>. Empty
	// draws a static lane.
	SelectURL string
	// Width and Height are the SVG's size in viewBox units; zero means
	// DefaultWidth or DefaultHeight. The plot keeps its margins for the
	// limit's label, the axis and its labels, so a lane is at least
	// MinWidth × MinHeight.
	Width, Height int
	// From and To, when To > From, show that span instead of the input's.
	From, To int64
	// Asked draws the lane while a workshop room's question about it is
	// open. The input should then hold only the requests before Cut (the
	// room replays them alone). The lane draws when each came and whether
	// it got in, and the counts of windows that ended by Cut: history the
	// learner reasons from. It draws nothing that states what the policy
	// holds at Cut or later, from which the answer could be read rather
	// than worked out: no curve, no heights (every mark sits at its cost),
	// no count of a window still open at Cut, no previous-window weight,
	// sub-buckets, log entries or TAT, and a status line without numbers.
	Asked bool
	Cut   int64
	// Follow makes a lane that is wider than its card (a phone) show the
	// clock's instant rather than the span's start: the scroller starts at
	// the end that holds it, a script then centres it, and a line says
	// which way there is more. A lesson's lanes follow the step told.
	Follow bool
	// NarrowWidth, when non-zero (PhoneWidth, on a phone), adds to the figure the same timeline
	// drawn NarrowWidth viewBox units wide (and as high), which lane.css
	// shows instead of the wide one while the lane's box is narrower
	// than 30rem (a phone's card). A drawing scaled to the card keeps
	// its units near a pixel each there: marks and labels at their size,
	// and the plot taller for the width. It doubles the lane's marks in
	// the page, so it suits a static lane of a few requests (an
	// exercise's answer), not one that streams.
	NarrowWidth int
	// FoldNodes draws each node's state under a lane on several servers
	// folded, a heading to open, for a screen whose lanes must fit (the
	// presentation view).
	FoldNodes bool
}

// The default size of a lane and the smallest one that still leaves room
// for the plot inside its labels, in viewBox units.
const (
	DefaultWidth  = 720
	DefaultHeight = 150
	MinWidth      = 200
	MinHeight     = 80
)

// PhoneWidth is a phone's lane width in viewBox units: a 720-unit lane
// drawn in a 320 px card would shrink its marks and labels below reading
// size.
const PhoneWidth = 360

// The plot's margins, in viewBox units: the limit's label sits left of the
// plot, band labels above it, the axis and its labels below.
const (
	marginLeft   = 40
	marginRight  = 8
	marginTop    = 18
	marginBottom = 26
)

// IndividualMarks is how many requests a lane draws as separate, clickable
// marks; beyond it the marks are drawn compactly as a few paths (selection
// then goes by the previous/next keys).
const IndividualMarks = 60

// plot is one lane in SVG coordinates.
type plot struct {
	Input
	opts                  Options
	from, to              int64
	width, height         int
	left, right, top, bot float64
	yMax                  float64
	// state draws what the lane's policy holds (drawingOf).
	state stateDrawing
	// skew is, on a node's timeline, how far the node's clock runs ahead
	// of the real one the axis shows (nodePlot).
	skew int64
	// noDisagreeRow says the drawing has no ▼ row (a node's timeline),
	// so marks may climb to the plot's top.
	noDisagreeRow bool
}

func newPlot(in Input, o Options) plot {
	p := plot{Input: in, opts: o, from: in.From, to: in.To,
		width: DefaultWidth, height: DefaultHeight, yMax: float64(in.Capacity) * 1.5, state: drawingOf(in.Policy)}
	if o.To > o.From {
		p.from, p.to = o.From, o.To
	}
	if o.Width != 0 {
		p.width = max(o.Width, MinWidth)
	}
	if o.Height != 0 {
		p.height = max(o.Height, MinHeight)
	}
	p.left, p.right = marginLeft, float64(p.width-marginRight)
	p.top, p.bot = marginTop, float64(p.height-marginBottom)
	if o.Asked {
		// Cleared as well as skipped below, so that a drawing added later
		// finds nothing to give away.
		p.Curve, p.State = nil, policies.State{}
		p.Lane.Marks = flatMarks(p.Lane.Marks)
	}
	if in.Deployment.Several() {
		// Across several servers the combined count passes the limit,
		// which is the point of the lane: the scale grows to show it
		// rather than pile what passed the limit at the top. It is
		// taken after a room's question has hidden the levels, which
		// a scale would otherwise give away.
		for _, m := range p.Lane.Marks {
			p.yMax = max(p.yMax, m.Level*1.1)
		}
		for _, pt := range p.Curve {
			p.yMax = max(p.yMax, pt.Value*1.1)
		}
	}
	return p
}

// flatMarks places every mark at its cost rather than at the level the
// policy compared with its capacity (which states the count before it),
// stacking the marks of one instant in order so each stays visible.
func flatMarks(marks []play.Mark) []play.Mark {
	out := make([]play.Mark, len(marks))
	for i, m := range marks {
		m.Level, m.Stack = float64(m.Cost), 0
		if i > 0 && out[i-1].At == m.At {
			m.Stack = out[i-1].Stack + 1
		}
		out[i] = m
	}
	return out
}

// narrow is the lane drawn at Options.NarrowWidth, with ids of its own,
// when it is asked for and narrower than the lane.
func (p plot) narrow() (plot, bool) {
	if p.opts.NarrowWidth == 0 || p.opts.NarrowWidth >= p.width {
		return plot{}, false
	}
	in, o := p.Input, p.opts
	in.ID += "-narrow"
	o.Width, o.NarrowWidth = p.opts.NarrowWidth, 0
	return newPlot(in, o), true
}

func itoa[T ~int | ~int64](n T) string { return strconv.FormatInt(int64(n), 10) }

func num(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

// px rounds a coordinate to a whole unit: a lane is some 720 units wide, so
// a unit is at most a pixel or two on screen.
func px(f float64) string { return strconv.Itoa(int(math.Round(f))) }

// X maps an instant to the horizontal axis.
func (p plot) X(t int64) float64 {
	span := float64(p.to - p.from)
	if span <= 0 {
		return p.left
	}
	return p.left + padX + float64(t-p.from)/span*(p.right-p.left-2*padX)
}

// Y maps a number of permits to the vertical axis (clamped to the plot).
func (p plot) Y(v float64) float64 {
	v = min(max(v, 0), p.yMax)
	return p.bot - v/p.yMax*(p.bot-p.top)
}

// ViewBox is the SVG viewBox.
func (p plot) ViewBox() string { return fmt.Sprintf("0 0 %d %d", p.width, p.height) }

// CurvePoints is the estimate curve as a polyline's points.
func (p plot) CurvePoints() string {
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
	if steps, ok := p.state.(stepper); ok && steps.steps() {
		// The count holds until the next point, then jumps: a line from
		// one sample to the next would slope where an entry left the
		// window between them.
		stepped := make([]pt, 0, 2*len(pts))
		for i, q := range pts {
			if i > 0 && q.y != pts[i-1].y && q.x != pts[i-1].x {
				stepped = append(stepped, pt{q.x, pts[i-1].y})
			}
			stepped = append(stepped, q)
		}
		pts = stepped
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
func (p plot) LimitY() string { return num(p.Y(float64(p.Capacity))) }

// Tick is one labelled instant on the time axis.
type Tick struct {
	X     string
	Label string
	// Anchor is the label's text-anchor: "middle", or "end" for a label
	// at the drawing's right edge, which centred would run past it (and
	// be cut off where the lane fills a phone's width).
	Anchor string
}

// Ticks labels the time axis at round instants: each multiple of
// TickStep's step inside the span, in one unit (seconds, or ms for a span
// inside the first second either side of 0).
func (p plot) Ticks() []Tick {
	// A label is at most some 7 characters ("40.05 s"), 50 units at the
	// largest size a stylesheet draws a lane's text: a narrow lane takes
	// fewer steps, so labels stay apart at every width and zoom. A step
	// of 100 units keeps them twice that apart, and gives a phone's
	// 360-unit lane three steps (0 s, 20 s, 40 s) rather than two.
	steps := max(int64((p.right-p.left)/100), 2)
	step := TickStepOf(p.to-p.from, steps)
	label := scenario.FormatSeconds
	if max(-p.from, p.to) <= 1000 {
		label = func(ms int64) string { return itoa(ms) + " ms" }
	}
	var out []Tick
	for t := ceilTo(p.from, step); t <= p.to; t += step {
		anchor := "middle"
		if p.X(t)+25 > float64(p.width) { // half the widest label
			anchor = "end"
		}
		out = append(out, Tick{X: num(p.X(t)), Label: label(t), Anchor: anchor})
	}
	return out
}

// TickPath is the axis's ticks, one path for all of them.
func (p plot) TickPath() string {
	var b strings.Builder
	h := p.tickEndY()
	for _, t := range p.Ticks() {
		b.WriteString("M" + t.X + " " + p.bottomY() + "V" + h)
	}
	return b.String()
}

// TickStep is the step between a time axis's labels: 1, 2 or 5 × 10ⁿ ms,
// the smallest of them that leaves at most six steps across span, so that
// the labels read 0 s, 5 s, 10 s rather than 0 s, 3.333 s, 6.666 s.
func TickStep(span int64) int64 { return TickStepOf(span, 6) }

// TickStepOf is TickStep for at most steps steps across span.
func TickStepOf(span, steps int64) int64 {
	for mag := int64(1); ; mag *= 10 {
		for _, m := range []int64{1, 2, 5} {
			if step := m * mag; step*steps >= span {
				return step
			}
		}
	}
}

// ceilTo is the first multiple of step at or after t.
func ceilTo(t, step int64) int64 {
	q := t / step
	if q*step < t {
		q++
	}
	return q * step
}

// FollowAt is where the clock is across the drawing, from 0 (its left
// edge) to 1, in thousandths: what a script centres a narrow lane on.
func (p plot) FollowAt() string {
	return strconv.Itoa(int(math.Round(p.X(p.Now) / float64(p.width) * 1000)))
}

// FollowEnd reports whether a narrow lane starts scrolled to its end: the
// clock is in the drawing's right half, which a card at least half the
// drawing's width then shows without a script.
func (p plot) FollowEnd() bool { return p.opts.Follow && p.X(p.Now)*2 > float64(p.width) }

// NowX is where the clock's line goes.
func (p plot) NowX() string { return num(p.X(p.Now)) }

// BandRect is one drawn window. Label is empty when the window is too
// narrow for it beside its neighbours' labels; Title says the same in
// words, for every window.
type BandRect struct {
	X, W, LabelX, Label, Title, Class string
	// Key names the window (its start), for a stable element id.
	Key string
}

// labelSize is the largest size, in viewBox units, a stylesheet draws a
// lane's text at (present.css on a projector; lane.css draws 11): window
// labels are spaced for it, so that they keep apart on every page.
const labelSize = 16

// labelWidth is a generous width for a window label in viewBox units. The
// renderer cannot measure text; the labels are digits, "/" and "?", and
// the widest bold sans-serif app.css can fall back to (DejaVu Sans Bold,
// on Linux) draws a digit 0.7 em wide and the others narrower.
func labelWidth(label string) float64 {
	ems := 0.0
	for _, r := range label {
		if unicode.IsDigit(r) {
			ems += 0.7
		} else {
			ems += 0.6
		}
	}
	return ems * labelSize
}

// labelGap is the least space left between two window labels.
const labelGap = labelSize / 2

// Bands are the windows of fixed-window and sliding-counter, each labelled
// with the permits admitted in it. Where windows are narrower than their
// labels, only every n-th window (counting from the epoch, so a label
// stays on its window as the clock moves) is labelled.
func (p plot) Bands() []BandRect {
	var out []BandRect
	var starts []int64
	var centres []float64
	widest := 0.0
	for i, b := range p.Windows {
		if b.Start >= p.to || b.End <= p.from {
			continue
		}
		// A window running past the span's end reaches the plot's edge,
		// through the margin the marks keep (padX).
		x0, x1 := p.X(b.Start), p.X(b.End)
		if b.Start <= p.from {
			x0 = p.left
		}
		if b.End >= p.to {
			x1 = p.right
		}
		class := "band"
		if i%2 == 1 {
			class = "band band-odd"
		}
		label := fmt.Sprintf("%d/%d", b.Admitted, p.Params.Limit)
		title := explain.WindowCount(b.Start, b.End, b.Admitted, p.Params.Limit)
		if p.opts.Asked && b.End > p.opts.Cut {
			// A window still open at the question counts what the policy
			// holds (fixed-window's count is its label).
			label = fmt.Sprintf("?/%d", p.Params.Limit)
			title = explain.WindowOpenWhileAsked(b.Start, b.End)
		}
		widest = max(widest, labelWidth(label))
		starts, centres = append(starts, b.Start), append(centres, (x0+x1)/2)
		out = append(out, BandRect{X: num(x0), W: num(x1 - x0), LabelX: num((x0 + x1) / 2),
			Label: label, Title: title, Class: class, Key: itoa(b.Start)})
	}
	p.thinLabels(out, starts, centres, widest)
	// Labels other drawings put in the row take precedence: a band's
	// count stays in its title.
	for _, r := range p.reservedRow() {
		for i := range out {
			half := labelWidth(out[i].Label) / 2
			c := centres[i]
			if out[i].Label != "" && c+half+labelGap/2 > r[0] && c-half-labelGap/2 < r[1] {
				out[i].Label = ""
			}
		}
	}
	return out
}

// reservedRow are the stretches of the row above the plot that the
// policy's own labels take (sliding-counter's previous-window weight,
// GCRA's TAT), as [left, right] in viewBox units.
func (p plot) reservedRow() [][2]float64 {
	var out [][2]float64
	if _, _, lx, label, ok := p.PrevWeight(); ok && lx != "" {
		x, _ := strconv.ParseFloat(lx, 64)
		out = append(out, [2]float64{x - labelWidth(label), x})
	}
	if l := p.DensityLabel(); l != "" {
		out = append(out, [2]float64{p.left, p.left + labelWidth(l)})
	}
	if lx, ok := p.TATX(); ok {
		x, _ := strconv.ParseFloat(lx, 64)
		out = append(out, [2]float64{x - labelWidth("TAT")/2, x + labelWidth("TAT")/2})
	}
	return out
}

// thinLabels clears the labels of bands that leave no room for them: all
// but every n-th window's, n the fewest windows as wide as the widest
// label, and then any (a window clipped at the plot's edge) that would
// still come too close to the label before it. starts and centres are
// each band's window start and label position.
func (p plot) thinLabels(bands []BandRect, starts []int64, centres []float64, widest float64) {
	w := p.Params.WindowMs
	across := p.X(p.from+w) - p.X(p.from)
	if w <= 0 || across <= 0 {
		return
	}
	every := max(int64(math.Ceil((widest+labelGap)/across)), 1)
	end := math.Inf(-1)
	for i := range bands {
		half := labelWidth(bands[i].Label) / 2
		// Counted in windows from the epoch (floored, for a span before
		// it), so that a label stays on its window as the clock moves.
		n := starts[i] / w
		if starts[i]%w < 0 {
			n--
		}
		if (n%every+every)%every != 0 || centres[i]-half < end+labelGap {
			bands[i].Label = ""
			continue
		}
		end = centres[i] + half
	}
}

// DisagreePath marks, along the top of the plot, the instants of requests
// the lanes decided differently: one downward triangle per instant, in
// the strip no mark enters (markCeil).
func (p plot) DisagreePath() string {
	var b strings.Builder
	for _, x := range p.disagreeXs() {
		b.WriteString("M" + itoa(int(x)-5) + " " + strconv.FormatFloat(p.top+disagreeTop, 'f', -1, 64) + "h10l-5 " + strconv.Itoa(disagreeH) + "z")
	}
	return b.String()
}

// disagreeXs are the centres of the ▼s, one per instant.
func (p plot) disagreeXs() []float64 {
	var out []float64
	last := math.NaN()
	for _, m := range p.Lane.Marks {
		if !m.Disagree {
			continue
		}
		x := math.Round(p.X(m.At))
		if x == last {
			continue
		}
		last = x
		out = append(out, x)
	}
	return out
}

// Dense reports whether the lane draws its marks compactly.
func (p plot) Dense() bool { return len(p.Lane.Marks) > IndividualMarks }

// DensePaths draws many marks as two paths, admitted dots (zero-length
// strokes with round caps) and refused crosses, and says where the
// selected request's ring goes.
func (p plot) DensePaths() (admitted, refused, selected string) {
	var a, r, sel strings.Builder
	type spot struct {
		x, y    int
		allowed bool
	}
	drawn := map[spot]bool{} // marks that would cover one another are drawn once
	tallest := p.tallestStacks()
	for _, m := range p.Lane.Marks {
		xi, yi := int(math.Round(p.X(m.At))), int(math.Round(p.stackY(m, tallest)))
		x, y := strconv.Itoa(xi), strconv.Itoa(yi)
		if m.Selected {
			sel.WriteString(x + " " + y)
		}
		at := spot{xi, yi, m.Allowed}
		if drawn[at] {
			continue
		}
		drawn[at] = true
		if m.Allowed {
			a.WriteString("M" + x + " " + y + "h0")
		} else {
			r.WriteString("M" + x + " " + y + "m-5-5l10 10m0-10l-10 10")
		}
	}
	return a.String(), r.String(), sel.String()
}

// The veil (lane.templ's laterVeil) is two boxes either side of its edge,
// each three drawings wide and high: the edge is held within a drawing's
// width of the drawing (LaterX), so that they cover it wherever the
// clock is.

// laterGap is how far right of the clock's line the veil's edge is: just
// clear of a mark at the clock (half a mark and its outline).
const laterGap = markSize/2 + 1.5

// LaterX is where the veil over the requests after the clock begins. With
// none, the veil stays put at the drawing's far right, fading nothing: a
// mask whose content moved each frame of a playing clock would have the
// browser paint every mark again as it moved.
func (p plot) LaterX() string {
	w := float64(p.width)
	if !p.anyLater() {
		return num(2 * w)
	}
	return num(min(max(p.X(p.Now)+laterGap, -w), 2*w))
}

// veilBox is the veil's left box, x, y, width and height; the right one
// starts at x 0.
func (p plot) veilBox() (x, y, w, h string) {
	return itoa(-3 * p.width), itoa(-p.height), itoa(3 * p.width), itoa(3 * p.height)
}

// veiled reports whether the lane draws marks, and so its veil.
func (p plot) veiled() bool { return len(p.Lane.Marks) > 0 }

// veilURL is what the lane's marks name as their mask: the veil.
func (p plot) veilURL() string { return "url(#" + p.ID + "-later)" }

// anyLater reports whether a drawn request is after the clock: only then
// does the veil fade what is right of its edge.
func (p plot) anyLater() bool {
	for _, m := range p.Lane.Marks {
		if m.Future {
			return true
		}
	}
	return false
}

// MarkPos is one request's drawing position.
type MarkPos struct {
	play.Mark
	X, Y  string
	Class string
	// Count is how many requests the mark stands for: those at one
	// instant, level and answer are drawn once (layoutMarks).
	Count int
	// labelLeft puts the node number on the mark's left (NodeLabelX).
	labelLeft bool
}

// markStep is how far apart marks sharing a spot are drawn.
const markStep = 11

// stackY is where a mark goes: at its level, lifted by its place in the
// stack. A tall stack (ten requests at one instant) is squeezed to fit
// between its level and the plot's top, so it never climbs out of its lane.
func (p plot) stackY(m play.Mark, tallest map[int64]int) float64 {
	base := min(max(p.Y(m.Level), p.markCeil()), p.markFloor())
	step := float64(markStep)
	if n := tallest[m.At]; n > 0 {
		step = min(step, max(base-p.markCeil(), 0)/float64(n))
	}
	return base - float64(m.Stack)*step
}

// tallestStacks is the highest stack number at each instant.
func (p plot) tallestStacks() map[int64]int {
	out := map[int64]int{}
	for _, m := range p.Lane.Marks {
		out[m.At] = max(out[m.At], m.Stack)
	}
	return out
}

// legend says what the lane draws besides the marks: while a question is
// open, not the curve and state it hides.
func (p plot) legend() string {
	if p.opts.Asked {
		return explain.LegendWhileAsked(p.Policy)
	}
	return p.Legend()
}

// key is the lane's one-line key: while a question is open none (the
// full legend names what the asked lane draws, the windows and the
// look-back), since a key of the policy's state names what it hides.
func (p plot) key() string {
	if p.opts.Asked {
		return ""
	}
	return keyOf(p.state)
}

// status is the text under the lane.
func (p plot) status() string {
	if p.opts.Asked {
		return explain.StatusWhileAsked(p.Now)
	}
	return p.Lane.Status(p.Now)
}

// summary is the lane's text alternative: what it shows, in words.
func (p plot) summary() string { return p.Lane.Summary(play.View{Client: p.Client}) }

// Whole-unit positions of the plot's edges and of the rows above and below
// it, as the SVG attributes take them.
func (p plot) leftX() string     { return itoa(int(p.left)) }
func (p plot) rightX() string    { return itoa(int(p.right)) }
func (p plot) topY() string      { return itoa(int(p.top)) }
func (p plot) bottomY() string   { return itoa(int(p.bot)) }
func (p plot) plotH() string     { return itoa(int(p.bot - p.top)) }
func (p plot) labelRowY() string { return itoa(int(p.top) - 4) }
func (p plot) tickEndY() string  { return itoa(int(p.bot) + 4) }

// tickTextY is the top of the time axis's labels, hung (dominant-baseline
// hanging) just below the ticks' ends: a label set on its baseline rose
// into its tick where the text is drawn larger (phones, the projector).
func (p plot) tickTextY() string { return itoa(int(p.bot) + 6) }
func (p plot) nowEndY() string   { return itoa(int(p.bot) + 6) }
func (p plot) limitTextX() string {
	return itoa(int(p.left) - 4)
}

// Transform places a mark's group.
func (m MarkPos) Transform() string { return "translate(" + m.X + " " + m.Y + ")" }

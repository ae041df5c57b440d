package lane

import (
	"fmt"
	"math"
	"strconv"

	"github.com/windowlab/playground/scenario"
)

// A question drawn as a lane: the lane drawing's question mode, for a
// lesson's prediction and an exercise before they are answered. It draws
// on a lane's time axis (the same span mapping, ticks and labels) only
// what a question states: when each request arrives, every one the same
// neutral mark with no decision; the instant asked about; the window's
// length as a scale, drawn without any window's edges (which, for a
// question about when a client gets in, would draw the answer). No limit,
// no count, no state. The learner answers on the marks (a lesson's
// script); a row is one lane's answer in a question about several
// (QuestionStrip per row, QuestionAxis once under them).

// Question is what a question states, to draw.
type Question struct {
	// From and To are the span of time shown, in ms.
	From, To int64
	// Requests are the question's traffic, in time order.
	Requests []scenario.Request
	// Window is the window's length, drawn as a scale; WindowLabel its
	// words ("one window: 30 s").
	Window      int64
	WindowLabel string
	// Asked marks the instant AskAt with a dashed line, labelled AskLabel
	// under the axis; AskMark also draws the asked request, a "?" on top
	// of the column at its instant.
	Asked    bool
	AskMark  bool
	AskAt    int64
	AskLabel string
	// Unlabelled leaves the ticks without labels (a question about a
	// moment, whose answer a labelled instant could seem to give).
	Unlabelled bool
	// MinStack is the least marks a row has room for (a question about one
	// request leaves room for its mark on top of a column); MaxStack the
	// most drawn in one column (0 is QuestionMaxStack), a taller column
	// drawn this high with its count beside it.
	MinStack, MaxStack int64
}

// QuestionWidth is a question's drawing's width in viewBox units.
const QuestionWidth = 360

// QuestionMaxStack is the most marks drawn in one column by default, each
// one the learner can mark.
const QuestionMaxStack = 15

// The question's marks: a dot of radius questionMarkR, stacked
// questionMarkDy apart at one instant, or edge to edge in a tall column.
const (
	questionMarkR  = 6
	questionMarkDy = 15
	questionAxisH  = 48
)

// QuestionDrawing is a Question laid out.
type QuestionDrawing struct {
	p     plot
	RowH  int
	Marks []QuestionMark
	Ask   *QuestionMark // the asked request's mark; nil without one
	// AskX is where the asked instant is, AskLabel its label; "" without.
	AskX, AskLabel string
	Ticks          []Tick
	// The window's scale, from ScaleX1 to ScaleX2.
	ScaleX1, ScaleX2, ScaleLabel string
	// Total is the requests drawn, Tallest the most in one column.
	Total, Tallest int64
}

// QuestionMark is one request's neutral mark: its number (from 1), where
// it is drawn, its name in words, and, on the top mark of a column drawn
// shorter than it is or holding several instants, the column's count.
type QuestionMark struct {
	Index int
	X, Y  string
	Name  string
	More  string
}

// LayOutQuestion lays a question out on a lane's time axis.
func LayOutQuestion(q Question) QuestionDrawing {
	p := newPlot(Input{From: q.From, To: q.To}, Options{Width: QuestionWidth})
	d := QuestionDrawing{p: p}
	// Requests closer than a mark's width share a column: instants that
	// would overprint are drawn as one stack, with its count beside it.
	type column struct {
		x     float64
		n     int64
		first int
		many  bool
	}
	var cols []*column
	colAt := map[int64]*column{}
	for _, r := range q.Requests {
		n := max(r.Count, 1)
		c := colAt[r.At]
		if c == nil {
			if k := len(cols); k > 0 && p.X(r.At)-cols[k-1].x < 2*questionMarkR+2 {
				c = cols[k-1]
				c.many = true
			} else {
				c = &column{x: p.X(r.At), first: int(d.Total) + 1}
				cols = append(cols, c)
			}
			colAt[r.At] = c
		}
		c.n += n
		d.Total += n
	}
	for _, c := range cols {
		d.Tallest = max(d.Tallest, c.n)
	}
	maxStack := q.MaxStack
	if maxStack <= 0 {
		maxStack = QuestionMaxStack
	}
	drawn := min(d.Tallest, maxStack)
	dy := questionMarkDy
	if drawn > 8 {
		dy = 2*questionMarkR + 1 // a tall column packs its marks edge to edge
	}
	d.RowH = int(max(drawn, q.MinStack))*dy + 18
	markY := func(k int64) string { return qnum(float64(d.RowH) - 10 - float64(k*int64(dy))) }
	seen := map[*column]int64{}
	i := 0
	for _, r := range q.Requests {
		c := colAt[r.At]
		for range max(r.Count, 1) {
			i++
			k := seen[c]
			seen[c]++
			if k >= maxStack {
				continue
			}
			m := QuestionMark{Index: i, X: qnum(c.x), Y: markY(k), Name: fmt.Sprintf("Request %d, at %s", i, scenario.FormatMs(r.At))}
			if k == min(c.n, maxStack)-1 && (c.n > maxStack || c.many) {
				m.More = "×" + strconv.FormatInt(c.n, 10)
			}
			d.Marks = append(d.Marks, m)
		}
	}
	if q.Asked {
		d.AskX, d.AskLabel = qnum(p.X(q.AskAt)), q.AskLabel
	}
	if q.Asked && q.AskMark {
		// The asked request stands on top of the column at its instant.
		under := int64(0)
		if c := colAt[q.AskAt]; c != nil {
			under = c.n
		}
		d.Ask = &QuestionMark{X: d.AskX, Y: markY(min(under, maxStack-1)), Name: "The request at " + scenario.FormatMs(q.AskAt)}
	}
	// The lane's ticks; the asked instant's own label takes the place of a
	// tick's near it.
	for _, t := range p.Ticks() {
		x, _ := strconv.ParseFloat(t.X, 64)
		if q.Unlabelled || (q.Asked && math.Abs(x-p.X(q.AskAt)) < 36) {
			t.Label = ""
		}
		d.Ticks = append(d.Ticks, t)
	}
	x0 := p.X(q.From)
	w := p.X(q.To) - x0
	wx := min(float64(q.Window)/float64(max(q.To-q.From, 1))*w, w)
	d.ScaleX1, d.ScaleX2, d.ScaleLabel = qnum(x0), qnum(x0+wx), q.WindowLabel
	return d
}

// X is where an instant is across the drawing, in viewBox units.
func (d QuestionDrawing) X(t int64) string { return qnum(d.p.X(t)) }

func (d QuestionDrawing) viewBox(h int) string {
	return "0 0 " + strconv.Itoa(QuestionWidth) + " " + strconv.Itoa(h)
}

func qnum(f float64) string {
	return strconv.FormatFloat(math.Round(f*10)/10, 'f', -1, 64)
}

package lessons

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/a-h/templ"

	"github.com/windowlab/playground/ask"
	"github.com/windowlab/playground/exercises"
	weblane "github.com/windowlab/playground/lane"
	"github.com/windowlab/playground/scenario"
)

// A prediction's picture: the question drawn before it is answered, so
// that a lesson shows its traffic before it asks about it, and the learner
// can answer on the picture itself. It draws only what the question states
// (when each request arrives, the window's length as a scale, the instant
// asked about), never a decision: every mark is the same neutral shape
// until the learner marks it. web/static/lessons-picture.js makes the
// marks answer (a click or Space marks a request as one that gets through;
// a marker dragged, or moved with the arrow keys, picks a moment) and
// writes the answer into the block's own fields, which stay the way to
// answer without a pointer or without scripts, and are checked by the same
// ask kind.

// Picture modes: how the learner answers on the picture.
const (
	pictureCount   = "count"   // mark the requests that get through; their number is the answer
	pictureOutcome = "outcome" // mark the asked request as getting through or not
	pictureWhich   = "which"   // mark, lane by lane, whether the asked request gets through
	pictureMoment  = "moment"  // move a marker to the moment a request first gets through
)

// pictureMaxMarks bounds the requests a count picture lets the learner mark
// one by one; beyond it (or with more than pictureMaxStack at one instant)
// the picture is drawn for reading only and the typed answer is the way.
const (
	pictureMaxMarks = 100
	pictureMaxStack = 15
)

// The picture's size in viewBox units: a strip per row and an axis under
// the rows.
const (
	pictureWidth  = 480
	pictureLeft   = 16
	pictureRight  = 16
	pictureMarkR  = 6
	pictureMarkDy = 15 // between marks stacked at one instant
	pictureAxisH  = 30
)

// pictureView is one prediction's picture.
type pictureView struct {
	ID   string // the prediction's id
	Mode string // one of the picture modes, or "" for a picture to read only
	// Desc is the picture's text alternative: the question's traffic.
	Desc   string
	Rows   []pictureRow
	RowH   int
	Ticks  []pictureTick
	Window pictureScale
	// AskX is the instant asked about, for outcome, which and moment; Ask
	// its label.
	AskX string
	Ask  string
	// Moment's marker: a range over [From, To] in Step ms, which the
	// script turns into the answer's time.
	From, To, Step int64
	MomentToX      string // where To is across the picture
	Fields         string // the form the picture answers into
}

// pictureRow is one strip of marks: the whole question's, or one lane's
// (for which), whose Label is then the lane's choice's label, tied to its
// checkbox by For.
type pictureRow struct {
	Label, For, Value string
	Marks             []pictureMark
	Asked             *pictureMark
}

// pictureMark is one request, at X; Y is its height in the row's column
// (requests at one instant stack); Name says it in words.
type pictureMark struct {
	X, Y  string
	Index int
	Name  string
	// More is, on a column too tall to draw, the count drawn beside it.
	More string
}

type pictureTick struct{ X, Label string }

// pictureScale is the window's length drawn as a bracket, so that the
// picture says the setting without drawing any window's edges (which, for
// a question about when a client gets in, would draw the answer).
type pictureScale struct{ X1, X2, Label string }

func (v pictureView) ViewBox(h int) string {
	return "0 0 " + strconv.Itoa(pictureWidth) + " " + strconv.Itoa(h)
}

// newPicture draws the question of instance in, or returns nil when it has
// no traffic to draw (the ring's size for a cache line, a stack).
func newPicture(id string, in exercises.Instance, form string, choices []predictChoice) *pictureView {
	kind := in.Exercise.Ask
	q := in.Asked()
	reqs := q.Scenario.Requests
	var at int64
	switch kind {
	case exercises.AskCount:
	case exercises.AskOutcome, exercises.AskWhich, exercises.AskFirstAdmit:
		if q.Request == nil {
			return nil
		}
		at = q.Request.At
		var before []scenario.Request
		for _, r := range reqs {
			if r.At < at {
				before = append(before, r)
			}
		}
		reqs = before
	default:
		return nil
	}
	if kind == exercises.AskCount && len(reqs) == 0 {
		return nil
	}
	window := q.Scenario.WindowMs
	if len(q.Lanes) > 0 {
		window = q.Lanes[0].Spec.Params(q.Scenario).WindowMs
	}
	from, to := int64(0), int64(0)
	for i, r := range reqs {
		if i == 0 || r.At < from {
			from = r.At
		}
		to = max(to, r.At)
	}
	if kind != exercises.AskCount {
		if len(reqs) == 0 {
			from = at
		}
		to = max(to, at)
	}
	if kind == exercises.AskFirstAdmit {
		to = max(to, at+2*window)
	}
	// Room either side of the first and last marks, and at least a window
	// in view so that the scale fits.
	span := max(to-from, window, 1)
	pad := span / 12
	from, to = max(from-pad, min(from, 0)), to+pad
	if from < 0 && min(reqs0(reqs), at) >= 0 {
		from = 0
	}
	w := float64(pictureWidth - pictureLeft - pictureRight)
	x := func(t int64) float64 { return pictureLeft + float64(t-from)/float64(to-from)*w }
	v := &pictureView{ID: id, Fields: "predict-" + id + "-form"}

	// Requests closer than a mark's width share a column: instants that
	// would overprint are drawn as one stack, with its count beside it.
	type column struct {
		x     float64
		n     int64
		first int // the first request's number (from 1)
		many  bool
	}
	var colsList []*column
	colAt := map[int64]*column{}
	total := int64(0)
	for _, r := range reqs {
		n := max(r.Count, 1)
		c := colAt[r.At]
		if c == nil {
			if k := len(colsList); k > 0 && x(r.At)-colsList[k-1].x < 2*pictureMarkR+2 {
				c = colsList[k-1]
				c.many = true
			} else {
				c = &column{x: x(r.At), first: int(total) + 1}
				colsList = append(colsList, c)
			}
			colAt[r.At] = c
		}
		c.n += n
		total += n
	}
	tallest := int64(0)
	for _, c := range colsList {
		tallest = max(tallest, c.n)
	}
	drawn := min(tallest, pictureMaxStack)
	// A tall column packs its marks edge to edge.
	dy := pictureMarkDy
	if drawn > 8 {
		dy = 2*pictureMarkR + 1
	}
	v.RowH = int(drawn)*dy + 18
	if kind != exercises.AskCount {
		v.RowH = max(v.RowH, 2*dy+18)
	}
	markY := func(k int64) string { return pnum(float64(v.RowH) - 10 - float64(k*int64(dy))) }
	marks := func() []pictureMark {
		var out []pictureMark
		seen := map[*column]int64{}
		i := 0
		for _, r := range reqs {
			c := colAt[r.At]
			for range max(r.Count, 1) {
				i++
				k := seen[c]
				seen[c]++
				if k >= pictureMaxStack {
					continue
				}
				m := pictureMark{X: pnum(c.x), Y: markY(k), Index: i,
					Name: fmt.Sprintf("Request %d, at %s", i, scenario.FormatMs(r.At))}
				if k == min(c.n, pictureMaxStack)-1 && (c.n > pictureMaxStack || c.many) {
					m.More = "×" + strconv.FormatInt(c.n, 10)
				}
				out = append(out, m)
			}
		}
		return out
	}
	// The asked request stands on top of the column at its instant.
	under := int64(0)
	if c := colAt[at]; c != nil {
		under = c.n
	}
	asked := func() *pictureMark {
		k := min(under, pictureMaxStack-1)
		return &pictureMark{X: pnum(x(at)), Y: markY(k), Name: "The request at " + scenario.FormatMs(at)}
	}
	switch kind {
	case exercises.AskCount:
		if total <= pictureMaxMarks && tallest <= pictureMaxStack {
			v.Mode = pictureCount
		}
		v.Rows = []pictureRow{{Marks: marks()}}
	case exercises.AskOutcome:
		if form == "radio" {
			v.Mode = pictureOutcome
		}
		v.Rows = []pictureRow{{Marks: marks(), Asked: asked()}}
	case exercises.AskWhich:
		v.Mode = pictureWhich
		for i, c := range choices {
			if c.Value == "none" {
				continue
			}
			v.Rows = append(v.Rows, pictureRow{Label: c.Label, For: choiceID(id, i), Value: c.Value, Marks: marks(), Asked: asked()})
		}
	case exercises.AskFirstAdmit:
		v.Mode = pictureMoment
		v.Rows = []pictureRow{{Marks: marks()}}
		v.From, v.To = at, at+ask.HorizonWindows*window
		v.To = min(v.To, to)
		v.Step = momentStep(v.To - v.From)
		v.MomentToX = pnum(x(v.To))
	}
	if kind == exercises.AskOutcome || kind == exercises.AskWhich {
		v.AskX, v.Ask = pnum(x(at)), scenario.FormatMs(at)
	}
	if v.Mode == pictureMoment {
		v.AskX, v.Ask = pnum(x(at)), "from "+scenario.FormatMs(at)
	}
	// The axis: ticks at round instants. A moment question's ticks carry no
	// labels but its start: a labelled instant could be read as the answer.
	step := weblane.TickStep(to - from)
	for t := (from + step - 1) / step * step; t <= to; t += step {
		tk := pictureTick{X: pnum(x(t))}
		// The asked instant's own label takes the place of a tick's near it.
		if kind != exercises.AskFirstAdmit && (v.AskX == "" || math.Abs(x(t)-x(at)) > 36) {
			tk.Label = scenario.FormatMs(t)
		}
		v.Ticks = append(v.Ticks, tk)
	}
	wx := min(float64(window)/float64(to-from)*w, w)
	v.Window = pictureScale{X1: pnum(pictureLeft), X2: pnum(pictureLeft + wx), Label: "one window: " + scenario.FormatMs(window)}
	if kind == exercises.AskFirstAdmit {
		// A length in the text could read as the moment asked for (a
		// sliding log's first admit is often a window after a request).
		v.Window.Label = "one window"
	}
	v.Desc = pictureDesc(reqs, total, window, kind, at)
	return v
}

func reqs0(reqs []scenario.Request) int64 {
	if len(reqs) == 0 {
		return 0
	}
	return reqs[0].At
}

// momentStep is the marker's step over a span: about 300 steps, rounded to
// 1, 2 or 5 × 10ⁿ ms, as the lane rounds its ticks.
func momentStep(span int64) int64 { return weblane.TickStepOf(span, 300) }

// pictureDesc says in words what the picture draws: the traffic, grouped
// by instant, and the window; never a decision.
func pictureDesc(reqs []scenario.Request, total int64, window int64, kind string, at int64) string {
	var parts []string
	for _, r := range reqs {
		n := max(r.Count, 1)
		if len(parts) >= 12 {
			parts = append(parts, "and more")
			break
		}
		parts = append(parts, fmt.Sprintf("%d at %s", n, scenario.FormatMs(r.At)))
	}
	s := fmt.Sprintf("The question's traffic: %d requests", total)
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	s += ", against a window of " + scenario.FormatMs(window) + "."
	if kind != exercises.AskCount {
		s += " The question is about a request at " + scenario.FormatMs(at) + "."
	}
	return s
}

func pnum(f float64) string {
	return strconv.FormatFloat(math.Round(f*10)/10, 'f', -1, 64)
}

// QuestionPicture draws an exercise's question as a lesson draws a
// prediction's: its traffic as neutral marks above the exercise's own form
// (formID), answered on the picture where the question allows it. The form
// has the fields a prediction's has (the typed "answer", the "choice"
// boxes of a which-question), so lessons-picture.js writes into it as it
// does into a prediction's. choiceIDs are the ids of the boxes, by value,
// which a which-question's rows are labels for. Nil when the question has
// no traffic to draw.
func QuestionPicture(id string, in exercises.Instance, formID string, choiceIDs map[string]string) templ.Component {
	var choices []predictChoice
	for _, lane := range in.Exercise.Lanes() {
		choices = append(choices, predictChoice{Value: lane, Label: exercises.Label(lane)})
	}
	v := newPicture(id, in, "text", choices)
	if v == nil {
		return nil
	}
	v.Fields = formID
	for i := range v.Rows {
		v.Rows[i].For = choiceIDs[v.Rows[i].Value]
	}
	return askPicture(*v)
}

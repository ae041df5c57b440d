package lessons

import (
	"fmt"
	"strings"

	"github.com/a-h/templ"

	"github.com/windowlab/playground/ask"
	"github.com/windowlab/playground/exercises"
	weblane "github.com/windowlab/playground/lane"
	"github.com/windowlab/playground/scenario"
)

// A prediction's picture: the question drawn before it is answered, so
// that a lesson shows its traffic before it asks about it, and the learner
// can answer on the picture itself. The lane drawing draws it, in its
// question mode (lane.Question), on a lane's time axis: only what the
// question states (when each request arrives, the window's length as a
// scale, the instant asked about), never a decision: every mark is the
// same neutral shape until the learner marks it. Here is what the
// question states and how it is answered. web/static/lessons-picture.js makes the
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
// one by one; beyond it (or with more at one instant than the drawing
// stacks, lane.QuestionMaxStack) the picture is drawn for reading only and
// the typed answer is the way.
const pictureMaxMarks = 100

// readStack is the most marks drawn at one instant in a picture whose
// traffic is read, not marked (a question about one request or a moment).
const readStack = 5

// pictureView is one prediction's picture.
type pictureView struct {
	ID   string // the prediction's id
	Mode string // one of the picture modes, or "" for a picture to read only
	// Desc is the picture's text alternative: the question's traffic.
	Desc string
	// Drawing is the question drawn by the lane drawing's question mode,
	// a strip a row.
	Drawing weblane.QuestionDrawing
	Rows    []pictureRow
	// Moment's marker: a range over [From, To] in Step ms, which the
	// script turns into the answer's time, across the drawing from
	// MomentFromX to MomentToX.
	From, To, Step         int64
	MomentFromX, MomentToX string
	Fields                 string // the form the picture answers into
}

// pictureRow is one strip of marks: the whole question's, or one lane's
// (for which), whose Label is then the lane's choice's label, tied to its
// checkbox by For.
type pictureRow struct {
	Label, For, Value string
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
	v := &pictureView{ID: id, Fields: "predict-" + id + "-form"}
	qd := weblane.Question{From: from, To: to, Requests: reqs, Window: window, WindowLabel: "one window: " + scenario.FormatMs(window)}
	switch kind {
	case exercises.AskOutcome, exercises.AskWhich:
		qd.Asked, qd.AskMark, qd.AskAt, qd.AskLabel = true, true, at, scenario.FormatMs(at)
		// Only the asked request is answered on: the traffic before it is
		// there to read, a column of a few marks and its count, so that a
		// row a lane stays short.
		qd.MinStack, qd.MaxStack = 2, readStack
	case exercises.AskFirstAdmit:
		// No labelled instant but its start, and no length in words: either
		// could read as the moment asked for (a sliding log's first admit
		// is often a window after a request).
		qd.Asked, qd.AskAt, qd.AskLabel = true, at, "from "+scenario.FormatMs(at)
		qd.Unlabelled, qd.WindowLabel = true, "one window"
		qd.MinStack, qd.MaxStack = 2, readStack
	}
	v.Drawing = weblane.LayOutQuestion(qd)
	switch kind {
	case exercises.AskCount:
		if v.Drawing.Total <= pictureMaxMarks && v.Drawing.Tallest <= weblane.QuestionMaxStack {
			v.Mode = pictureCount
		}
		v.Rows = []pictureRow{{}}
	case exercises.AskOutcome:
		if form == "radio" {
			v.Mode = pictureOutcome
		}
		v.Rows = []pictureRow{{}}
	case exercises.AskWhich:
		v.Mode = pictureWhich
		for i, c := range choices {
			if c.Value == "none" {
				continue
			}
			v.Rows = append(v.Rows, pictureRow{Label: c.Label, For: choiceID(id, i), Value: c.Value})
		}
	case exercises.AskFirstAdmit:
		v.Mode = pictureMoment
		v.Rows = []pictureRow{{}}
		v.From, v.To = at, min(at+ask.HorizonWindows*window, to)
		v.Step = momentStep(v.To - v.From)
		v.MomentFromX, v.MomentToX = v.Drawing.X(v.From), v.Drawing.X(v.To)
	}
	v.Desc = pictureDesc(reqs, v.Drawing.Total, window, kind, at)
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

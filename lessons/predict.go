package lessons

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"net/url"
	"slices"
	"strconv"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/windowlab/playground/ask"
	"github.com/windowlab/playground/exercises"
	"github.com/windowlab/playground/scenario"
)

// A ```predict block asks the learner to commit a prediction before the
// computed example below it is shown: predict, observe, explain. Its body
// is either a reference to an exercise,
//
//	{"exercise": "fw-car-park-count"}
//
// or a question written like an exercise file, without its title and
// lesson (the scenario may be one of the lesson's own ```scenario blocks):
//
//	{"scenario": "car-park", "policy": "sliding-counter/exact", "ask": "outcome", "at": "35 s",
//	 "question": "Is the car at 35 s admitted?"}
//
// Everything from the block down to the next ```predict-end fence is the
// example it guards: it stays in the page, inside a closed <details>, so a
// reader without JavaScript can still open it, and the page's script opens
// it once the prediction is checked. The answer is never in the block: the
// server works it out when the prediction is sent (web's check endpoint
// calls Prediction.Exercise's Check), from the same policies as the
// exercises.

// Prediction is one ```predict block of a lesson.
type Prediction struct {
	// ID names the prediction within its lesson: in the page, in the
	// address it is checked at, and in the browser's storage. It is the
	// exercise's id, the block's "id", or "prediction-N" for the N-th block.
	ID       string
	Exercise *exercises.Exercise
}

// Blocks of these kinds belong to predictions.
const (
	predictKind    = "predict"
	predictEndKind = "predict-end"
)

// lessonCatalog resolves a prediction's scenario among the lesson's own
// ```scenario blocks first, then the library's.
type lessonCatalog struct {
	lib   *Library
	local map[string]scenario.Scenario
}

func (c lessonCatalog) Scenario(name string) (scenario.Scenario, error) {
	if s, ok := c.local[name]; ok {
		return s, nil
	}
	return c.lib.Scenario(name)
}

func (c lessonCatalog) HasLesson(slug string) bool { return c.lib.HasLesson(slug) }

// parsePrediction reads the n-th (from 1) predict block of lesson l.
func parsePrediction(lib *Library, l *Lesson, local map[string]scenario.Scenario, n int, body []byte) (*Prediction, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return nil, fmt.Errorf("reading the block's JSON: %v", err)
	}
	if raw, ok := fields["exercise"]; ok {
		if len(fields) > 1 {
			return nil, fmt.Errorf("a block naming an exercise takes nothing else: the exercise holds the question")
		}
		var id string
		if err := json.Unmarshal(raw, &id); err != nil {
			return nil, fmt.Errorf("exercise: want an exercise id as a string")
		}
		if lib.Exercises == nil {
			return nil, fmt.Errorf("exercise %q: no exercises are loaded", id)
		}
		e := lib.Exercises.Get(id)
		if e == nil {
			return nil, fmt.Errorf("no exercise %q in exercises/", id)
		}
		return &Prediction{ID: e.ID, Exercise: e}, nil
	}
	for _, f := range []string{"title", "lesson", "vary"} {
		if _, ok := fields[f]; ok {
			return nil, fmt.Errorf("%s: a prediction takes its question from \"question\" and belongs to its lesson; leave %s out", f, f)
		}
	}
	id := "prediction-" + strconv.Itoa(n)
	if raw, ok := fields["id"]; ok {
		if err := json.Unmarshal(raw, &id); err != nil {
			return nil, fmt.Errorf("id: want a string")
		}
	}
	fields["title"] = fields["question"]
	fields["lesson"], _ = json.Marshal(l.Slug)
	data, err := json.Marshal(fields)
	if err != nil {
		return nil, err
	}
	e, err := exercises.Parse(data, id+".json", lessonCatalog{lib: lib, local: local})
	if err != nil {
		return nil, err
	}
	return &Prediction{ID: e.ID, Exercise: e}, nil
}

// Predictions reads the lesson's ```predict blocks, in order, without
// rendering the lesson: the check endpoint needs only the questions.
func (lib *Library) Predictions(l *Lesson) ([]*Prediction, error) {
	src := []byte(l.Body)
	doc := goldmark.DefaultParser().Parse(text.NewReader(src))
	local := map[string]scenario.Scenario{}
	var blocks [][]byte
	err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		fb, ok := n.(*ast.FencedCodeBlock)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		switch kind, arg := blockInfo(fb, src); kind {
		case "scenario":
			if s, err := scenario.Parse(blockBody(fb, src)); err == nil {
				local[arg] = s
			}
		case predictKind:
			blocks = append(blocks, blockBody(fb, src))
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		return nil, err
	}
	var out []*Prediction
	seen := map[string]bool{}
	for i, body := range blocks {
		p, err := parsePrediction(lib, l, local, i+1, body)
		if err != nil {
			return nil, fmt.Errorf("lessons: %s: ```predict block %d: %w", l.File, i+1, err)
		}
		if seen[p.ID] {
			return nil, fmt.Errorf("lessons: %s: ```predict block %d: a second prediction with id %q", l.File, i+1, p.ID)
		}
		seen[p.ID] = true
		out = append(out, p)
	}
	return out, nil
}

// PredictionURL is where a prediction is checked.
func PredictionURL(slug, id string) string { return "/lessons/" + slug + "/predictions/" + id }

// predictView is what the block's component shows.
type predictView struct {
	ID       string
	Action   string
	Question string
	// Form is how the answer is given: "radio" (one of Choices), "boxes"
	// (ticking Choices) or "text"; Numeric asks a text for a number.
	Form    string
	Numeric bool
	Choices []predictChoice
	Hint    string
	// Exercise is the exercise page asking the same question, with its
	// variants, when the block names one.
	Exercise string
	// Open are the examples the page has open: the form carries them, so
	// the page it leads back to (without the page's script) keeps them
	// open beside this one.
	Open []string
	// Tried says the page was reached back from a first wrong try at this
	// prediction (?tried=ID), which the form then counts.
	Tried bool
	// Picture draws the question before the form (picture.go); nil for a
	// question with no traffic to draw.
	Picture *pictureView
}

type predictChoice struct {
	Value string
	Label string
}

// predict renders a ```predict block and opens the region it guards.
func (st *renderState) predict(body []byte) (template.HTML, error) {
	if st.openPredict != "" {
		return "", fmt.Errorf("a ```predict block inside the example that prediction %q guards: close that one first with a ```predict-end fence", st.openPredict)
	}
	n := st.blockSeen[predictKind]
	p, err := parsePrediction(st.lib, st.lesson, st.local, n, body)
	if err != nil {
		return "", err
	}
	in := p.Exercise.Instance(0)
	sol, err := in.Solve()
	if err != nil {
		return "", err
	}
	v := predictView{ID: p.ID, Action: PredictionURL(st.lesson.Slug, p.ID), Question: in.Question(), Form: "text",
		Numeric: ask.AnswersInWholeNumbers(p.Exercise.Ask), Hint: PredictionHint(in, sol), Open: st.pageOpen(),
		Tried: slices.Contains(st.in[triedParam], p.ID)}
	if st.lib.Exercises != nil && st.lib.Exercises.Get(p.ID) == p.Exercise {
		v.Exercise = "/exercises/" + p.ID
	}
	if ask.Ticks(p.Exercise.Ask) {
		v.Form = "boxes"
		for _, lane := range p.Exercise.Lanes() {
			v.Choices = append(v.Choices, predictChoice{Value: lane, Label: exercises.Label(lane)})
		}
		v.Choices = append(v.Choices, predictChoice{Value: "none", Label: "none of them"})
	} else if q := in.Asked(); len(q.Lanes) == 1 {
		// A single lane's one-tap values, as radio buttons of their words.
		k := p.Exercise.Kind()
		for _, c := range k.Choices(q) {
			v.Form = "radio"
			v.Choices = append(v.Choices, predictChoice{Value: k.Word(q, c), Label: k.Word(q, c)})
		}
	}
	v.Picture = newPicture(p.ID, in, v.Form, v.Choices)
	var b bytes.Buffer
	if err := predictBlock(v).Render(context.Background(), &b); err != nil {
		return "", err
	}
	st.openPredict = p.ID
	st.out.Predictions = append(st.out.Predictions, p)
	// A page drawn from a link or form inside an example (a lanes step, a
	// k, a traffic shape) names that example's prediction in ?open=, so the
	// example the visitor was reading stays open and no other one does:
	// stepping through one example must not reveal the next one's answer.
	return template.HTML(b.String() + revealOpen(p.ID, slices.Contains(st.in[openParam], p.ID))), nil //nolint:gosec // templ output and a fixed tag around an id of [a-z0-9-]
}

// triedParam names, in a lesson's query, the prediction just tried wrongly
// once without the page's script (web's PredictionResult.BackURL).
const triedParam = "tried"

// openParam names, in a lesson's query, the predictions whose examples are
// drawn open: the links and forms inside an example add their own.
const openParam = "open"

// maxOpen bounds the ?open= values a page carries on in its links and
// forms: a lesson asks a handful of predictions, so a longer list is not
// one the site made, and each form would otherwise repeat all of it.
const maxOpen = 32

// pageOpen are the examples the page's query draws open, each once, at most
// maxOpen of them.
func (st *renderState) pageOpen() []string {
	var out []string
	for _, id := range st.in[openParam] {
		if len(out) == maxOpen {
			break
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// keepOpen adds the prediction whose example is being rendered to a query
// that a link or form inside it will carry.
func (st *renderState) keepOpen(q url.Values) url.Values {
	if st.openPredict != "" && !slices.Contains(q[openParam], st.openPredict) {
		q.Add(openParam, st.openPredict)
	}
	return q
}

// openValues are the hidden inputs a widget's GET form carries so that the
// example it sits in is open again on the page it leads to.
func (st *renderState) openValues() []queryValue {
	var out []queryValue
	for _, id := range st.keepOpen(url.Values{openParam: st.pageOpen()})[openParam] {
		out = append(out, queryValue{openParam, id})
	}
	return out
}

// revealOpen starts the region a prediction guards, closed unless open;
// ```predict-end closes it.
func revealOpen(id string, open bool) string {
	attr := ""
	if open {
		attr = " open"
	}
	return `<details class="predict-reveal" data-predict-reveal="` + template.HTMLEscapeString(id) + `" data-testid="predict-reveal"` + attr + `>` +
		`<summary><span class="predict-closed">The computed example: predict first, or open it to read on without predicting</span><span class="predict-opened">The computed example</span></summary>` +
		`<div class="predict-reveal-body">`
}

// The body is a box of its own because a <details> lays its content out in
// a slot the page's grid cannot reach: lessons.css sets the example's lanes
// beside its words in this box.
const revealClose = `</div></details>`

// predictEnd closes the region of the open prediction.
func (st *renderState) predictEnd() (template.HTML, error) {
	if st.openPredict == "" {
		return "", fmt.Errorf("a ```predict-end fence with no ```predict block above it")
	}
	st.openPredict = ""
	return revealClose, nil
}

// PredictionHint says what kind of answer a prediction takes. A time's
// examples are worked out from the answer so that none of them is it.
func PredictionHint(in exercises.Instance, sol exercises.Solution) string {
	return in.Hint(sol, ask.Prediction)
}

func choiceID(id string, i int) string { return "predict-" + id + "-choice-" + strconv.Itoa(i) }

package lessons

import (
	"cmp"
	"errors"
	"fmt"
	"html/template"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"

	"github.com/windowlab/playground/explain"
	weblane "github.com/windowlab/playground/lane"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
)

// lanesBlock is the JSON of a ```lanes block: a scenario played out request
// by request, one lane per policy, drawn by the playground's lane renderer.
// A ```scenario-timeline block is the same thing.
type lanesBlock struct {
	Caption  string      `json:"caption"`
	Scenario scenarioRef `json:"scenario"`
	Policies []string    `json:"policies"`
	// Step is the request the lanes first show decided (1 is the first);
	// zero shows every request.
	Step int `json:"step"`
	// Stack draws the lanes as one chain (scenario.Stacked): each lane is
	// fed only the requests every lane before it admitted.
	Stack bool `json:"stack"`
	// The options of a ```scenario-table, for the table under "As a table",
	// so that the lanes can stand in for a table without losing a column.
	Show  []string `json:"show"`
	Group bool     `json:"group"`
	Note  string   `json:"note"`
}

// MaxLaneSteps bounds the requests a lesson's lanes step through, so that
// each step's replay stays a few hundred decisions; a longer scenario is
// an error in the lesson file.
const MaxLaneSteps = 500

// laneWidth is a lesson lane's width in viewBox units: narrower than the
// playground's, so that its text is drawn at the stylesheet's size in a
// lesson's column and on a phone.
const laneWidth = 560

// lanesView is one ```lanes block at one step, for its templ component.
type lanesView struct {
	ID      string // the block's id, also the query parameter of its step
	Caption string
	Summary string // every lane's outcome over the whole scenario
	Step    int
	Steps   int
	Now     string // what the step shows, in words
	Problem string // what was wrong with the step in the page's address
	Inputs  []weblane.Input
	Options weblane.Options
	// Links to steps: the page itself with ?ID=N (works without
	// JavaScript), and the fragment endpoint Datastar fetches instead.
	StepURL   func(step int) string
	FetchBase string // LanesPath without the step
	// Keep is the page's other query values, as hidden inputs of the
	// no-JavaScript step form, so that showing a step here does not reset
	// another block's step or the page's ?k=.
	Keep []queryValue
	// The table under "As a table": its summary says which requests it
	// holds; WholeURL opens it at the End step (without JavaScript too).
	Table        template.HTML
	TableSummary string
	TableOpen    bool
	WholeURL     string
}

// queryValue is one name=value of a page's query.
type queryValue struct{ Name, Value string }

// tableParam is the query parameter that opens a lanes block's table,
// ID-table=open: set by the link to the whole scenario as a table, and by
// the step controls while the table is open, so stepping keeps it open.
func tableParam(id string) string { return id + "-table" }

// tableID is the id of a lanes block's "As a table" disclosure.
func tableID(id string) string { return id + "-as-table" }

// LanesPath is where a lesson's lanes at one step are fetched from, as a
// Datastar fragment: /lessons/SLUG/lanes/ID/STEP.
func LanesPath(slug, id string, step int) string {
	return lanesBase(slug, id) + strconv.Itoa(step)
}

func lanesBase(slug, id string) string {
	return "/lessons/" + url.PathEscape(slug) + "/lanes/" + url.PathEscape(id) + "/"
}

// lanes renders a ```lanes (or ```scenario-timeline) block at the step the
// page's query names, or at the block's own.
func (st *renderState) lanes(body []byte) (template.HTML, error) {
	v, err := st.lanesAt(body, -1)
	if err != nil {
		return "", err
	}
	return renderHTML(liveLanes(v))
}

// lanesAt builds the view of a lanes block; step < 0 takes it from the
// page's query or the block.
func (st *renderState) lanesAt(body []byte, step int) (lanesView, error) {
	var b lanesBlock
	if err := decodeBlock(body, &b); err != nil {
		return lanesView{}, err
	}
	if b.Caption == "" {
		return lanesView{}, fmt.Errorf("lanes need a caption")
	}
	s, res, err := st.run(b.Scenario, b.Policies)
	if err != nil {
		return lanesView{}, err
	}
	id := fmt.Sprintf("lanes-%d", st.lanesSeen())
	steps := len(res.Results[0].Decisions)
	if steps > MaxLaneSteps {
		return lanesView{}, fmt.Errorf("the scenario has %d requests; lanes step through at most %d", steps, MaxLaneSteps)
	}
	if b.Step < 0 || b.Step > steps {
		return lanesView{}, fmt.Errorf("step: %d is not a request of the scenario (1 to %d)", b.Step, steps)
	}
	problem := ""
	if step < 0 {
		step = steps
		if b.Step > 0 {
			step = b.Step
		}
		if raw := st.in.Get(id); raw != "" {
			n, err := strconv.Atoi(raw)
			if err != nil || n < 0 || n > steps {
				// Named by the caption a visitor reads above the lanes, not
				// by the address's lanes-N.
				problem = st.inputProblem(fmt.Sprintf("“%s”: step “%s” is not a step of these lanes (0 to %d), so they show step %d.", b.Caption, raw, steps, step))
			} else {
				step = n
			}
		}
	}
	if step > steps {
		return lanesView{}, StepError{Step: step, Steps: steps}
	}
	v := lanesView{ID: id, Caption: b.Caption, Step: step, Steps: steps, Problem: problem}
	v.Summary = lanesSummary(res)
	cut := firstRequests(s, step)
	if b.Stack {
		if err := st.stackedLanes(&v, s, step); err != nil {
			return lanesView{}, err
		}
	} else {
		if v.Options, v.Inputs, err = lessonLanes(id, s, cut); err != nil {
			return lanesView{}, err
		}
		v.Now = stepText(res, step)
	}
	v.StepURL = func(n int) string {
		return "?" + st.linkQuery(id, strconv.Itoa(n)).Encode() + "#" + id
	}
	v.Keep = otherValues(st.linkQuery(), id)
	v.FetchBase = lanesBase(st.lesson.Slug, id)
	switch raw := st.in.Get(tableParam(id)); raw {
	case "":
	case "open":
		v.TableOpen = true
	default:
		v.Problem = st.inputProblem(fmt.Sprintf("“%s”, As a table: “%s” is neither open nor closed, so it is shown closed.", b.Caption, raw))
	}
	whole := st.linkQuery(id, strconv.Itoa(steps), tableParam(id), "open")
	v.WholeURL = "?" + whole.Encode() + "#" + tableID(id)
	v.TableSummary = tableSummary(step, steps)
	// The table beside the picture says the same in words, request by
	// request up to the step, so that it never tells what the lanes hide.
	cutRes, err := scenario.Run(cut)
	if err != nil {
		return lanesView{}, err
	}
	tb := tableBlock{Caption: b.Caption + ", as a table", Stack: b.Stack, Show: b.Show, Group: b.Group, Note: b.Note}
	tv, err := st.tableOf(tb, cut, cutRes, id+"-table")
	if err != nil {
		return lanesView{}, err
	}
	if v.Table, err = renderHTML(liveTable(tv)); err != nil {
		return lanesView{}, err
	}
	return v, nil
}

// linkQuery is the page's query for a link or form inside a lanes block:
// a copy of it with each name of the pairs (name, value, name, value...)
// set to its value, and the prediction the block sits in kept open. The
// copy is deep, so that no link's values share an array with another's.
func (st *renderState) linkQuery(pairs ...string) url.Values {
	q := url.Values{}
	for k, vs := range st.in {
		q[k] = slices.Clone(vs)
	}
	// The open examples as the page reads them: each once, at most
	// maxOpen, however many a crafted link repeated (200 made every step
	// link on the page carry all 200, and the page twice its size).
	if open := st.pageOpen(); len(open) > 0 {
		q[openParam] = open
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		q.Set(pairs[i], pairs[i+1])
	}
	return st.keepOpen(q)
}

// otherValues is the query without the block's own step, in a stable
// order, for the step form's hidden inputs.
func otherValues(q url.Values, id string) []queryValue {
	var out []queryValue
	for _, k := range slices.Sorted(maps.Keys(q)) {
		if k == id {
			continue
		}
		for _, v := range q[k] {
			out = append(out, queryValue{k, v})
		}
	}
	return out
}

// tableSummary says which requests the table under "As a table" holds:
// those up to the step shown, never one the lanes have not drawn yet.
func tableSummary(step, steps int) string {
	switch {
	case step == 1 && steps == 1:
		return "As a table (the one request)"
	case step == steps:
		return fmt.Sprintf("As a table (all %d requests)", steps)
	case step == 0:
		return fmt.Sprintf("As a table (no request yet of %d)", steps)
	case step == 1:
		return fmt.Sprintf("As a table (request 1 of %d)", steps)
	}
	return fmt.Sprintf("As a table (requests 1–%d of %d)", step, steps)
}

// fetch is the Datastar action that replaces the block with the lanes at
// the step the JavaScript expression step gives, keeping the table open
// when the learner has opened it.
func (v lanesView) fetch(step string) string {
	return fmt.Sprintf("@get('%s' + %s + (document.getElementById('%s').open ? '?%s=open' : ''))",
		v.FetchBase, step, tableID(v.ID), tableParam(v.ID))
}

// lanesSeen numbers the lanes blocks of a page in order, whichever of the
// two kinds wrote them, so that each has its own ids.
func (st *renderState) lanesSeen() int {
	return st.blockSeen["lanes"] + st.blockSeen["scenario-timeline"]
}

// lanesEnd is where a lesson's lanes stop: a sixth of a window after the
// last request, rounded up to a whole window, so the scenario fills the
// picture rather than the playground's three windows.
func lanesEnd(s scenario.Scenario, from int64) int64 {
	end := from + s.WindowMs
	for _, r := range s.Requests {
		end = max(end, r.At+s.WindowMs/6)
	}
	return from + (end-from+s.WindowMs-1)/s.WindowMs*s.WindowMs
}

// firstRequests keeps the scenario's first n requests after expanding
// counts, so that a step shows nothing of what comes after it.
func firstRequests(s scenario.Scenario, n int) scenario.Scenario {
	out := s
	out.Requests = nil
	for _, r := range s.Requests {
		if n == 0 {
			break
		}
		c := max(r.Count, 1)
		if c > int64(n) {
			c = int64(n)
		}
		r.Count = c
		out.Requests = append(out.Requests, r)
		n -= int(c)
	}
	return out
}

// stepText says what step n shows: the request just decided and each
// policy's verdict on it.
func stepText(res scenario.Result, n int) string {
	if n == 0 {
		return fmt.Sprintf("Step 0 of %d: no request yet.", len(res.Results[0].Decisions))
	}
	d := res.Results[0].Decisions[n-1]
	var admitted, refused []string
	for _, p := range res.Results {
		if p.Decisions[n-1].Allowed() {
			admitted = append(admitted, p.Label)
		} else {
			refused = append(refused, p.Label)
		}
	}
	text := fmt.Sprintf("Step %d of %d: the request at %s", n, len(res.Results[0].Decisions), scenario.FormatMs(d.At))
	if d.Probe {
		return text + " is a probe, asking without deciding."
	}
	var parts []string
	if len(admitted) > 0 {
		parts = append(parts, explain.Verdict(true)+" by "+strings.Join(admitted, ", "))
	}
	if len(refused) > 0 {
		parts = append(parts, explain.Verdict(false)+" by "+strings.Join(refused, ", "))
	}
	return text + " is " + strings.Join(parts, "; ") + "."
}

// lanesSummary is every lane's outcome over the whole scenario, naming
// each instant it refused at once.
func lanesSummary(res scenario.Result) string {
	var parts []string
	for _, p := range res.Results {
		s := fmt.Sprintf("%s admits %d of %d", p.Label, p.Admitted, p.Admitted+p.Refused)
		if refused := refusalTimes(p.Decisions); refused != "" {
			s += ", refusing at " + refused
		}
		parts = append(parts, s+".")
	}
	return strings.Join(parts, " ")
}

// ErrNoSuchLanes is RenderLanes's answer for lanes the lesson does not have.
var ErrNoSuchLanes = errors.New("lessons: no such lanes in this lesson")

// StepError is RenderLanes's answer for a step the lanes do not have.
type StepError struct{ Step, Steps int }

func (e StepError) Error() string {
	return fmt.Sprintf("step %d: these lanes have steps 0 to %d", e.Step, e.Steps)
}

// InputError is RenderLanes's answer for a query it cannot read, such as
// lanes-1-table=shut.
type InputError struct{ Problems []string }

func (e InputError) Error() string { return strings.Join(e.Problems, " ") }

// RenderLanes renders one ```lanes block of the lesson (id as the page
// names it, "lanes-2") at a step: what a step control fetches to replace the
// block in place. in is the fetch's query (ID-table=open keeps the table
// open; the block's own step parameter is ignored for step). The page's
// other blocks are not computed.
func (lib *Library) RenderLanes(l *Lesson, id string, step int, in url.Values) (template.HTML, error) {
	st, doc, src, err := lib.parse(l, in)
	if err != nil {
		return "", err
	}
	var body []byte
	err = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		fb, ok := n.(*ast.FencedCodeBlock)
		if !entering || !ok || body != nil {
			return ast.WalkContinue, nil
		}
		kind, _ := blockInfo(fb, src)
		if kind != "lanes" && kind != "scenario-timeline" {
			return ast.WalkContinue, nil
		}
		st.blockSeen[kind]++
		if fmt.Sprintf("lanes-%d", st.lanesSeen()) == id {
			body = blockBody(fb, src)
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		return "", err
	}
	if body == nil {
		return "", ErrNoSuchLanes
	}
	if step < 0 {
		return "", StepError{Step: step}
	}
	v, err := st.lanesAt(body, step)
	if err != nil {
		return "", err
	}
	if p := st.out.InputProblems; len(p) > 0 {
		return "", InputError{Problems: p}
	}
	return renderHTML(liveLanes(v))
}

// lessonLanes draws the lanes of cut (the first requests of s) as a lesson
// does: the clock at cut's last request, the span viewAt shows clipped to
// the traffic of the whole of s (lanesEnd), following the clock, with ids
// id-0, id-1, ….
func lessonLanes(id string, s, cut scenario.Scenario) (weblane.Options, []weblane.Input, error) {
	view, err := viewAt(id, cut, lastAt(cut.Requests))
	if err != nil {
		return weblane.Options{}, nil, err
	}
	o := weblane.Options{Width: laneWidth, From: view.From, To: min(view.To, lanesEnd(s, view.From)), Follow: true}
	ins := make([]weblane.Input, 0, len(view.Lanes))
	for i, l := range view.Lanes {
		l.ID = fmt.Sprintf("%s-%d", id, i)
		ins = append(ins, weblane.FromView(view, l))
	}
	return o, ins, nil
}

// viewAt replays a scenario in a playground session with the clock at now:
// the lanes as the playground would draw them.
func viewAt(id string, sc scenario.Scenario, now int64) (play.View, error) {
	sess, err := play.NewSession(id, sc)
	if err != nil {
		return play.View{}, err
	}
	if err := sess.Jump(now); err != nil {
		return play.View{}, err
	}
	// A lesson's lanes show three windows ending past the step's clock
	// (then clipped to the traffic, lanesEnd), not the playground's span
	// fitted to the latest requests: the lesson's text speaks of them all.
	span := 3 * sc.WindowMs
	to := max(span, now+span/6)
	if err := sess.ShowSpan(to-span, to); err != nil {
		return play.View{}, err
	}
	return sess.View(), nil
}

// stackedLanes draws a stack of limits at a step: lane i replays only the
// requests that every lane before it admitted, so each lane shows what it
// decided inside the stack, not the same limiter running alone. The lanes
// show the traffic's span in the shortest window's steps, and are replayed
// with the longest as the scenario's window so no request falls out of view.
func (st *renderState) stackedLanes(v *lanesView, s scenario.Scenario, step int) error {
	admitted, refusedBy, err := scenario.Stacked(s)
	if err != nil {
		return err
	}
	specs := s.Specs()
	longest, shortest := s, s
	for i := range specs {
		specs[i].Limit = cmp.Or(specs[i].Limit, s.Limit)
		specs[i].WindowMs = cmp.Or(specs[i].WindowMs, s.WindowMs)
		longest.WindowMs = max(longest.WindowMs, specs[i].WindowMs)
		shortest.WindowMs = min(shortest.WindowMs, specs[i].WindowMs)
	}
	var expanded []scenario.Request
	for _, r := range s.Requests {
		for range max(r.Count, 1) {
			one := r
			one.Count = 1
			expanded = append(expanded, one)
		}
	}
	// Six tick labels across: a span of whole multiples of six windows reads
	// 3 s, 6 s, … rather than 2.166 s.
	to := lanesEnd(shortest, 0)
	if unit := 6 * shortest.WindowMs; to > unit {
		to = (to + unit - 1) / unit * unit
	}
	for i, spec := range specs {
		one := longest
		one.Policies = []scenario.PolicySpec{spec}
		one.Requests = nil
		for j := range step {
			if refusedBy[j] < 0 || refusedBy[j] >= i {
				one.Requests = append(one.Requests, expanded[j])
			}
		}
		// The clock is the step's, even when this lane was not asked.
		view, err := viewAt(fmt.Sprintf("%s-%d", v.ID, i), one, lastAt(expanded[:step]))
		if err != nil {
			return err
		}
		l := view.Lanes[0]
		l.ID = fmt.Sprintf("%s-%d", v.ID, i)
		l.Label = fmt.Sprintf("%d. %s", i+1, spec.Label(s))
		v.Options = weblane.Options{Width: laneWidth, From: 0, To: to, Follow: true}
		v.Inputs = append(v.Inputs, weblane.FromView(view, l))
	}
	n := 0
	for _, a := range admitted {
		if a {
			n++
		}
	}
	v.Summary = fmt.Sprintf("The stack admits %d of %d: a request passes only if every lane admits it, and a lane sees only what the lanes before it passed.", n, len(admitted))
	v.Now = fmt.Sprintf("Step 0 of %d: no request yet.", len(admitted))
	if step > 0 {
		at := scenario.FormatMs(expanded[step-1].At)
		switch by := refusedBy[step-1]; {
		case by < 0:
			v.Now = fmt.Sprintf("Step %d of %d: the request at %s is %s by the stack: every lane admits it.", step, len(admitted), at, explain.Verdict(true))
		default:
			v.Now = fmt.Sprintf("Step %d of %d: the request at %s is %s by lane %d, %s; the lanes after it are not asked.", step, len(admitted), at, explain.Verdict(false), by+1, specs[by].Label(s))
		}
	}
	return nil
}

// lastAt is the instant of the last request, 0 with none.
func lastAt(reqs []scenario.Request) int64 {
	if len(reqs) == 0 {
		return 0
	}
	return reqs[len(reqs)-1].At
}

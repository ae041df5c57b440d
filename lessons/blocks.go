package lessons

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"slices"
	"strconv"
	"strings"

	"github.com/a-h/templ"

	"github.com/windowlab/playground/explain"
	"github.com/windowlab/playground/scenario"
)

// liveKinds are the fenced blocks a lesson computes: the cases of block
// below, which must name the same kinds; any other kind is shown as code.
var liveKinds = map[string]bool{
	"scenario": true, "scenario-table": true, "lanes": true, "scenario-timeline": true,
	"picture": true, "playground": true, "exercise": true, "note": true,
	"memory-calculator": true, "bucket-ring": true, "compare": true, "sync-sweep": true,
	"error-memory": true, predictKind: true, predictEndKind: true,
}

// block renders one fenced block by kind. Unknown kinds are shown as code.
func (st *renderState) block(kind, arg string, body []byte) (template.HTML, error) {
	st.blockSeen[kind]++
	switch kind {
	case "scenario":
		s, err := st.scenario(arg)
		if err != nil {
			return "", err
		}
		return renderHTML(scenarioSource(arg, string(bytes.TrimSpace(body)), scenario.EncodeURL(s)))
	case "scenario-table":
		return st.scenarioTable(body)
	case "lanes", "scenario-timeline":
		return st.lanes(body)
	case "picture":
		return st.sectionPicture(body)
	case "playground":
		return st.playground(body)
	case "exercise":
		return st.exercise(strings.TrimSpace(string(body)))
	case "note":
		var buf bytes.Buffer
		if err := st.md.Convert(body, &buf); err != nil {
			return "", err
		}
		return renderHTML(noteBlock(buf.String()))
	case "memory-calculator":
		return st.memoryCalculator(body)
	case "bucket-ring":
		return st.bucketRing(body)
	case "compare":
		return st.compare(body)
	case "sync-sweep":
		return st.syncSweep(body)
	case "error-memory":
		return st.errorMemory(body)
	case predictKind:
		return st.predict(body)
	case predictEndKind:
		return st.predictEnd()
	}
	return renderHTML(codeBlock(kind, string(body)))
}

// renderHTML renders a block's component for goldmark's output; templ
// escapes what it writes.
func renderHTML(c templ.Component) (template.HTML, error) {
	var b bytes.Buffer
	if err := c.Render(context.Background(), &b); err != nil {
		return "", err
	}
	return template.HTML(b.String()), nil //nolint:gosec // templ output
}

func itoa(n int) string { return strconv.Itoa(n) }

// decodeBlock reads a block's JSON strictly, so a misspelt option is an
// error rather than silently ignored.
func decodeBlock(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("reading the block's JSON: %v", err)
	}
	return nil
}

// scenarioRef is a scenario named by the block, or written inline.
type scenarioRef struct {
	Name   string
	Inline json.RawMessage
}

func (r *scenarioRef) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		return json.Unmarshal(data, &r.Name)
	}
	r.Inline = append(json.RawMessage(nil), data...)
	return nil
}

func (st *renderState) resolve(ref scenarioRef) (scenario.Scenario, error) {
	if ref.Name != "" {
		return st.scenario(ref.Name)
	}
	if len(ref.Inline) == 0 {
		return scenario.Scenario{}, fmt.Errorf("no scenario given")
	}
	return scenario.Parse(ref.Inline)
}

// run resolves a block's scenario, narrows it to the block's policies and
// runs it.
func (st *renderState) run(ref scenarioRef, refs []string) (scenario.Scenario, scenario.Result, error) {
	s, err := st.resolve(ref)
	if err != nil {
		return s, scenario.Result{}, err
	}
	if s, err = withPolicies(s, refs); err != nil {
		return s, scenario.Result{}, err
	}
	res, err := scenario.Run(s)
	return s, res, err
}

// withPolicies replaces the scenario's lanes by the refs given (policy refs
// or #N for one of its own lanes); none keeps them.
func withPolicies(s scenario.Scenario, refs []string) (scenario.Scenario, error) {
	if len(refs) == 0 {
		return s, nil
	}
	var specs []scenario.PolicySpec
	for _, ref := range refs {
		spec, err := lane(s, ref)
		if err != nil {
			return s, err
		}
		specs = append(specs, spec)
	}
	s.Policies = specs
	return s, s.Validate()
}

// tableBlock is the JSON of a ```scenario-table block.
type tableBlock struct {
	Caption  string      `json:"caption"`
	Scenario scenarioRef `json:"scenario"`
	Policies []string    `json:"policies"`
	Show     []string    `json:"show"`  // "estimate", "retry", "terms"
	Stack    bool        `json:"stack"` // add a column: admitted by every lane in turn
	Group    bool        `json:"group"` // merge neighbouring rows that read the same
	Note     string      `json:"note"`  // a sentence under the table
}

type cell struct {
	Text  string
	Class string
}

type tableView struct {
	ID      string
	Caption string
	Head    []string
	Rows    [][]cell
	Foot    []cell
	// FootSpan is how many leading columns (#, at, key) the footer's label
	// spans, so a wide label does not widen the narrow "#" and "at".
	FootSpan int
	Note     string
	Play     string
}

// wide reports whether the table may be wider than a phone: three policy
// columns or more, each decision given 4.5rem there (lessons.css). Its
// cue then says that it scrolls sideways; without a script the cue is
// shown on every narrow screen, with one only while the table is cut.
func (v tableView) wide() bool { return len(v.Head)-max(v.FootSpan, 2) >= 3 }

func (st *renderState) recordTable(v tableView) {
	t := Table{Caption: v.Caption, Head: v.Head}
	for _, row := range v.Rows {
		var r []string
		for _, c := range row {
			r = append(r, c.Text)
		}
		t.Rows = append(t.Rows, r)
	}
	st.out.Tables = append(st.out.Tables, t)
}

func (st *renderState) scenarioTable(body []byte) (template.HTML, error) {
	var b tableBlock
	if err := decodeBlock(body, &b); err != nil {
		return "", err
	}
	if b.Caption == "" {
		return "", fmt.Errorf("a table needs a caption")
	}
	s, res, err := st.run(b.Scenario, b.Policies)
	if err != nil {
		return "", err
	}
	v, err := st.tableOf(b, s, res, fmt.Sprintf("table-%d", st.blockSeen["scenario-table"]))
	if err != nil {
		return "", err
	}
	return renderHTML(liveTable(v))
}

// tableOf lays out a scenario's decisions as rows, one per request, and
// records the table for tests.
func (st *renderState) tableOf(b tableBlock, s scenario.Scenario, res scenario.Result, id string) (tableView, error) {
	show := map[string]bool{}
	for _, x := range b.Show {
		switch x {
		case "estimate", "retry", "terms":
			show[x] = true
		default:
			return tableView{}, fmt.Errorf("show: unknown %q (want estimate, retry or terms)", x)
		}
	}
	keys := map[string]bool{}
	for _, r := range s.Requests {
		keys[r.KeyName()] = true
	}
	v := tableView{ID: id, Caption: b.Caption, Note: b.Note, Play: scenario.EncodeURL(s)}
	v.Head = []string{"#", "at"}
	if len(keys) > 1 {
		v.Head = append(v.Head, "key")
	}
	for _, p := range res.Results {
		v.Head = append(v.Head, p.Label)
	}
	var stacked []bool
	var refusedBy []int
	if b.Stack {
		var err error
		if stacked, refusedBy, err = scenario.Stacked(s); err != nil {
			return tableView{}, err
		}
		// In a stack a later lane only sees what the lanes before it let
		// through, so its column is its decision inside the stack, not the
		// same limiter running alone on every request.
		for i := 1; i < len(res.Results); i++ {
			passed := "lane 1"
			if i > 1 {
				passed = fmt.Sprintf("lanes 1–%d", i)
			}
			v.Head[len(v.Head)-len(res.Results)+i] += " (only what " + passed + " passed)"
		}
		v.Head = append(v.Head, "the stack: admitted only if every lane admits")
	}
	for i, d := range res.Results[0].Decisions {
		row := []cell{{Text: strconv.Itoa(i + 1)}, {Text: scenario.FormatMs(d.At), Class: "at"}}
		if len(keys) > 1 {
			row = append(row, cell{Text: d.Key})
		}
		for lane, p := range res.Results {
			if b.Stack && lane > 0 {
				row = append(row, stackedCell(lane, refusedBy[i]))
				continue
			}
			row = append(row, decisionCell(p, p.Decisions[i], show))
		}
		if b.Stack {
			row = append(row, outcomeCell(stacked[i], ""))
		}
		v.Rows = append(v.Rows, row)
	}
	if b.Group {
		v.Rows = groupRows(v.Rows)
	}
	foot := []cell{{Text: "admitted"}}
	v.FootSpan = 2
	if len(keys) > 1 {
		v.FootSpan = 3
	}
	for lane, p := range res.Results {
		if b.Stack && lane > 0 {
			asked, passed := 0, 0
			for _, by := range refusedBy {
				if by < 0 || by >= lane {
					asked++
				}
				if by < 0 || by > lane {
					passed++
				}
			}
			foot = append(foot, cell{Text: fmt.Sprintf("%d of the %d it saw", passed, asked)})
			continue
		}
		foot = append(foot, cell{Text: fmt.Sprintf("%d of %d", p.Admitted, p.Admitted+p.Refused)})
	}
	if b.Stack {
		n := 0
		for _, a := range stacked {
			if a {
				n++
			}
		}
		foot = append(foot, cell{Text: fmt.Sprintf("%d of %d", n, len(stacked))})
	}
	v.Foot = foot
	st.recordTable(v)
	return v, nil
}

// stackedCell words lane's decision inside a stack, where refusedBy is the
// first lane that refused the request (-1 when every lane admitted it).
func stackedCell(lane, refusedBy int) cell {
	switch {
	case refusedBy >= 0 && refusedBy < lane:
		return cell{Text: fmt.Sprintf("not asked (lane %d refused)", refusedBy+1), Class: "skipped"}
	case refusedBy == lane:
		return outcomeCell(false, "")
	}
	return outcomeCell(true, "")
}

func outcomeCell(admitted bool, extra string) cell {
	word := explain.Verdict(admitted)
	return cell{Text: strings.TrimSpace(word + " " + extra), Class: word}
}

// decisionCell words one decision: the outcome, then the numbers asked for.
func decisionCell(p scenario.PolicyResult, d scenario.Decision, show map[string]bool) cell {
	if d.Probe {
		return cell{Text: "estimate " + scenario.FormatFraction(d.Estimate)}
	}
	var extra []string
	// On several servers the table says, in words, which server decided
	// and what it had not heard of: the lane shows it only as a number by
	// the mark.
	if d.Nodes != nil {
		extra = append(extra, explain.Unheard(d, scenario.Deployment{Nodes: p.Params.Nodes, Central: p.Params.Central}))
	}
	if show["terms"] {
		extra = append(extra, explain.Working(explain.ForResult(p), d))
	} else if show["estimate"] {
		extra = append(extra, "estimate "+scenario.FormatFraction(d.Estimate))
	}
	if wait := explain.Wait(d.Detail); show["retry"] && wait != "" {
		extra = append(extra, wait)
	}
	text := ""
	if len(extra) > 0 {
		text = "(" + strings.Join(extra, "; ") + ")"
	}
	return outcomeCell(d.Allowed(), text)
}

// playBlock is the JSON of a ```playground block.
type playBlock struct {
	Scenario scenarioRef `json:"scenario"`
	Policies []string    `json:"policies"`
	Label    string      `json:"label"`
}

func (st *renderState) playground(body []byte) (template.HTML, error) {
	var b playBlock
	if err := decodeBlock(body, &b); err != nil {
		return "", err
	}
	s, err := st.resolve(b.Scenario)
	if err != nil {
		return "", err
	}
	if s, err = withPolicies(s, b.Policies); err != nil {
		return "", err
	}
	if b.Label == "" {
		b.Label = "Open this scenario in the playground"
	}
	return renderHTML(playLink(scenario.EncodeURL(s), b.Label))
}

func (st *renderState) exercise(id string) (template.HTML, error) {
	if id == "" {
		return "", fmt.Errorf("an ```exercise block holds the exercise's id")
	}
	title := id
	if set := st.lib.Exercises; set != nil {
		e := set.Get(id)
		if e == nil {
			return "", fmt.Errorf("no exercise %q in exercises/", id)
		}
		title = e.Title
	}
	return renderHTML(exerciseCard(id, title))
}

// groupRows merges runs of rows that differ only in their number into one
// row numbered "4–99".
func groupRows(rows [][]cell) [][]cell {
	var out [][]cell
	first := ""
	for _, row := range rows {
		if n := len(out); n > 0 && slices.Equal(out[n-1][1:], row[1:]) {
			out[n-1][0].Text = first + "–" + row[0].Text
			continue
		}
		first = row[0].Text
		out = append(out, slices.Clone(row))
	}
	return out
}

package lessons

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/yuin/goldmark/ast"
)

// renderDoc renders the lesson with the query and parses the page.
func renderDoc(t *testing.T, lib *Library, l *Lesson, in url.Values) (*Rendered, *goquery.Document) {
	t.Helper()
	r, err := lib.Render(l, in)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Problems {
		t.Error(p)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(r.HTML)))
	if err != nil {
		t.Fatal(err)
	}
	return r, doc
}

// A lanes block carries a scenario-table's options into its "As a table",
// so that it can replace a table beside it without losing a column, and the
// table never holds a request the lanes have not drawn yet.
func TestLanesTableTakesTheTableOptions(t *testing.T) {
	lib, l := predictLib(t, "```lanes\n"+`{"caption": "cars", "scenario": "car-park", "policies": ["fixed-window", "sliding-log"], "step": 6, "show": ["terms", "retry"], "group": true, "note": "A note under the table."}`+"\n```\n")
	for _, tt := range []struct {
		name     string
		in       url.Values
		summary  string
		rows     int
		retry    string // the text of a cell the table must hold, "" for none
		whole    bool   // a link to the whole scenario as a table
		open     bool
		problems int
	}{
		{"the block's step", nil, "As a table (requests 1–6 of 10)", 6, "retry after 5 s", true, false, 0},
		{"step 0", url.Values{"lanes-1": {"0"}}, "As a table (no request yet of 10)", 0, "", true, false, 0},
		{"step 1", url.Values{"lanes-1": {"1"}}, "As a table (request 1 of 10)", 1, "", true, false, 0},
		{"the End, opened", url.Values{"lanes-1": {"10"}, "lanes-1-table": {"open"}}, "As a table (all 10 requests)", 10, "retry after 5 s", false, true, 0},
		{"a state it cannot read", url.Values{"lanes-1-table": {"shut"}}, "As a table (requests 1–6 of 10)", 6, "retry after 5 s", true, false, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, doc := renderDoc(t, lib, l, tt.in)
			if len(r.InputProblems) != tt.problems {
				t.Errorf("input problems %q, want %d", r.InputProblems, tt.problems)
			}
			d := doc.Find(`details[data-testid="lanes-table"]`)
			if got := strings.TrimSpace(d.Find("summary").Text()); got != tt.summary {
				t.Errorf("summary %q, want %q", got, tt.summary)
			}
			if _, open := d.Attr("open"); open != tt.open {
				t.Errorf("open = %v, want %v", open, tt.open)
			}
			if n := d.Find("tbody tr").Length(); n != tt.rows {
				t.Errorf("%d rows, want %d", n, tt.rows)
			}
			if tt.retry != "" && !strings.Contains(d.Find("tbody").Text(), tt.retry) {
				t.Errorf("no %q in the table: %s", tt.retry, d.Find("tbody").Text())
			}
			if !strings.Contains(d.Find("tbody").Text(), "window from 0 s holds") && tt.rows > 0 {
				t.Errorf("the table shows no working: %s", d.Find("tbody").Text())
			}
			if !strings.Contains(d.Find("figcaption").Text(), "A note under the table.") {
				t.Errorf("the note is missing: %q", d.Find("figcaption").Text())
			}
			link := d.Find(`a[data-testid="lanes-table-whole"]`)
			if link.Length() == 1 != tt.whole {
				t.Fatalf("link to the whole table: %d, want %v", link.Length(), tt.whole)
			}
			if tt.whole {
				href, _ := link.Attr("href")
				u, err := url.Parse(href)
				if err != nil {
					t.Fatal(err)
				}
				if q := u.Query(); q.Get("lanes-1") != "10" || q.Get("lanes-1-table") != "open" || u.Fragment != "lanes-1-as-table" {
					t.Errorf("the whole table's link %q does not open the table at the End", href)
				}
			}
		})
	}
}

// Grouping merges requests decided alike, as a scenario-table's group does;
// a step before the merged run still shows only the requests drawn.
func TestLanesTableGroups(t *testing.T) {
	lib, l := predictLib(t, "```lanes\n"+`{"caption": "burst", "scenario": {"limit": 2, "windowMs": 1000, "policies": ["fixed-window"], "requests": [{"at": 0, "count": 5}]}, "group": true}`+"\n```\n")
	_, doc := renderDoc(t, lib, l, nil)
	rows := doc.Find(`details[data-testid="lanes-table"] tbody tr`)
	if rows.Length() != 2 {
		t.Fatalf("%d rows, want 2 (two admitted, then three refused)", rows.Length())
	}
	if got := rows.Eq(1).Find("th").Text(); got != "3–5" {
		t.Errorf("second row numbered %q, want 3–5", got)
	}
}

// The no-JavaScript step form sends every other value of the page's query
// as it came (another block's step, ?k=), never the block's own step, which
// its slider sends.
func TestLanesStepFormKeepsTheOtherQueryValues(t *testing.T) {
	two := "```lanes\n" + `{"caption": "one", "scenario": "car-park", "policies": ["fixed-window"]}` + "\n```\n\n```lanes\n" + `{"caption": "two", "scenario": "car-park", "policies": ["sliding-log"]}` + "\n```\n"
	lib, l := predictLib(t, two)
	in := url.Values{"lanes-1": {"3"}, "lanes-2": {"4"}, "k": {"10"}, "tag": {"a", "b"}}
	_, doc := renderDoc(t, lib, l, in)
	for _, tt := range []struct {
		id   string
		want string
	}{
		{"lanes-1", "k=10&lanes-2=4&tag=a&tag=b"},
		{"lanes-2", "k=10&lanes-1=3&tag=a&tag=b"},
	} {
		form := doc.Find("#" + tt.id + ` form[data-testid="lane-steps"]`)
		var kept []string
		form.Find(`input[type="hidden"]`).Each(func(_ int, s *goquery.Selection) {
			kept = append(kept, url.QueryEscape(s.AttrOr("name", ""))+"="+url.QueryEscape(s.AttrOr("value", "")))
		})
		if got := strings.Join(kept, "&"); got != tt.want {
			t.Errorf("%s: the step form keeps %q, want %q", tt.id, got, tt.want)
		}
		if n := form.Find(`input[name="` + tt.id + `"]`).Length(); n != 1 {
			t.Errorf("%s: %d inputs named after the block, want only its slider", tt.id, n)
		}
	}
}

// tablesLanesCannotDraw lists the ```scenario-table blocks a lesson keeps
// on their own, as "FILE: caption" with the reason, which the .md gives in
// an HTML comment above the block. A table stands alone only where lanes
// cannot draw its scenario (more than MaxLaneSteps requests); everywhere
// else the lanes are the picture and the table sits under "As a table".
var tablesLanesCannotDraw = map[string]string{}

// fencedBlock is one computed block of a lesson file, as written.
type fencedBlock struct {
	kind string
	body []byte
	line int    // the line of its JSON, counted after the lesson's header
	src  []byte // the lesson's body, for what stands above the block
	at   int    // the byte offset of the block's first line in src
}

func fencedBlocks(t *testing.T, lib *Library, l *Lesson) (*renderState, []fencedBlock) {
	t.Helper()
	st, doc, src, err := lib.parse(l, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []fencedBlock
	err = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		fb, ok := n.(*ast.FencedCodeBlock)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		kind, _ := blockInfo(fb, src)
		at := len(src)
		if fb.Lines().Len() > 0 {
			at = fb.Lines().At(0).Start
		}
		out = append(out, fencedBlock{kind: kind, body: blockBody(fb, src), line: bytes.Count(src[:at], []byte("\n")) + 1, src: src, at: at})
		return ast.WalkContinue, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return st, out
}

// traffic is what makes two blocks show the same scenario: its settings
// and requests, whichever policies each block picks.
func traffic(t *testing.T, st *renderState, ref scenarioRef) string {
	t.Helper()
	s, err := st.resolve(ref)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(struct {
		Limit, WindowMs int64
		Requests        any
	}{s.Limit, s.WindowMs, s.Requests})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTablesStandAloneOnlyWhereLanesCannotDraw fails when a lesson shows a
// ```scenario-table of a scenario one of its lanes blocks also draws (the
// lanes' own table, with the table's options, says the same), and when a
// table stands alone that lanes could draw and tablesLanesCannotDraw does
// not list with its reason.
func TestTablesStandAloneOnlyWhereLanesCannotDraw(t *testing.T) {
	lib, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, l := range lib.Lessons {
		st, blocks := fencedBlocks(t, lib, l)
		drawn := map[string]string{}
		for _, b := range blocks {
			if b.kind != "lanes" && b.kind != "scenario-timeline" {
				continue
			}
			var lb lanesBlock
			if err := decodeBlock(b.body, &lb); err != nil {
				t.Fatalf("%s, line %d after the header: %v", l.File, b.line, err)
			}
			drawn[traffic(t, st, lb.Scenario)] = lb.Caption
		}
		for _, b := range blocks {
			if b.kind != "scenario-table" {
				continue
			}
			var tb tableBlock
			if err := decodeBlock(b.body, &tb); err != nil {
				t.Fatalf("%s, line %d after the header: %v", l.File, b.line, err)
			}
			if lanes, ok := drawn[traffic(t, st, tb.Scenario)]; ok {
				t.Errorf("%s, line %d after the header: the table %q shows the scenario the lanes %q draw: delete it and give the lanes its options", l.File, b.line, tb.Caption, lanes)
				continue
			}
			name := l.File + ": " + tb.Caption
			seen[name] = true
			reason, listed := tablesLanesCannotDraw[name]
			if !listed {
				t.Errorf("%s, line %d after the header: the table %q stands alone; draw it as ```lanes (its table goes under \"As a table\"), or list why lanes cannot in tablesLanesCannotDraw", l.File, b.line, tb.Caption)
				continue
			}
			if !bytes.Contains(b.src[:b.at], []byte("<!-- "+reason)) {
				t.Errorf("%s, line %d after the header: no HTML comment above the table saying %q", l.File, b.line, reason)
			}
			probe, err := json.Marshal(map[string]any{"caption": tb.Caption, "scenario": json.RawMessage(scenarioJSON(tb.Scenario)), "policies": tb.Policies})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.lanesAt(probe, -1); err == nil {
				t.Errorf("%s, line %d after the header: lanes can draw %q; make it a ```lanes block", l.File, b.line, tb.Caption)
			}
		}
	}
	for name := range tablesLanesCannotDraw {
		if !seen[name] {
			t.Errorf("tablesLanesCannotDraw lists %q, which no lesson has", name)
		}
	}
}

// scenarioJSON writes a block's scenario reference back as JSON.
func scenarioJSON(ref scenarioRef) []byte {
	if ref.Name != "" {
		b, _ := json.Marshal(ref.Name)
		return b
	}
	return ref.Inline
}

// The car park's lanes in the first lesson replaced a table that showed the
// working and the wait; their own table still does.
func TestCarParkLanesTableShowsTheWait(t *testing.T) {
	lib, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	r, err := lib.Render(lib.Lesson("fixed-window"), url.Values{"lanes-1": {"10"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tbl := range r.Tables {
		if !strings.HasPrefix(tbl.Caption, "The car park under a fixed window, car by car") {
			continue
		}
		for _, row := range tbl.Rows {
			if row[1] == "25 s" && !strings.Contains(row[2], "retry after 5 s") {
				t.Errorf("the 25 s row reads %q, want its wait, retry after 5 s", row[2])
			}
			if !strings.Contains(row[2], "window from") {
				t.Errorf("row %s reads %q, want the working", row[0], row[2])
			}
		}
		if len(tbl.Rows) != 10 {
			t.Errorf("%d rows at the End, want all 10", len(tbl.Rows))
		}
		return
	}
	t.Error("no table of the car park's lanes in the fixed-window lesson")
}

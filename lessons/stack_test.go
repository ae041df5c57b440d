package lessons

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/windowlab/playground/scenario"
)

// The stacking table's prose says a request gets through only if both
// limits admit it. Each row must read that way: the stack's column says
// admitted exactly when every lane's column does, and a later lane never
// shows a decision on a request an earlier lane already refused (it never
// sees one), which a column of that limiter running alone would.
func TestStackedTableShowsTheStacksRealOutcome(t *testing.T) {
	lib, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	r, err := lib.Render(lib.Lesson("where-they-disagree"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var table *Table
	for i := range r.Tables {
		if strings.HasPrefix(r.Tables[i].Caption, "Stacked limits") {
			table = &r.Tables[i]
		}
	}
	if table == nil {
		t.Fatal("no stacked-limits table in where-they-disagree")
	}
	last := len(table.Head) - 1
	if !strings.Contains(table.Head[last], "only if every lane admits") {
		t.Errorf("last column %q, want the stack's outcome", table.Head[last])
	}
	lanes := table.Head[2:last]
	if len(lanes) != 2 {
		t.Fatalf("columns %q, want two lanes", table.Head)
	}
	sawSkipped := false
	for n, row := range table.Rows {
		all := true
		for i := range lanes {
			c := row[2+i]
			all = all && strings.HasPrefix(c, "admitted")
			if i > 0 && strings.HasPrefix(row[2+i-1], "refused") && !strings.HasPrefix(c, "not asked") {
				t.Errorf("row %d (%s): lane %d shows %q for a request lane %d refused", n+1, row[1], i+1, c, i)
			}
			sawSkipped = sawSkipped || strings.HasPrefix(c, "not asked")
		}
		if stack := strings.HasPrefix(row[last], "admitted"); stack != all {
			t.Errorf("row %d (%s): the stack says %q but the lanes say %q", n+1, row[1], row[last], row[2:last])
		}
	}
	if !sawSkipped {
		t.Error("no request was refused by the first lane; the case no longer tests the stack")
	}
}

// TestNoPlaygroundLinkToAStack: the playground runs a scenario's limits
// side by side, each fed every request, and has no stacked mode; a link
// from a stack opened two independent lanes ("115 decided differently")
// under a lesson saying the second lane sees only what the first passed.
func TestNoPlaygroundLinkToAStack(t *testing.T) {
	lib, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lib.Lessons {
		stacks, links := map[string]bool{}, map[string]bool{}
		_, blocks := fencedBlocks(t, lib, l)
		for _, fb := range blocks {
			var b struct {
				Scenario any    `json:"scenario"`
				Stack    bool   `json:"stack"`
				Ask      string `json:"ask"`
			}
			if json.Unmarshal(fb.body, &b) != nil {
				continue // an exercise's id, a calculator's settings
			}
			name, ok := b.Scenario.(string)
			if !ok {
				continue
			}
			switch {
			case fb.kind == "playground":
				links[name] = true
			case b.Stack || b.Ask == "stack":
				stacks[name] = true
			}
		}
		for name := range links {
			if stacks[name] {
				t.Errorf("%s: a playground link opens %q, which the lesson shows as a stack the playground cannot draw", l.File, name)
			}
		}
	}
}

// TestStackProseMatchesItsPicture: lesson 4 said the stack's picture
// "spans the whole minute" above lanes whose axes stopped at 18 s.
func TestStackProseMatchesItsPicture(t *testing.T) {
	lib, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	l := lib.Lesson("where-they-disagree")
	r, err := lib.Render(l, nil)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(r.HTML)))
	if err != nil {
		t.Fatal(err)
	}
	var last string
	doc.Find("figure.lane").Each(func(_ int, f *goquery.Selection) {
		if strings.HasPrefix(f.AttrOr("data-label", ""), "2. ") { // the stack's second lane
			last = f.Find("text.tick-label").Last().Text()
		}
	})
	if last == "" {
		t.Fatal("no stacked lanes drawn in where-they-disagree")
	}
	end, err := scenario.ParseMoment(last, 0)
	if err != nil {
		t.Fatalf("the last time label %q: %v", last, err)
	}
	if end < 60_000 && strings.Contains(l.Body, "spans the whole minute") {
		t.Errorf("the lesson says the stack's picture spans the whole minute; its axis ends at %s", last)
	}
}

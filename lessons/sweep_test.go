package lessons

import (
	"fmt"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/windowlab/playground/scenario"
)

// fourThenFifteen is four requests at 0 s and fifteen at 0.6 s against a
// limit of 5 per second: a sync at 0.5 s tells every server of the four.
const fourThenFifteen = `{"limit": 5, "windowMs": 1000, "policies": [{"name": "fixed-window", "nodes": 3, "syncMs": 500}], "requests": [{"at": 0, "count": 4}, {"at": 600, "count": 15}]}`

func sweepBody(opts string) string {
	return "```sync-sweep\n" + `{"caption": "four then fifteen", "scenario": ` + fourThenFifteen + opts + "}\n```\n"
}

// The chart is drawn from scenario.Sweep as the page is built: its table,
// its markers' titles and its text alternative all say the same figures,
// and each line has a marker shape of its own, so no line is told apart
// by colour alone.
func TestSyncSweepDrawsTheSweep(t *testing.T) {
	lib, l := predictLib(t, sweepBody(`, "syncs": [100, 500, 0]`))
	r, doc := renderDoc(t, lib, l, nil)
	s, err := scenario.Parse([]byte(fourThenFifteen))
	if err != nil {
		t.Fatal(err)
	}
	points, err := scenario.Sweep(s, s.Specs()[0], nil, []int64{100, 500, 0})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Tables) != 1 {
		t.Fatalf("%d tables recorded, want 1", len(r.Tables))
	}
	table := r.Tables[0]
	if got, want := strings.Join(table.Head, " | "), "sync interval | 2 servers | 4 servers | 8 servers"; got != want {
		t.Errorf("head = %q, want %q", got, want)
	}
	syncs := []string{"100 ms", "500 ms", "never"}
	for i, row := range table.Rows {
		if row[0] != syncs[i] {
			t.Errorf("row %d: interval %q, want %q", i+1, row[0], syncs[i])
		}
		for n := range 3 {
			p := points[n*3+i]
			if want := fmt.Sprintf("%d over (%d admitted)", p.OverAdmission, p.Admitted); row[n+1] != want {
				t.Errorf("row %d, %d servers: %q, want %q", i+1, p.Nodes, row[n+1], want)
			}
		}
	}
	// Syncing every 500 ms lets the burst at 600 ms meet servers that have
	// heard of the first; never syncing, they have not.
	if points[1].OverAdmission >= points[2].OverAdmission {
		t.Errorf("2 servers: over-admission %d syncing every 500 ms, %d never syncing; want less with the sync", points[1].OverAdmission, points[2].OverAdmission)
	}
	svg := doc.Find(`[data-testid="sync-sweep"] svg[role="img"]`)
	if svg.Length() != 1 {
		t.Fatalf("%d chart pictures, want 1", svg.Length())
	}
	desc := svg.Find("desc").Text()
	for _, p := range points {
		if !strings.Contains(desc, fmt.Sprintf("%d servers: ", p.Nodes)) || !strings.Contains(desc, fmt.Sprint(p.OverAdmission)) {
			t.Errorf("the text alternative does not say %d servers' %d: %s", p.Nodes, p.OverAdmission, desc)
		}
	}
	series := svg.Find(`[data-testid="sweep-series"]`)
	if series.Length() != 3 {
		t.Fatalf("%d lines, want one for each of 2, 4 and 8 servers", series.Length())
	}
	shapes := map[string]bool{}
	series.Each(func(i int, g *goquery.Selection) {
		if n := g.Find("path.marker").Length(); n != 3 {
			t.Errorf("line %d: %d markers, want one per interval", i+1, n)
		}
		d, _ := g.Find("path.marker").Attr("d")
		shapes[strings.Map(func(r rune) rune {
			if r >= 'A' && r <= 'z' {
				return r
			}
			return -1
		}, d)] = true
	})
	if len(shapes) != 3 {
		t.Errorf("the lines share marker shapes (%d distinct); each needs its own", len(shapes))
	}
	// A marker's title reads as a phrase ("never syncing", not "sync
	// never"), and the axis says its intervals are spaced evenly, since
	// 100 ms to 500 ms is drawn as long as 500 ms to never.
	var titles []string
	series.First().Find("path.marker title").Each(func(_ int, s *goquery.Selection) { titles = append(titles, s.Text()) })
	wantTitles := []string{"2 servers, syncing every 100 ms: ", "2 servers, syncing every 500 ms: ", "2 servers, never syncing: "}
	for i, want := range wantTitles {
		if i >= len(titles) || !strings.HasPrefix(titles[i], want) {
			t.Errorf("marker %d: title %q, want it to start %q", i+1, strings.Join(titles[min(i, len(titles)):min(i+1, len(titles))], ""), want)
		}
	}
	if axis := svg.Find("text.axis-title").First().Text(); !strings.Contains(axis, "not to scale") {
		t.Errorf("the interval axis is titled %q; it should say its intervals are not to scale", axis)
	}
	if legend := doc.Find(`[data-testid="sweep-legend"]`).Text(); !strings.Contains(legend, "2 servers") || !strings.Contains(legend, "8 servers") {
		t.Errorf("the legend does not name the lines in text: %q", legend)
	}
}

func TestSyncSweepNamesWhatIsWrong(t *testing.T) {
	for _, tt := range []struct {
		body, want string
	}{
		{"```sync-sweep\n" + `{"scenario": ` + fourThenFifteen + `, "syncs": [100]}` + "\n```\n", "needs a caption"},
		{sweepBody(``), "syncs: list the sync intervals"},
		{sweepBody(`, "syncs": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]`), "at most 10"},
		{sweepBody(`, "syncs": [100], "nodes": [1]`), "nodes: 1 is out of range"},
		{sweepBody(`, "syncs": [100], "policy": "#2"`), "lanes #1 to #1"},
		{sweepBody(`, "syncs": [100], "colour": "red"`), "unknown field"},
		{"```sync-sweep\n" + `{"caption": "c", "scenario": {"limit": 5, "windowMs": 1000, "policies": [{"name": "fixed-window", "nodes": 3, "central": true}], "requests": [{"at": 0}]}, "syncs": [100]}` + "\n```\n", "central store has no sync interval"},
	} {
		lib, l := predictLib(t, tt.body)
		r, err := lib.Render(l, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Problems) != 1 || !strings.Contains(r.Problems[0].What, tt.want) {
			t.Errorf("problems %v, want one saying %q", r.Problems, tt.want)
		}
	}
}

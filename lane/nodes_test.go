package lane

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
)

// severalServers is the example in the playground: a one-server
// fixed window beside three servers syncing every 500 ms, 15 requests at
// 0 and one more at 1.2 s, the clock at 1.5 s.
func severalServers(t *testing.T, lane string) play.View {
	t.Helper()
	sc, err := scenario.Parse([]byte(`{"limit": 5, "windowMs": 1000, "policies": ["fixed-window", ` + lane + `],
		"requests": [{"at": 0, "count": 15}, {"at": 1200}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return viewAt(t, sc, 1500)
}

func TestSeveralServersLane(t *testing.T) {
	tests := []struct {
		name, lane string
		syncs      int    // sync ticks in the span
		desc       string // in the text alternative
		window     string // the first window's title: the combined count
	}{
		{"syncing", `{"name": "fixed-window", "nodes": 3, "syncMs": 500}`, -1, "3 nodes, each counting on its own and syncing every 500 ms (the short ticks above the axis).", "15"},
		{"never syncing", `{"name": "fixed-window", "nodes": 3}`, 0, "3 nodes, each counting on its own and never syncing.", "15"},
		{"central", `{"name": "fixed-window", "nodes": 3, "syncMs": 500, "central": true}`, 0, "3 nodes sharing one central store.", "5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := severalServers(t, tt.lane)
			in := FromView(v, v.Lanes[1])
			doc := render(t, in, Options{})
			// The lane's own timeline, not its nodes' under it.
			main := doc.Find("figure > .lane-scroll > svg")
			ticks := main.Find("[data-testid=sync-tick]")
			want := tt.syncs
			if want < 0 { // every 500 ms of the span
				want = int((in.To-in.From)/500) + 1
			}
			if ticks.Length() != want {
				t.Errorf("%d sync ticks, want %d", ticks.Length(), want)
			}
			if want > 1 {
				if got := ticks.Eq(1).Find("title").Text(); got != "sync at 500 ms" {
					t.Errorf("the second sync tick's title = %q, want %q", got, "sync at 500 ms")
				}
			}
			desc := main.Find("desc").Text()
			if !strings.Contains(desc, tt.desc) || !strings.Contains(desc, "against the one limit") {
				t.Errorf("the text alternative %q does not say %q and how to read the lane", desc, tt.desc)
			}
			var nodes []string
			main.Find("g.mark").Each(func(i int, m *goquery.Selection) {
				nodes = append(nodes, m.Find("text.mark-node").Text())
				title := m.Find("title").Text()
				if !strings.Contains(title, "by node "+m.Find("text.mark-node").Text()) {
					t.Errorf("mark %d's title %q does not name its node", i+1, title)
				}
			})
			if got, want := strings.Join(nodes, ""), "1231231231231231"; got != want {
				t.Errorf("the marks' nodes read %q, want %q (round-robin)", got, want)
			}
			if got := main.Find("rect").First().Find("title").Text(); !strings.Contains(got, tt.window) {
				t.Errorf("the first window says %q, want the combined count %s", got, tt.window)
			}
		})
	}
}

// A one-server lane draws nothing of the above.
func TestOneServerLaneHasNoNodes(t *testing.T) {
	v := severalServers(t, `{"name": "fixed-window", "nodes": 3, "syncMs": 500}`)
	doc := render(t, FromView(v, v.Lanes[0]), Options{})
	if n := doc.Find("[data-testid=sync-tick], text.mark-node").Length(); n != 0 {
		t.Errorf("a one-server lane draws %d sync ticks or node numbers", n)
	}
	if desc := doc.Find("desc").Text(); strings.Contains(desc, "nodes") {
		t.Errorf("a one-server lane's text alternative speaks of nodes: %q", desc)
	}
}

// Syncs too close to draw apart are said, not drawn.
func TestSyncTicksAreBounded(t *testing.T) {
	v := severalServers(t, `{"name": "fixed-window", "nodes": 2, "syncMs": 1}`)
	doc := render(t, FromView(v, v.Lanes[1]), Options{})
	if n := doc.Find("[data-testid=sync-tick]").Length(); n != 0 {
		t.Errorf("%d sync ticks 1 ms apart drawn, want none beyond %d", n, MaxSyncTicks)
	}
	if desc := doc.Find("desc").Text(); !strings.Contains(desc, "syncing every 1 ms.") {
		t.Errorf("the text alternative %q does not give the interval", desc)
	}
}

// Marks several nodes decided at one instant are each drawn apart, with
// their numbers apart, in the lane and in every node's timeline, and a
// node's count label beside its clock covers none of them.
func TestNodeMarksAtOneInstantDoNotOverlap(t *testing.T) {
	const preset = `{"limit": 5, "windowMs": 1000, "policies": [{"name": "fixed-window", "nodes": 3, "syncMs": 500}], "requests": [{"at": 0, "count": 6}, {"at": 600, "count": 9}, {"at": 1200, "count": 9}]}`
	for _, tt := range []struct {
		name, scenario string
		now            int64
	}{
		{"six at 0 s on three servers", `{"limit": 5, "windowMs": 1000, "policies": [{"name": "fixed-window", "nodes": 3, "syncMs": 500}], "requests": [{"at": 0, "count": 6}]}`, 1500},
		{"fifteen at 0 s on three skewed clocks", `{"limit": 5, "windowMs": 1000, "policies": [{"name": "fixed-window", "nodes": 3, "syncMs": 500, "skewMs": [0, 300, -300]}], "requests": [{"at": 0, "count": 15}, {"at": 1200}]}`, 1500},
		{"the several-servers preset at 1.2 s", preset, 1200},
		{"the several-servers preset at 0.6 s", preset, 600},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := scenario.Parse([]byte(tt.scenario))
			if err != nil {
				t.Fatal(err)
			}
			sess, err := play.NewStore(nil).New(scenario.Scenario{})
			if err != nil {
				t.Fatal(err)
			}
			if err := sess.Load(sc); err != nil {
				t.Fatal(err)
			}
			if err := sess.Jump(tt.now); err != nil {
				t.Fatal(err)
			}
			v := sess.View()
			doc := render(t, FromView(v, v.Lanes[0]), Options{})
			svgs := doc.Find("figure > .lane-scroll > svg, [data-testid=lane-node] svg")
			if svgs.Length() != 4 {
				t.Fatalf("%d timelines drawn, want the lane's and three nodes'", svgs.Length())
			}
			svgs.Each(func(n int, svg *goquery.Selection) {
				where := "the lane"
				if n > 0 {
					where = fmt.Sprintf("node %d's timeline", n)
				}
				checkMarksApart(t, where, svg, n == 0)
			})
		})
	}
}

// checkMarksApart checks that the marks of svg sharing an instant are a
// mark apart, their node numbers a font's height apart on one side, and
// that no node count label lies over a number.
func checkMarksApart(t *testing.T, where string, svg *goquery.Selection, all bool) {
	t.Helper()
	type placed struct {
		x, y   float64
		left   bool
		title  string
		number string
		at     string
	}
	instant := regexp.MustCompile(` at (\S+ m?s) `)
	var marks []placed
	svg.Find("g.mark").Each(func(_ int, m *goquery.Selection) {
		var p placed
		tr, _ := m.Attr("transform")
		if _, err := fmt.Sscanf(tr, "translate(%g %g)", &p.x, &p.y); err != nil {
			t.Fatalf("%s: transform %q: %v", where, tr, err)
		}
		label := m.Find("text.mark-node")
		p.left = label.AttrOr("text-anchor", "") == "end"
		p.title, p.number = m.Find("title").Text(), label.Text()
		if at := instant.FindStringSubmatch(p.title); at != nil {
			p.at = at[1]
		}
		marks = append(marks, p)
	})
	if all && len(marks) < 6 {
		t.Fatalf("%s: %d marks drawn, want every request", where, len(marks))
	}
	for i, a := range marks {
		if a.number == "" {
			t.Errorf("%s: %s: no node number", where, a.title)
		}
		for _, b := range marks[i+1:] {
			if a.at != b.at {
				continue
			}
			if d := math.Hypot(a.x-b.x, a.y-b.y); d < 2*markRadius {
				t.Errorf("%s: %s at (%.1f, %.1f) and %s at (%.1f, %.1f) are %.1f apart, less than a mark (%d)", where, a.title, a.x, a.y, b.title, b.x, b.y, d, 2*markRadius)
			}
			if a.left == b.left && math.Abs(a.y-b.y) < 10 {
				t.Errorf("%s: the node numbers of %s and %s are on one side %.1f apart, less than their 10-unit font", where, a.title, b.title, math.Abs(a.y-b.y))
			}
		}
	}
	svg.Find("text.node-level-label").Each(func(_ int, l *goquery.Selection) {
		var lx, ly float64
		fmt.Sscanf(l.AttrOr("x", "")+" "+l.AttrOr("y", ""), "%g %g", &lx, &ly)
		for _, m := range marks {
			// A number starts 7 right of its mark (or ends 7 left of it),
			// its baseline 5 above it, about 6 wide a digit.
			x0, x1 := m.x+7, m.x+7+6*float64(len(m.number))
			if m.left {
				x0, x1 = m.x-7-6*float64(len(m.number)), m.x-7
			}
			labelW := 6 * float64(len(l.Text()))
			if lx < x1 && lx+labelW > x0 && math.Abs(ly-(m.y-5)) < 10 {
				t.Errorf("%s: the count label %q at (%.1f, %.1f) covers the node number of %s at (%.1f, %.1f)", where, l.Text(), lx, ly, m.title, x0, m.y-5)
			}
		}
	})
}

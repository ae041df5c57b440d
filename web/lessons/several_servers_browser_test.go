package lessons

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/windowlab/playground/internal/browsertest"
)

// TestBrowserSeveralServersLesson walks the first prediction of "Several
// servers" on a desktop with the mouse and on a phone with the keyboard
// alone: the example stays closed until the prediction is committed, then
// opens on three servers' lane, drawn with the node that decided each
// request named in text (a number by the mark, "admitted by node 2" in its
// title, the same in the lane's table) and fitting the screen.
func TestBrowserSeveralServersLesson(t *testing.T) {
	url := lessonsSite(t)
	const id = "local-count"
	form := `[data-predict="` + id + `"]`
	reveal := `details[data-predict-reveal="` + id + `"]`
	lane := reveal + ` figure[data-label="fixed-window on 3 servers, no sync"]`
	for _, width := range []int64{1280, 360} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			tab := browsertest.NewTab(t)
			tab.Do(chromedp.EmulateViewport(width, 900), chromedp.Navigate(url+"/lessons/several-servers"))
			predictionsReady(tab)
			if revealOpen(tab, id) {
				t.Fatal("the first example is open before any prediction")
			}
			if browsertest.Run(tab, chromedp.Evaluate[bool](`document.querySelector('`+lane+`').checkVisibility()`)) {
				t.Fatal("the three servers' lane is visible before any prediction")
			}
			if width == 1280 {
				tab.Do(chromedp.SendKeys(chromedp.CSS(form+` [data-testid="predict-answer"]`), "15"),
					chromedp.Click(chromedp.CSS(form+` [data-testid="predict-commit"]`)))
				tab.WaitText(form+` [data-testid="predict-verdict"]`, "Your prediction was right")
			} else {
				// By keyboard: a first guess of one server's limit, which
				// keeps the example closed, then the answer.
				tab.Do(chromedp.Focus(chromedp.CSS(form+` [data-testid="predict-answer"]`)), chromedp.KeyEvent("5\r"))
				tab.WaitText(form+` [data-testid="predict-verdict"]`, "Not quite: try again")
				if revealOpen(tab, id) {
					t.Fatal("a first wrong try opened the example")
				}
				tab.Do(chromedp.Focus(chromedp.CSS(form + ` [data-testid="predict-answer"]`)))
				browsertest.Run(tab, chromedp.Evaluate[bool](`document.activeElement.select(), true`))
				tab.Do(chromedp.KeyEvent("15\r"))
				tab.WaitText(form+` [data-testid="predict-verdict"]`, "Your prediction was right")
				if got := browsertest.Run(tab, chromedp.Evaluate[string](`document.activeElement.id`)); got != "predict-"+id+"-feedback" {
					t.Errorf("after committing, focus is on %q, want the feedback", got)
				}
			}
			if !revealOpen(tab, id) {
				t.Fatal("a committed prediction did not open its example")
			}
			if !browsertest.Run(tab, chromedp.Evaluate[bool](`document.querySelector('`+lane+` svg.lane-svg').checkVisibility()`)) {
				t.Fatal("the three servers' lane is not visible after the reveal")
			}
			if got := tab.Text(lane + ` figcaption`); !strings.Contains(got, "3 servers") {
				t.Errorf("the lane's caption %q does not say it runs on 3 servers", got)
			}
			if got := browsertest.Run(tab, chromedp.Evaluate[string](`document.querySelector('`+lane+` desc').textContent`)); !strings.Contains(got, "with the number of the node that decided it") {
				t.Errorf("the lane's text alternative does not say how its nodes are shown: %q", got)
			}
			// Every mark names its node: a visible number beside it, inside
			// the drawing, and its title in words.
			type mark struct {
				Node    string `json:"node"`
				Title   string `json:"title"`
				Visible bool   `json:"visible"`
				Inside  bool   `json:"inside"`
			}
			marks := browsertest.Run(tab, chromedp.Evaluate[[]mark](`(() => {
				const svg = document.querySelector('`+lane+` svg.lane-svg').getBoundingClientRect();
				return [...document.querySelectorAll('`+lane+` > .lane-scroll g.mark')].map(g => {
					const n = g.querySelector('text.mark-node'), r = n ? n.getBoundingClientRect() : null;
					return {node: n ? n.textContent : '', title: g.querySelector('title').textContent,
						visible: !!n && n.checkVisibility(),
						inside: !!r && r.left >= svg.left - 1 && r.right <= svg.right + 1 && r.top >= svg.top - 1 && r.bottom <= svg.bottom + 1};
				});
			})()`))
			if len(marks) != 20 {
				t.Fatalf("the lane draws %d marks, want the 20 requests", len(marks))
			}
			var nodes []string
			for i, m := range marks {
				if want := fmt.Sprint(i%3 + 1); m.Node != want || !strings.Contains(m.Title+" ", "by node "+want+" ") {
					t.Errorf("request %d: node label %q, title %q; want node %s (dealt in turn)", i+1, m.Node, m.Title, want)
				}
				if !m.Visible || !m.Inside {
					t.Errorf("request %d: its node's number is visible %v, inside the lane %v", i+1, m.Visible, m.Inside)
				}
				if !slices.Contains(nodes, m.Node) {
					nodes = append(nodes, m.Node)
				}
			}
			if len(nodes) != 3 {
				t.Errorf("the marks name nodes %v, want 1, 2 and 3", nodes)
			}
			// The lane's table, opened as a keyboard user would, says the
			// same in words.
			tab.Do(chromedp.Focus(chromedp.CSS(reveal+` [data-testid="live-lanes"] details.lanes-table summary`)), chromedp.KeyEvent("\r"))
			tab.WaitText(reveal+` [data-testid="live-lanes"] details.lanes-table table`, "node 2 never hears of the request node 1 admitted in the last window (the nodes never sync)")
			if n := browsertest.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll('.claim-mismatch, .claim-broken, .block-broken').length`)); n > 0 {
				t.Errorf("the lesson shows %d numbers that disagree with the policies", n)
			}
			if w := browsertest.Run(tab, chromedp.Evaluate[int64](`document.documentElement.scrollWidth`)); w > width {
				t.Errorf("the lesson is %d px wide on a %d px screen", w, width)
			}
			tab.NoProblems()
		})
	}
}

// TestBrowserSyncSweepChart opens the sweep's example on a phone: the
// chart is one picture with a text alternative, it fits the screen, its
// three lines are drawn with markers of their own, and its legend names
// them in text.
func TestBrowserSyncSweepChart(t *testing.T) {
	url := lessonsSite(t)
	tab := browsertest.NewTab(t)
	tab.Do(chromedp.EmulateViewport(360, 740), chromedp.Navigate(url+"/lessons/several-servers?open=busy-eight#sweep-1"))
	chart := `details[data-predict-reveal="busy-eight"] [data-testid="sync-sweep"]`
	tab.WaitText(chart+` [data-testid="sweep-legend"]`, "8 servers")
	type box struct {
		Visible bool    `json:"visible"`
		Width   float64 `json:"width"`
		Series  int     `json:"series"`
		Markers int     `json:"markers"`
		Label   string  `json:"label"`
	}
	got := browsertest.Run(tab, chromedp.Evaluate[box](`(() => {
		const svg = document.querySelector('`+chart+` svg[role="img"]');
		const ids = svg.getAttribute('aria-labelledby').split(' ');
		return {visible: svg.checkVisibility(), width: svg.getBoundingClientRect().width,
			series: svg.querySelectorAll('[data-testid="sweep-series"]').length,
			markers: svg.querySelectorAll('path.marker').length,
			label: ids.map(id => document.getElementById(id).textContent).join(' ')};
	})()`))
	if !got.Visible || got.Width < 200 || got.Width > 360 {
		t.Errorf("the chart: visible %v, %.0f px wide on a 360 px screen", got.Visible, got.Width)
	}
	if got.Series != 3 || got.Markers != 18 {
		t.Errorf("the chart draws %d lines and %d markers, want 3 lines of 6 intervals", got.Series, got.Markers)
	}
	for _, want := range []string{"Over-admission", "2 servers: 0 syncing every 50 ms", "8 servers:", "never syncing"} {
		if !strings.Contains(got.Label, want) {
			t.Errorf("the chart's text alternative lacks %q: %s", want, got.Label)
		}
	}
	tab.Do(chromedp.Focus(chromedp.CSS(chart+` details summary`)), chromedp.KeyEvent("\r"))
	tab.WaitText(chart+` [data-testid="sweep-table"]`, "never")
	if w := browsertest.Run(tab, chromedp.Evaluate[int64](`document.documentElement.scrollWidth`)); w > 360 {
		t.Errorf("the lesson with the chart open is %d px wide on a 360 px screen", w)
	}
	tab.NoProblems()
}

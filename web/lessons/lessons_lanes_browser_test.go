package lessons

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/windowlab/playground/internal/browsertest"
)

// laneTextPx is the smallest size on screen, in CSS px, of any text drawn
// inside the page's lesson lanes: the font's size times the SVG's scale.
const laneTextPx = `Math.min(...[...document.querySelectorAll('.live-lanes svg.lane-svg text')].map(t =>
	parseFloat(getComputedStyle(t).fontSize) * t.ownerSVGElement.getScreenCTM().a))`

// TestBrowserLessonLanesByKeyboardAt360 steps a lesson's lanes with the
// keyboard on a 360 px phone: Enter on "Next", then an arrow key on the
// slider, each redrawing the block in place (no page load), and the lane's
// text stays readable.
func TestBrowserLessonLanesByKeyboardAt360(t *testing.T) {
	url := lessonsSite(t)
	tab := browsertest.NewTab(t)
	tab.Do(chromedp.EmulateViewport(360, 740), chromedp.Navigate(url+"/lessons/fixed-window"))
	tab.WaitText(`[data-testid="live-status"]`, "Live: buttons and pictures answer in place")
	// The lanes are the example a prediction guards: open it from its
	// summary by keyboard, as a reader who skips the prediction would.
	guarded := browsertest.Run(tab, chromedp.Evaluate[bool](`(() => {
		const d = document.querySelector('#lanes-1').closest('details');
		if (d) d.querySelector('summary').focus();
		return !!d;
	})()`))
	if guarded {
		tab.Do(chromedp.KeyEvent("\r"))
	}
	tab.WaitText(`#lanes-1 [data-testid="lane-now"]`, "Step 6 of 10")
	if px := browsertest.Run(tab, chromedp.Evaluate[float64](laneTextPx)); px < 10.5 {
		t.Errorf("lane text is %.1f px on a 360 px screen, want at least 10.5", px)
	}
	if w := browsertest.Run(tab, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 360 {
		t.Errorf("the lesson is %d px wide on a 360 px screen", w)
	}
	at := tab.Location()
	tab.Do(chromedp.Focus(chromedp.CSS(`#lanes-1 [data-testid="lane-next"]`)), chromedp.KeyEvent("\r"))
	tab.WaitText(`#lanes-1 [data-testid="lane-now"]`, "Step 7 of 10: the request at 35 s is admitted")
	tab.Do(chromedp.Focus(chromedp.CSS(`#lanes-1 [data-testid="lane-scrub"]`)), chromedp.KeyEvent(kb.ArrowRight))
	tab.WaitText(`#lanes-1 [data-testid="lane-now"]`, "Step 8 of 10")
	if marks := browsertest.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll('#lanes-1 svg .mark').length`)); marks != 8 {
		t.Errorf("step 8 draws %d marks, want 8", marks)
	}
	if loc := tab.Location(); loc != at {
		t.Errorf("stepping loaded another page: %q, was %q", loc, at)
	}
	tab.NoProblems()
}

// TestBrowserQuietThenBurstStaysInItsLane draws lesson 6 at 1280 px: the
// burst of ten at one instant stays inside its own lane's picture, and the
// seven-policy tables show every column without scrolling sideways.
func TestBrowserQuietThenBurstStaysInItsLane(t *testing.T) {
	url := lessonsSite(t)
	tab := browsertest.NewTab(t)
	tab.Do(chromedp.EmulateViewport(1280, 900), chromedp.Navigate(url+"/lessons/beyond-windows"))
	tab.WaitText(`[data-testid="lesson"]`, "minute read")
	outside := browsertest.Run(tab, chromedp.Evaluate[[]string](`[...document.querySelectorAll('.live-lanes svg.lane-svg')].flatMap(svg => {
		const box = svg.getBoundingClientRect();
		return [...svg.querySelectorAll('.mark')].filter(m => {
			const r = m.getBoundingClientRect();
			return r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5 || r.left < box.left - 0.5 || r.right > box.right + 0.5;
		}).map(m => svg.closest('figure').id + ' mark ' + m.dataset.index);
	})`))
	if len(outside) > 0 {
		t.Errorf("marks drawn outside their lane: %s", strings.Join(outside, ", "))
	}
	if n := browsertest.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll('.live-lanes svg .mark').length`)); n < 15 {
		t.Errorf("the lanes draw %d marks; the burst's lane alone has 15", n)
	}
	// The tables sit in closed disclosures ("As a table", a prediction's
	// example); a closed one has no width to measure, so open them all.
	openAllDetails(tab)
	hidden := browsertest.Run(tab, chromedp.Evaluate[[]string](`[...document.querySelectorAll('.live-table .table-scroll')].filter(s => s.scrollWidth > s.clientWidth + 1).map(s => s.getAttribute('aria-label') + ': ' + s.scrollWidth + ' > ' + s.clientWidth)`))
	if len(hidden) > 0 {
		t.Errorf("tables scroll sideways at 1280 px: %s", strings.Join(hidden, "; "))
	}
	if n := browsertest.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll('.live-table .table-scroll').length`)); n == 0 {
		t.Error("no table measured")
	}
	tab.NoProblems()
}

// openAllDetails opens every disclosure of the page, as a reader who opens
// each "As a table" and each prediction's example would.
func openAllDetails(tab *browsertest.Tab) {
	tab.T().Helper()
	browsertest.Run(tab, chromedp.Evaluate[int](`[...document.querySelectorAll('details')].map(d => d.open = true).length`))
}

// TestBrowserLessonLanesTableByKeyboard opens a lesson's "As a table" by
// keyboard, steps on with the table open (it stays open, one more row),
// follows the link to the whole scenario as a table, and submits the step
// form with its Show button: each redraws the block in place.
func TestBrowserLessonLanesTableByKeyboard(t *testing.T) {
	url := lessonsSite(t)
	tab := browsertest.NewTab(t)
	tab.Do(chromedp.EmulateViewport(360, 740), chromedp.Navigate(url+"/lessons/fixed-window"))
	tab.WaitText(`[data-testid="live-status"]`, "Live: buttons and pictures answer in place")
	// Open the prediction's example, then the table, as a keyboard user.
	browsertest.Run(tab, chromedp.Evaluate[bool](`(() => { const d = document.querySelector('#lanes-1').closest('details'); if (d) d.open = true; return true })()`))
	tab.Do(chromedp.Focus(chromedp.CSS(`#lanes-1-as-table > summary`)), chromedp.KeyEvent("\r"))
	rows := func() int {
		return browsertest.Run(tab, chromedp.Evaluate[int](`document.querySelector('#lanes-1-as-table').open ? document.querySelectorAll('#lanes-1-as-table tbody tr').length : -1`))
	}
	if n := rows(); n != 6 {
		t.Fatalf("the opened table shows %d rows, want 6 (-1: closed)", n)
	}
	at := tab.Location()
	tab.Do(chromedp.Focus(chromedp.CSS(`#lanes-1 [data-testid="lane-next"]`)), chromedp.KeyEvent("\r"))
	tab.WaitText(`#lanes-1-as-table > summary`, "As a table (requests 1–7 of 10)")
	if n := rows(); n != 7 {
		t.Errorf("after Next the table shows %d rows, want 7 (-1: closed)", n)
	}
	tab.Do(chromedp.Focus(chromedp.CSS(`#lanes-1 [data-testid="lanes-table-whole"]`)), chromedp.KeyEvent("\r"))
	tab.WaitText(`#lanes-1-as-table > summary`, "As a table (all 10 requests)")
	if n := rows(); n != 10 {
		t.Errorf("the whole table shows %d rows, want 10 (-1: closed)", n)
	}
	browsertest.Run(tab, chromedp.Evaluate[bool](`(() => { document.querySelector('#lanes-1-step').value = '2'; return true })()`))
	tab.Do(chromedp.Focus(chromedp.CSS(`#lanes-1 .lane-scrub button`)), chromedp.KeyEvent("\r"))
	tab.WaitText(`#lanes-1 [data-testid="lane-now"]`, "Step 2 of 10")
	if loc := tab.Location(); loc != at {
		t.Errorf("stepping loaded another page: %q, was %q", loc, at)
	}
	tab.NoProblems()
}

package traffic

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/windowlab/playground/internal/browsertest"
	"github.com/windowlab/playground/internal/webtest"
)

// A visitor uploads a log, sees the density lanes, zooms into a slice
// until single requests are drawn, sorts the client table and sees the
// sweep chart; at 360×740 nothing scrolls sideways. The waits are on the
// browser's page loads, not on time.
func TestBrowserUploadZoomSortSweep(t *testing.T) {
	base := newTestServer(t)
	path := filepath.Join(t.TempDir(), "access.log")
	if err := os.WriteFile(path, generatedLog(t, 3000, 40), 0o600); err != nil {
		t.Fatal(err)
	}
	tab := browsertest.NewTab(t)
	tab.Do(chromedp.EmulateViewport(1280, 900), chromedp.Navigate(base+"/traffic"))
	tab.Do(
		chromedp.SetValue(chromedp.CSS(`#traffic-limit`), "6"),
		chromedp.SetUploadFiles(chromedp.CSS(`[data-testid="traffic-file"]`), []string{path}),
		chromedp.Click(chromedp.CSS(`[data-testid="traffic-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="traffic-result"]`)),
	)
	tab.WaitText(`[data-testid="traffic-summary"]`, "3000 requests from")
	lanes := browsertest.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="traffic-lane"]').length`))
	bars := browsertest.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="traffic-bar"]').length`))
	if lanes < 7 || bars < lanes {
		t.Errorf("%d lanes with %d bars, want a lane per policy (7) drawn as slices", lanes, bars)
	}
	if n := browsertest.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="traffic-sweep-line"]').length`)); n != lanes {
		t.Errorf("%d sweep lines, want %d", n, lanes)
	}
	if browsertest.FiguresWanted() {
		png := browsertest.Run(tab, chromedp.FullScreenshot(100))
		browsertest.SaveFigure(t, "traffic-1280.png", png)
	}
	// axe-core (installed by npm ci) finds nothing on the results.
	webtest.NoAxeViolations(t, tab, "the results")
	// Zoom: click the first slice until single requests are drawn.
	for range 4 {
		if browsertest.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="traffic-mark"]').length`)) > 0 {
			break
		}
		from := tab.Location()
		tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="traffic-bar"] .traffic-hit`)))
		tab.WaitNavigated(from)
	}
	if n := browsertest.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="traffic-mark"]').length`)); n == 0 {
		t.Errorf("no single requests drawn after zooming: %s", tab.Text(`[data-testid="traffic-range"]`))
	}
	// Sort by requests.
	from := tab.Location()
	tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="traffic-sort-requests"]`)))
	tab.WaitNavigated(from)
	sorted := browsertest.Run(tab, chromedp.Evaluate[bool](`(() => {
		const n = [...document.querySelectorAll('[data-testid="traffic-requests"]')].map(td => +td.textContent);
		return n.length > 1 && n.every((v, i) => i === 0 || n[i-1] >= v);
	})()`))
	if !sorted {
		t.Error("the client table is not sorted by requests after choosing that heading")
	}
	// A client's name draws its lanes, as the playground draws them.
	from = tab.Location()
	tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="traffic-client-link"]`)))
	tab.WaitNavigated(from)
	if n := browsertest.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="traffic-client-lanes"] [data-testid="lane"]').length`)); n != lanes {
		t.Errorf("%d lanes for the client, want %d", n, lanes)
	}
	// At 360×740 the page does not scroll sideways.
	// (the page with a client's lanes open, the widest it gets).
	tab.Do(chromedp.EmulateViewport(360, 740, chromedp.EmulateMobile), chromedp.Navigate(tab.Location()), chromedp.WaitVisible(chromedp.CSS(`[data-testid="traffic-client-lanes"]`)))
	overflow := browsertest.Run(tab, chromedp.Evaluate[int](`document.documentElement.scrollWidth - document.documentElement.clientWidth`))
	if overflow > 0 {
		wide := browsertest.Run(tab, chromedp.Evaluate[[]string](`[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5).slice(0, 8).map(e => e.tagName + '.' + e.className + '#' + e.id + ' ' + Math.round(e.getBoundingClientRect().right))`))
		t.Errorf("at 360×740 the page is %d px wider than the screen: %v", overflow, wide)
	}
	if browsertest.FiguresWanted() {
		png := browsertest.Run(tab, chromedp.FullScreenshot(100))
		browsertest.SaveFigure(t, "traffic-360.png", png)
	}
	tab.NoProblems()
}

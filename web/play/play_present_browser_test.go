package play

import (
	"fmt"
	"os"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/windowlab/playground/internal/browsertest"
	"github.com/windowlab/playground/internal/webtest"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
)

// presentBoxesJS measures what the presentation view must show whole: the
// clock, every lane, the explanation; an element that scrolls or clips its
// own content counts as not showing it.
const presentBoxesJS = `(() => {
	const measure = (name, e) => {
		const r = e.getBoundingClientRect();
		return {name, left: r.left, top: r.top, right: r.right, bottom: r.bottom,
			hidden: Math.max(e.scrollHeight - e.clientHeight, e.scrollWidth - e.clientWidth, 0)};
	};
	const out = [measure('clock', document.querySelector('#play-clock'))];
	for (const l of document.querySelectorAll('[data-testid=lane]')) out.push(measure(l.dataset.label, l));
	out.push(measure('explanation', document.querySelector('#play-explain')));
	for (const a of document.querySelectorAll('#play-explain [data-testid=explain-lane]')) out.push(measure('explanation of ' + (a.querySelector('h3, strong') || a).textContent.split(':')[0].trim(), a));
	return out;
})()`

// smallestTypeJS finds the smallest font size among the texts the room
// must read: the lanes' names, the clock, each line of the explanation.
const smallestTypeJS = `(() => {
	const smallest = sel => Math.min(...[...document.querySelectorAll(sel)].map(e => parseFloat(getComputedStyle(e).fontSize)));
	return {"lane name": smallest('.lane-label'), "clock": smallest('.clock-time'), "explanation line": smallest('#play-explain h2, #play-explain [data-testid=explain-lane]')};
})()`

// TestBrowserPlayPresentationFits: on a 1280 × 720 projector with four
// lanes and with all seven, and a 1920 × 1080 one with all seven, the presentation view shows
// the clock, every lane and the selected request's explanation whole
// without scrolling, with the OS set to light and to dark.
func TestBrowserPlayPresentationFits(t *testing.T) {
	_, url, _ := newTestServer(t, Playground(play.NewStore(nil)))
	seven, err := os.ReadFile("../../lessons/scenarios/car-park.json")
	if err != nil {
		t.Fatal(err)
	}
	all, err := scenario.Parse(seven)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		w, h  int64
		sc    scenario.Scenario
		lanes int
	}{
		{1280, 720, webtest.CarParkScenario(t, nil), 4},
		{1280, 720, all, 7},
		{1920, 1080, all, 7},
	} {
		for _, scheme := range []string{"light", "dark"} {
			name := fmt.Sprintf("%dx%d %d lanes %s", c.w, c.h, c.lanes, scheme)
			tab := browsertest.NewTab(t)
			webtest.EmulateScheme(t, tab, scheme)
			tab.Do(chromedp.EmulateViewport(c.w, c.h), chromedp.Navigate(url+scenario.EncodeURL(c.sc)+"&t=40000&present=1"))
			tab.WaitText(`[data-testid="live-status"]`, "Live: connected")
			tab.Do(chromedp.WaitVisible(chromedp.CSS(`#lane-0`)))
			browsertest.Run(tab, chromedp.Evaluate[bool](`(document.activeElement && document.activeElement.blur(), true)`))
			pressKey(tab, "[")
			tab.WaitText(`[data-testid="explain"]`, "Request 10 at 40 s")
			// The figure of the README and docs/playground.md.
			if c.w == 1920 && scheme == "light" {
				browsertest.SaveFigure(t, "play-present-1920.png", browsertest.Run(tab, chromedp.CaptureScreenshot()))
			}
			// Large type: the lanes' names, the clock and the explanation's
			// lines are at least 2.2% of the screen's height (16 px at 720,
			// 24 px at 1080), as a slide's body text is read from the back.
			minType := 0.022 * float64(c.h)
			for what, size := range browsertest.Run(tab, chromedp.Evaluate[map[string]float64](smallestTypeJS)) {
				if size < minType {
					t.Errorf("%s: the smallest %s is %.1f px, want at least %.1f px", name, what, size, minType)
				}
			}
			boxes := browsertest.Run(tab, chromedp.Evaluate[[]webtest.Box](presentBoxesJS))
			if lanes := len(boxes) - 2 - c.lanes; lanes < 0 {
				t.Fatalf("%s: %d boxes measured, want the clock, %d lanes and the explanation", name, len(boxes), c.lanes)
			}
			for _, b := range boxes {
				if b.Left < 0 || b.Top < 0 || b.Right > float64(c.w)+0.5 || b.Bottom > float64(c.h)+0.5 {
					t.Errorf("%s: %s spans (%.0f, %.0f)–(%.0f, %.0f), outside the %d × %d screen", name, b.Name, b.Left, b.Top, b.Right, b.Bottom, c.w, c.h)
				}
				if b.Hidden > 1 {
					t.Errorf("%s: %s hides %.0f px of its content (scrolled or clipped)", name, b.Name, b.Hidden)
				}
			}
		}
	}
}

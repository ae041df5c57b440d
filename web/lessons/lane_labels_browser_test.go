package lessons

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/windowlab/playground/internal/browsertest"
)

// bandLabelOverlapsJS lists, for every lane drawn on the page, the window
// labels whose drawn boxes (getBBox, in the lane's own units) run into the
// next one's, with the lane text at the given size (the page's own when
// empty); and how many labels it measured.
const bandLabelOverlapsJS = `((size) => {
	const out = [];
	let measured = 0;
	for (const svg of document.querySelectorAll('svg.lane-svg')) {
		const old = svg.style.fontSize;
		if (size) svg.style.fontSize = size;
		const boxes = [...svg.querySelectorAll('text.band-label')].map(t => ({text: t.textContent, box: t.getBBox()}))
			.sort((a, b) => a.box.x - b.box.x);
		measured += boxes.length;
		for (let i = 1; i < boxes.length; i++) {
			const a = boxes[i-1], b = boxes[i];
			if (b.box.x < a.box.x + a.box.width) {
				out.push(svg.closest('figure').dataset.label + ': ' + a.text + ' at ' + a.box.x.toFixed(1) + '+' + a.box.width.toFixed(1) + ' runs into ' + b.text + ' at ' + b.box.x.toFixed(1));
			}
		}
		svg.style.fontSize = old;
	}
	return [String(measured), ...out];
})(%q)`

// TestBrowserWindowLabelsKeepApart draws lesson 4, whose stacked lanes
// hold thirteen one-second windows in a few hundred units, on a desktop
// and a phone: no window label runs into another as the browser draws
// them, at the lesson's text size nor at the projector's 16 px (the size
// lane spaces labels for).
func TestBrowserWindowLabelsKeepApart(t *testing.T) {
	url := lessonsSite(t)
	for _, vp := range []struct{ w, h int64 }{{1440, 900}, {360, 740}} {
		tab := browsertest.NewTab(t)
		tab.Do(chromedp.EmulateViewport(vp.w, vp.h), chromedp.Navigate(url+"/lessons/where-they-disagree"))
		tab.WaitText(`[data-testid="lesson"]`, "minute read")
		openAllDetails(tab) // the stack's lanes are a prediction's example
		for _, size := range []string{"", "16px"} {
			got := browsertest.Run(tab, chromedp.Evaluate[[]string](fmt.Sprintf(bandLabelOverlapsJS, size)))
			if got[0] == "0" {
				t.Errorf("%d px, text %q: no window label measured", vp.w, size)
			}
			if len(got) > 1 {
				t.Errorf("%d px, text %q: window labels overlap:\n%s", vp.w, size, strings.Join(got[1:], "\n"))
			}
		}
		tab.NoProblems()
	}
}

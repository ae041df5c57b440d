package room

import (
	"fmt"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/windowlab/playground/internal/browsertest"
)

// revealPlaceJS says where the reveal is: the tally's box against the
// viewport, and how far the page is scrolled.
const revealPlaceJS = `(() => {
	const t = document.querySelector('[data-testid=tally]');
	const q = document.querySelector('#room-question').getBoundingClientRect();
	if (!t) return {tally: false, questionTop: q.top, scrollY: scrollY};
	const r = t.getBoundingClientRect();
	return {tally: true, inView: r.top >= 0 && r.bottom <= innerHeight + 0.5 && r.left >= 0 && r.right <= innerWidth + 0.5,
		top: r.top, bottom: r.bottom, questionTop: q.top, scrollY: scrollY};
})()`

type revealPlace struct {
	Tally, InView                     bool
	Top, Bottom, QuestionTop, ScrollY float64
}

// TestBrowserRoomRevealComesIntoView: the presenter, scrolled down to the
// controls (the question above, off the screen), reveals; the projector
// brings the tally into its viewport. Pressing Reveal with
// prefers-reduced-motion, the page jumps: the tally is in view as soon as
// it is on the page. A reveal sent by another device (a plain POST, the
// page's button untouched) moves the projector too, through the stream,
// and the page glides there.
func TestBrowserRoomRevealComesIntoView(t *testing.T) {
	for _, c := range []struct {
		w, h   int64
		motion string // prefers-reduced-motion
		button bool   // the page's Reveal button, or another device's POST
	}{
		{1280, 720, "reduce", true},
		{1920, 1080, "reduce", true},
		{1280, 720, "no-preference", false},
	} {
		name := fmt.Sprintf("%d × %d, reduced motion %s", c.w, c.h, c.motion)
		tab, _, roomPath := projectorRoom(t, c.w, c.h)
		if _, err := chromedp.Call(tab.Context(), emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: c.motion}},
		}); err != nil {
			t.Fatal(err)
		}
		tab.Do(chromedp.SendKeys(chromedp.CSS(`[data-testid="ask-at"]`), "41 s"), chromedp.Click(chromedp.CSS(`[data-testid="ask"]`)))
		tab.WaitText(`[data-testid="answered"]`, "answered")
		browsertest.Run(tab, chromedp.Evaluate[bool](`(document.querySelector('[data-testid=reveal]').scrollIntoView({block: 'end'}), true)`))
		before := browsertest.Run(tab, chromedp.Evaluate[revealPlace](revealPlaceJS))
		if before.Tally || before.QuestionTop >= 0 {
			t.Fatalf("%s: before the reveal the question is at %.0f px (tally shown %v), want it above the viewport, the page at the controls", name, before.QuestionTop, before.Tally)
		}
		if c.button {
			tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="reveal"]`)), chromedp.WaitReady(chromedp.CSS(`[data-testid="tally"]`)))
			if got := browsertest.Run(tab, chromedp.Evaluate[revealPlace](revealPlaceJS)); !got.InView {
				t.Errorf("%s: once the tally is on the page it spans %.0f–%.0f px of a %d px viewport (scrolled %.0f px), want it in view at once", name, got.Top, got.Bottom, c.h, got.ScrollY)
			}
			continue
		}
		status := browsertest.Run(tab, chromedp.Evaluate[int](
			`fetch('`+roomPath+`/reveal', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{}'}).then(r => r.status)`,
			chromedp.EvalAwaitPromise))
		if status != 200 && status != 204 {
			t.Fatalf("%s: revealing by POST: status %d", name, status)
		}
		tab.Do(chromedp.WaitReady(chromedp.CSS(`[data-testid="tally"]`)))
		if got, _ := browsertest.Until(tab, revealPlaceJS, func(p revealPlace) bool { return p.InView }); !got.InView {
			t.Errorf("%s: %s after another device's reveal the tally spans %.0f–%.0f px of a %d px viewport (scrolled %.0f px), want it in view", name, browsertest.Timeout, got.Top, got.Bottom, c.h, got.ScrollY)
		}
	}
}

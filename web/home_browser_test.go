package web_test

import (
	"fmt"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/windowlab/playground/internal/browsertest"
)

// homePicture is where the home page's picture sits and which frame it
// shows.
type homePicture struct {
	Top, Bottom, Height float64 // the picture's box and the viewport's height
	FirstLaneBottom     float64 // the bottom of the first lane's drawing
	Frame               string  // the frame shown (home.js's data-frame)
	Shown               int     // frames not hidden
	Overflow            bool    // the page scrolls sideways
}

const homePictureJS = `(() => {
	const fig = document.querySelector('[data-testid="home-picture"]');
	const r = fig.getBoundingClientRect();
	const svg = fig.querySelector('.home-frame:not([hidden]) svg').getBoundingClientRect();
	return {Top: r.top, Bottom: r.bottom, Height: innerHeight, FirstLaneBottom: svg.bottom,
		Frame: fig.dataset.frame || "", Shown: fig.querySelectorAll('.home-frame:not([hidden])').length,
		Overflow: document.documentElement.scrollWidth > document.documentElement.clientWidth};
})()`

// TestBrowserHomePictureAboveTheFold: the home page's live picture (the
// boundary burst, a fixed window beside a sliding log) is in the first
// screen at 1280×900 and on a 360×740 phone, plays by itself (its frame
// changes with no input), and under prefers-reduced-motion shows its last
// frame, every decision, still.
func TestBrowserHomePictureAboveTheFold(t *testing.T) {
	url := lessonsSite(t)
	for _, c := range []struct {
		w, h   int64
		mobile bool
	}{{1280, 900, false}, {360, 740, true}} {
		tab := browsertest.NewTab(t)
		opts := []chromedp.EmulateViewportOption{}
		if c.mobile {
			opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch)
		}
		tab.Do(chromedp.EmulateViewport(c.w, c.h, opts...), chromedp.Navigate(url+"/"))
		tab.WaitText(`[data-testid="live-status"]`, "Live: buttons and pictures answer in place")
		first := browsertest.Run(tab, chromedp.Evaluate[homePicture](homePictureJS))
		if first.Top < 0 || first.FirstLaneBottom > first.Height {
			t.Errorf("%d×%d: the picture starts at %.0f px and its first lane ends at %.0f px of a %.0f px screen, want it above the fold", c.w, c.h, first.Top, first.FirstLaneBottom, first.Height)
		}
		if first.Shown != 1 || first.Overflow {
			t.Errorf("%d×%d: %d frames shown, page scrolls sideways: %v", c.w, c.h, first.Shown, first.Overflow)
		}
		// The figure shows the frame the page opens on, the last, with
		// every decision (the next is the empty one before the first
		// request).
		if browsertest.FiguresWanted() {
			browsertest.FinishAnimations(tab)
			browsertest.SaveFigure(t, fmt.Sprintf("home-%d.png", c.w), browsertest.Run(tab, chromedp.CaptureScreenshot()))
		}
		// Playing by itself: wait (on the browser's own timer, up to the
		// tab's timeout) for the frame to change with no input.
		browsertest.Run(tab, chromedp.Evaluate[bool](`new Promise(ok => {
			const fig = document.querySelector('[data-testid="home-picture"]'), was = fig.dataset.frame;
			const check = () => fig.dataset.frame !== was ? ok(true) : setTimeout(check, 50);
			check();
		})`, chromedp.EvalAwaitPromise))
	}
	// Reduced motion: the last frame stays; the button plays it on request.
	tab := browsertest.NewTab(t)
	if _, err := chromedp.Call(tab.Context(), emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}},
	}); err != nil {
		t.Fatal(err)
	}
	tab.Do(chromedp.EmulateViewport(1280, 900), chromedp.Navigate(url+"/"))
	tab.WaitText(`[data-testid="home-toggle"]`, "Play")
	// Two of the playing page's frame steps (700 ms each), on the browser's
	// clock: the picture must not have moved.
	browsertest.Run(tab, chromedp.Evaluate[bool](`new Promise(ok => setTimeout(() => ok(true), 1500))`, chromedp.EvalAwaitPromise))
	still := browsertest.Run(tab, chromedp.Evaluate[homePicture](homePictureJS))
	if still.Frame != "10" || still.Shown != 1 {
		t.Errorf("reduced motion: frame %q (%d shown), want the last, 10, still", still.Frame, still.Shown)
	}
	tab.NoProblems()
}

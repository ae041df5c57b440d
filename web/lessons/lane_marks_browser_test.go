package lessons

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/windowlab/playground/internal/browsertest"
	"github.com/windowlab/playground/internal/webtest"
)

// TestBrowserLessonLaneMarksApart draws the lessons whose lanes compare
// policies (their ▼ marks the requests the lanes decide differently), with
// every example open, on a desktop and a phone (mobile emulation): every
// lane keeps its marks apart as /play's and the projector's do
// (webtest.LaneMarksApart), the ▼ row touching no mark.
func TestBrowserLessonLaneMarksApart(t *testing.T) {
	url := lessonsSite(t)
	for _, vp := range []struct {
		w, h   int64
		mobile bool
	}{{1280, 900, false}, {360, 740, true}} {
		for _, lesson := range []string{"where-they-disagree", "sliding-counter"} {
			tab := browsertest.NewTab(t)
			if vp.mobile {
				tab.Do(chromedp.EmulateViewport(vp.w, vp.h, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulateScale(2)))
			} else {
				tab.Do(chromedp.EmulateViewport(vp.w, vp.h))
			}
			tab.Do(chromedp.Navigate(url + "/lessons/" + lesson))
			tab.WaitText(`[data-testid="lesson"]`, "minute read")
			openAllDetails(tab) // the lanes of a prediction's example
			browsertest.FinishAnimations(tab)
			lanes := webtest.LaneMarksApart(t, tab, fmt.Sprintf("%s at %d px", lesson, vp.w))
			disagree := 0
			for _, l := range lanes {
				disagree += len(l.Disagree)
			}
			if len(lanes) == 0 || disagree == 0 {
				t.Errorf("%s at %d px: %d lanes measured, %d with a ▼ row; want lanes that disagree", lesson, vp.w, len(lanes), disagree)
			}
			tab.NoProblems()
		}
	}
}

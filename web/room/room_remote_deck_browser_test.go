package room

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/windowlab/playground/internal/browsertest"
	"github.com/windowlab/playground/internal/webtest"
	"github.com/windowlab/playground/room"
)

// phoneHeadJS is where a phone's step line is and how wide the page is.
const phoneHeadJS = `(() => {
	const r = document.querySelector('[data-testid=phone-header] [data-testid=room-step-line]').getBoundingClientRect();
	return {top: r.top, bottom: r.bottom, width: document.documentElement.scrollWidth};
})()`

type phoneHead struct{ Top, Bottom, Width float64 }

// TestBrowserRoomRemoteStepsDeck: the presenter's remote, a 360 × 740
// phone, runs a prepared workshop (#32 items 5 and 6): with the shipped
// introduction deck loaded it steps to a step that only shows, then to
// one that asks with a countdown, reveals and plays, every control on its
// first screen at each stage; the projector and a phone follow each step
// (the step's title in the phone's header, on its first screen, and in
// the projector's column, the question on both); a phone that tapped one
// lane is told its answer was not sent, then not counted. A step taken on
// the projector's page reaches the remote's step and its Next step.
func TestBrowserRoomRemoteStepsDeck(t *testing.T) {
	// The rooms' clock stands still, so that no countdown runs out and
	// reveals before the remote does, however slow the machine.
	stopped := time.Now()
	presenter, url, roomPath := scenarioRoomConfig(t, "car-park", 40000, 1280, 720, room.Config{Now: func() time.Time { return stopped }})
	if s := browsertest.Run(presenter, chromedp.Evaluate[int](`fetch('`+roomPath+`/deck/load', {method: 'POST', body: new URLSearchParams({shipped: 'introduction'})}).then(r => r.status)`, chromedp.EvalAwaitPromise)); s != 200 {
		t.Fatalf("loading the introduction deck: status %d after the redirect, want 200", s)
	}
	remote := pairRemote(t, presenter, url, roomPath)
	remote.WaitText(`[data-testid="room-step-line"]`, "A prepared workshop of 6 steps, none shown yet")
	remote.WaitText(`[data-testid="deck-next"]`, "1 of 6")
	checkRemote(t, remote, "deck loaded")
	phone := joinPhone(t, url, roomPath)

	// A step that only shows: every screen says which.
	remote.Do(chromedp.Click(chromedp.CSS(`[data-testid="deck-next"]`)))
	for _, tab := range []*browsertest.Tab{remote, presenter, phone} {
		tab.WaitText(`[data-testid="room-step-line"]`, "Step 1 of 6: The car park")
	}
	remote.WaitText(`[data-testid="deck-next"]`, "2 of 6")
	phone.WaitText(`[data-testid="waiting"]`, "Waiting for the next question")

	// A step that asks, with its countdown.
	remote.Do(chromedp.Click(chromedp.CSS(`[data-testid="deck-next"]`)))
	phone.WaitText(`[data-testid="phone-header"] [data-testid="room-step-line"]`, "Step 2 of 6: A car at 31 s")
	presenter.WaitText(`.present-side [data-testid="room-step-line"]`, "Step 2 of 6: A car at 31 s")
	presenter.WaitText(`#room-question h2`, "Question 1")
	remote.WaitText(`[data-testid="room-countdown"]`, "0:45 left")
	phone.WaitText(`[data-testid="room-countdown"]`, "0:45 left")
	remote.WaitText(`[data-testid="answered"]`, "0 answered · 1 phone following")
	checkRemote(t, remote, "step 2 asked")
	webtest.NoAxeViolations(t, remote, "remote, a deck's question open")
	head := browsertest.Run(phone, chromedp.Evaluate[phoneHead](phoneHeadJS))
	if head.Top < 0 || head.Bottom > 740 || head.Width > 360 {
		t.Errorf("step 2: the phone's step line spans %.0f–%.0f px down a page %.0f px wide: want it on the first 360 × 740 screen", head.Top, head.Bottom, head.Width)
	}
	browsertest.SaveFigure(t, "room-remote-deck-360x740.png", browsertest.Run(remote, chromedp.CaptureScreenshot()))
	if browsertest.FiguresWanted() {
		// Waits on the browser: the lanes drawn again at each size.
		for _, size := range [][2]int64{{1920, 1080}, {1280, 720}} {
			presenter.Do(chromedp.EmulateViewport(size[0], size[1]))
			presenter.WaitText(`.present-side [data-testid="room-step-line"]`, "Step 2 of 6")
			browsertest.Run(presenter, chromedp.Poll[bool](`document.querySelector('.present') && innerWidth === `+strconv.FormatInt(size[0], 10)))
			browsertest.SaveFigure(t, fmt.Sprintf("room-projector-deck-%dx%d.png", size[0], size[1]), browsertest.Run(presenter, chromedp.CaptureScreenshot()))
		}
	}

	// One lane of seven tapped: not sent, and the phone says so.
	phone.Do(chromedp.Click(chromedp.CSS(`[data-testid="answer-lane"]:nth-of-type(1) [data-testid="tap"][data-value="1"]`)))
	phone.WaitText(`[data-testid="unsent"]`, "Not sent yet: 1 of 7 lanes answered")
	webtest.NoAxeViolations(t, phone, "phone, a deck's question open")
	browsertest.SaveFigure(t, "room-phone-step-360x740.png", browsertest.Run(phone, chromedp.CaptureScreenshot()))
	remote.Do(chromedp.Click(chromedp.CSS(`[data-testid="reveal"]`)))
	remote.WaitText(`[data-testid="remote-right"]`, "fixed-window")
	presenter.Do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="tally"]`)))
	phone.WaitText(`[data-testid="phone-truth"]`, "")
	phone.WaitText(`[data-testid="unsent"]`, "Not sent: 1 of 7 lanes were answered")
	checkRemote(t, remote, "step 2 revealed")

	// Play and pause from the remote; the projector's clock follows.
	remote.Do(chromedp.Click(chromedp.CSS(`[data-testid="room-toggle"]`)))
	presenter.WaitText(`[data-testid="room-clock"]`, "playing")
	remote.Do(chromedp.Click(chromedp.CSS(`[data-testid="room-toggle"]`)))
	presenter.WaitText(`[data-testid="room-clock"]`, "paused")

	// The next step asks again; its reveal, then a step taken on the
	// projector's page, which the remote follows.
	remote.Do(chromedp.Click(chromedp.CSS(`[data-testid="deck-next"]`)))
	phone.WaitText(`[data-testid="room-step-line"]`, "Step 3 of 6: Three cars at 45 s")
	presenter.WaitText(`#room-question h2`, "Question 2")
	remote.WaitText(`[data-testid="room-question"]`, "Question 2")
	remote.Do(chromedp.Click(chromedp.CSS(`[data-testid="reveal"]`)))
	presenter.Do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="tally"][data-revealed="2"]`)))
	presenter.Do(chromedp.Click(chromedp.CSS(`#room-deck-line [data-testid="deck-next"]`)))
	remote.WaitText(`[data-testid="room-step-line"]`, "Step 4 of 6: When does the next car get in?")
	remote.WaitText(`[data-testid="deck-next"]`, "5 of 6")
	phone.WaitText(`[data-testid="room-step-line"]`, "Step 4 of 6")
	checkRemote(t, remote, "step 4 from the projector")
	if got := remote.Text(`[data-testid="room-error"]`); strings.TrimSpace(got) != "" {
		t.Errorf("the remote reads the error %q", got)
	}
	remote.NoProblems()
	phone.NoProblems()
}

package room

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/windowlab/playground/internal/browsertest"
	"github.com/windowlab/playground/internal/webtest"
)

// remoteControlsJS lists the remote's controls that are not wholly on
// its first screen, and how wide the page is.
const remoteControlsJS = `(() => {
	const controls = [...document.querySelectorAll('[data-testid=remote-controls] :is(button, select)')];
	const off = controls.filter(c => { const r = c.getBoundingClientRect(); return r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth || r.height < 40; })
		.map(c => c.textContent.trim().slice(0, 20) + ' ' + JSON.stringify(c.getBoundingClientRect()));
	return {controls: controls.length, off, width: document.documentElement.scrollWidth};
})()`

type remoteControls struct {
	Controls int
	Off      []string
	Width    float64
}

// pairRemote pairs a 360 × 740 phone as the presenter's remote, as the
// presenter's projector page offers, and returns it on the remote's page.
func pairRemote(t *testing.T, presenter *browsertest.Tab, url, roomPath string) *browsertest.Tab {
	t.Helper()
	code := browsertest.Run(presenter, chromedp.Evaluate[string](`fetch('`+roomPath+`/pair/new', {method: 'POST'}).then(r => r.text()).then(t => t.match(/data-testid="pair-code"[^>]*>([^<]+)</)[1])`, chromedp.EvalAwaitPromise))
	remote := browsertest.NewTab(t)
	remote.Do(chromedp.EmulateViewport(360, 740, chromedp.EmulateScale(2), chromedp.EmulateMobile), chromedp.Navigate(url+roomPath+"/pair?code="+code))
	from := remote.Location()
	remote.Do(chromedp.Submit(chromedp.CSS(`#pair-code`)))
	remote.WaitNavigated(from)
	if got := strings.TrimPrefix(remote.Location(), url); got != roomPath+"/remote" {
		t.Fatalf("pairing led to %s, want %s/remote", got, roomPath)
	}
	remote.WaitText(`[data-testid="live-status"]`, "Live: connected")
	return remote
}

// checkRemote checks the remote at one stage: every control (the
// question's kind, next step, reveal and eight more buttons) wholly on
// its first 360 × 740 screen and at least 40 px high, nothing wider than
// the screen.
func checkRemote(t *testing.T, remote *browsertest.Tab, stage string) {
	t.Helper()
	browsertest.Run(remote, chromedp.Evaluate[bool](`(window.scrollTo(0, 0), true)`))
	got := browsertest.Run(remote, chromedp.Evaluate[remoteControls](remoteControlsJS))
	if got.Controls < 11 {
		t.Errorf("%s: the remote has %d controls, want the question's kind and ten buttons", stage, got.Controls)
	}
	for _, o := range got.Off {
		t.Errorf("%s: the control %s is not wholly on the first 360 × 740 screen (or under 40 px high)", stage, o)
	}
	if got.Width > 360 {
		t.Errorf("%s: the remote is %.0f px wide", stage, got.Width)
	}
}

// TestBrowserRoomRemote: a device paired as the presenter's remote lands
// on a page of controls that fits a 360 × 740 phone (#32 item 5): every
// control on its first screen, at least 40 px high, nothing wider than
// the screen; from it the presenter asks with a 60 s timer (a countdown
// on the phone too), sees a phone's answer counted, reveals (and sees how
// many were right), plays, pauses, steps and fires, each reaching the
// projector.
func TestBrowserRoomRemote(t *testing.T) {
	presenter, url, roomPath := projectorRoom(t, 1280, 720)
	remote := pairRemote(t, presenter, url, roomPath)
	remote.WaitText(`[data-testid="room-status"]`, "10 requests")
	check := func(stage string) { t.Helper(); checkRemote(t, remote, stage) }
	check("no question")
	webtest.NoAxeViolations(t, remote, "remote")

	phone := joinPhone(t, url, roomPath)
	remote.Do(chromedp.SetValue(chromedp.CSS(`[data-testid="ask-kind"]`), "admit"), chromedp.SetValue(chromedp.CSS(`[data-testid="ask-seconds"]`), "60"),
		chromedp.Click(chromedp.CSS(`[data-testid="ask"]`)))
	remote.WaitText(`[data-testid="answered"]`, "0 answered · 1 phone following")
	// The remote's timer: a countdown on every screen.
	remote.WaitText(`[data-testid="room-countdown"]`, "left")
	phone.WaitText(`[data-testid="room-countdown"]`, "left")
	presenter.WaitText(`#room-question h2`, "be admitted?")
	check("question open")
	phone.WaitText(`[data-testid="room-question"]`, "be admitted?")
	for lane := range 7 {
		phone.Do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-testid="answer-lane"]:nth-of-type(%d) [data-testid="tap"][data-value="1"]`, lane+1))))
	}
	remote.WaitText(`[data-testid="answered"]`, "1 answered")
	remote.Do(chromedp.Click(chromedp.CSS(`[data-testid="reveal"]`)))
	remote.WaitText(`[data-testid="remote-right"]`, "fixed-window")
	presenter.Do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="tally"]`)))
	check("revealed")
	webtest.NoAxeViolations(t, remote, "remote, revealed")

	remote.Do(chromedp.Click(chromedp.CSS(`[data-testid="dismiss"]`)))
	remote.WaitText(`[data-testid="waiting"]`, "No question open")
	remote.Do(chromedp.Click(chromedp.CSS(`[data-testid="room-toggle"]`)))
	presenter.WaitText(`[data-testid="room-clock"]`, "playing")
	remote.Do(chromedp.Click(chromedp.CSS(`[data-testid="room-toggle"]`)))
	presenter.WaitText(`[data-testid="room-clock"]`, "paused")
	remote.Do(chromedp.Click(chromedp.CSS(`[data-testid="room-step-window"]`)))
	// Waits on the browser: the clock, paused past 40 s, moves on a window.
	browsertest.Run(presenter, chromedp.Poll[bool](`parseFloat(document.querySelector("[data-testid=clock]").textContent) >= 70`))
	remote.Do(chromedp.Click(chromedp.CSS(`[data-testid="room-fire"]`)))
	presenter.WaitText(`[data-testid="room-status"]`, "11 requests")
	remote.WaitText(`[data-testid="room-status"]`, "11 requests")
	remote.NoProblems()
}

// TestBrowserPlayStartRoomWithinReach: "Start a room" is on /play's first
// screen at 1280 × 900 and 360 × 740 (#32 item 8: it was some 1,960 px
// down), and so, once the room runs, is the way back to it.
func TestBrowserPlayStartRoomWithinReach(t *testing.T) {
	for _, size := range [][2]int64{{1280, 900}, {360, 740}} {
		w, h := size[0], size[1]
		name := fmt.Sprintf("%d × %d", w, h)
		tab, url, roomPath := projectorRoom(t, w, h) // clicks Start a room on /play
		tab.Do(chromedp.Navigate(url + "/play"))
		tab.WaitText(`[data-testid="live-status"]`, "Live: connected")
		for _, sel := range []string{"back-to-room", "start-room"} {
			bottom := browsertest.Run(tab, chromedp.Evaluate[float64](`(() => { const e = document.querySelector('[data-testid=`+sel+`]'); return e ? e.getBoundingClientRect().bottom : 1e9; })()`))
			if bottom > float64(h) {
				t.Errorf("%s: /play's %s ends %.0f px down, below the first screen (%d px)", name, sel, bottom, h)
			}
		}
		if href := browsertest.Run(tab, chromedp.Evaluate[string](`document.querySelector('[data-testid=back-to-room]').getAttribute('href')`)); href != roomPath+"/present" {
			t.Errorf("%s: Back to room leads to %q, want %s/present", name, href, roomPath)
		}
	}
}

package room

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/windowlab/playground/internal/browsertest"
	"github.com/windowlab/playground/internal/webtest"
)

// TestBrowserRoomScreenFollows: the projector-only window, opened beside
// the presenter's page, follows the room live: a question the presenter
// asks appears on it, then its tally at the reveal; it has no controls,
// and its text meets the projector's size rule.
func TestBrowserRoomScreenFollows(t *testing.T) {
	presenter, url, roomPath := projectorRoom(t, 1280, 720)
	screen := browsertest.NewTab(t)
	screen.Do(chromedp.EmulateViewport(1280, 720), chromedp.Navigate(url+roomPath+"/screen"))
	screen.WaitText(`[data-testid="live-status"]`, "Live: connected")
	if n := browsertest.Run(screen, chromedp.Evaluate[int](`document.querySelectorAll('button, input, select, [data-testid=room-controls]').length`)); n != 0 {
		t.Errorf("the projector window holds %d controls, want none", n)
	}
	post := func(path string) {
		t.Helper()
		status := browsertest.Run(presenter, chromedp.Evaluate[int](
			`fetch('`+roomPath+path+`', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{"askKind": "admit", "askAt": "41 s", "cost": "1"}'}).then(r => r.status)`,
			chromedp.EvalAwaitPromise))
		if status != 200 && status != 204 {
			t.Fatalf("POST %s from the presenter's page: status %d", path, status)
		}
	}
	post("/ask")
	screen.WaitText(`[data-testid="answered"]`, "answered")
	if got := screen.Text(`#room-question h2`); got == "" {
		t.Error("the asked question is not on the projector window")
	}
	post("/reveal")
	screen.Do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="tally"]`)))
	min := projectorMinType * 720
	for _, x := range browsertest.Run(screen, chromedp.Evaluate[[]shownText](projectorTextJS)) {
		if x.Px < min-0.05 {
			t.Errorf("projector window: %q (in %s) is %.1f px, want at least %.1f px", x.Text, x.Where, x.Px, min)
		}
	}
	webtest.NoAxeViolations(t, screen, "projector window, revealed")
	screen.NoProblems()
}

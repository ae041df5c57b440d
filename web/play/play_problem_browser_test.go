package play

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/windowlab/playground/internal/browsertest"
	"github.com/windowlab/playground/play"
)

// TestBrowserPlayProblemIsSeenFirst: at 1280×720 a bad shared link's
// reason used to sit about 2,340 px down, unfocused. It must be on screen
// and focused when the page opens.
func TestBrowserPlayProblemIsSeenFirst(t *testing.T) {
	_, url, _ := newTestServer(t, Playground(play.NewStore(nil)))
	tab := browsertest.NewTab(t)
	tab.Do(
		chromedp.EmulateViewport(1280, 720),
		chromedp.Navigate(url+"/play?s=garbage"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="play-problem"]`)),
	)
	type placed struct {
		Focused bool    `json:"focused"`
		Top     float64 `json:"top"`
		Bottom  float64 `json:"bottom"`
	}
	got := browsertest.Run(tab, chromedp.Evaluate[placed](`(() => { const p = document.querySelector('[data-testid=play-problem]'); const r = p.getBoundingClientRect();
		return {focused: document.activeElement === p, top: r.top, bottom: r.bottom}; })()`))
	if !got.Focused {
		t.Error("the problem notice is not focused")
	}
	if got.Top < 0 || got.Bottom > 720 {
		t.Errorf("the problem notice spans %.0f to %.0f px, not inside the 720 px screen", got.Top, got.Bottom)
	}
	// The 400 itself is on the console; nothing else may be.
	for _, m := range tab.Console() {
		if m.IsException() || (m.Type == chromedp.ConsoleError && m.URL != url+"/play?s=garbage") {
			t.Errorf("browser console: %s (%s)", m, m.URL)
		}
	}
}

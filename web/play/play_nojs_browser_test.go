package play

import (
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/windowlab/playground/internal/browsertest"

	"github.com/windowlab/playground/play"
)

// TestBrowserPlayWithoutJavaScript: with scripts off, the notice is shown
// on the first screen of a phone.
func TestBrowserPlayWithoutJavaScript(t *testing.T) {
	_, url, _ := newTestServer(t, Playground(play.NewStore(nil)))
	tab := browsertest.NewTab(t)
	if _, err := chromedp.Call(tab.Context(), emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	tab.Do(
		chromedp.EmulateViewport(360, 740),
		chromedp.Navigate(url+"/play"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="noscript"]`)),
	)
	bottom := browsertest.Run(tab, chromedp.Evaluate[float64](`document.querySelector('[data-testid=noscript]').getBoundingClientRect().bottom`))
	if bottom > 740 {
		t.Errorf("the notice ends %.0f px down a 740 px phone screen", bottom)
	}
}

// TestBrowserPlayServersWithoutJavaScript: with scripts off, the closed
// servers' heading opens on their link, which leads to the page with the
// servers' fields open, scrolled to them.
func TestBrowserPlayServersWithoutJavaScript(t *testing.T) {
	_, url, _ := newTestServer(t, Playground(play.NewStore(nil)))
	tab := browsertest.NewTab(t)
	if _, err := chromedp.Call(tab.Context(), emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	tab.Do(
		chromedp.EmulateViewport(360, 740),
		chromedp.Navigate(url+"/play"),
		chromedp.Click(chromedp.CSS(`#play-servers > summary`)),
		chromedp.Click(chromedp.CSS(`[data-testid="servers-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#play-servers[open] [data-testid="lane-nodes"]`)),
	)
	if n, want := browsertest.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid=lane-servers]').length`)), len(play.DefaultScenario().Policies); n != want {
		t.Errorf("the page shows %d lanes' server fields, want the %d lanes'", n, want)
	}
	top := browsertest.Run(tab, chromedp.Evaluate[float64](`document.getElementById('play-servers').getBoundingClientRect().top`))
	// Scrolling to the fragment may leave the heading a fraction of a
	// pixel above the top (-0.5 px prints as "-0").
	if top < -1 || top > 740 {
		t.Errorf("the servers are %.0f px down a 740 px screen, want them in view", top)
	}
}

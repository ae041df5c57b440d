package play

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/windowlab/playground/internal/browsertest"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
)

// TestBrowserPlayServersWithTheKeyboard sets a lane's servers from the
// keyboard on a desktop and on a phone: the servers open from their
// heading (their fields fetched then, Tab reaching the first), nodes and sync are typed and applied with Enter, the lane is
// relabelled and, once fired at, draws its three nodes' states; a bad
// node count is said next to the settings, naming the lane's field; the
// page stays within the screen's width.
func TestBrowserPlayServersWithTheKeyboard(t *testing.T) {
	_, url, _ := newTestServer(t, Playground(play.NewStore(nil)))
	for _, width := range []int64{1280, 360} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			tab := browsertest.NewTab(t)
			tab.Do(chromedp.EmulateViewport(width, 900), chromedp.Navigate(url+scenario.EncodeURL(serversScenario())))
			tab.WaitText(`[data-testid="live-status"]`, "Live: connected")
			tab.Do(chromedp.WaitVisible(chromedp.CSS(`#lane-0`)))
			tab.WaitLive() // the stream's first frame has re-rendered the page

			tab.Do(chromedp.Focus(chromedp.CSS(`[data-testid="play-servers"] > summary`)), chromedp.KeyEvent("\r"))
			tab.Do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="lane-nodes"]`)))
			// The fields arrive after the opening: the focus stays on
			// the heading, and Tab goes on to the first field.
			tab.Do(chromedp.KeyEvent("\t"))
			if got := browsertest.Run(tab, chromedp.Evaluate[string](`document.activeElement.dataset.testid || document.activeElement.tagName`)); got != "lane-nodes" {
				t.Errorf("Tab after opening the servers focuses %s, want the first lane's nodes", got)
			}
			typeInto := func(sel, value string) {
				browsertest.Run(tab, chromedp.Evaluate[bool](`(document.querySelector('`+sel+`').value = '', true)`))
				tab.Do(chromedp.Focus(chromedp.CSS(sel)), chromedp.SendKeys(chromedp.CSS(sel), value))
			}
			first := `[data-testid="lane-servers"]:first-of-type `
			typeInto(first+`[data-testid="lane-nodes"]`, "3")
			typeInto(first+`[data-testid="lane-sync"]`, "500")
			tab.Do(chromedp.KeyEvent("\r")) // Enter in a field applies the settings
			tab.WaitText(`#lane-0 .lane-label`, "fixed-window on 3 servers, sync 500 ms")

			tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="fire"]`)))
			tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="fire"]`)))
			tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="fire"]`)))
			tab.WaitText(`#lane-0 [data-testid="lane-nodes"]`, "node 3")
			names := browsertest.Run(tab, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#lane-0 [data-testid="lane-node"] .lane-node-name')].map(n => n.textContent)`))
			if fmt.Sprint(names) != "[node 1 node 2 node 3]" {
				t.Errorf("the lane draws the states of %v, want node 1, node 2, node 3", names)
			}

			tab.NoProblems()
			if _, err := tab.Screenshot(fmt.Sprintf("play-servers-%d", width)); err != nil {
				t.Log(err)
			}

			typeInto(first+`[data-testid="lane-nodes"]`, "0")
			tab.Do(chromedp.KeyEvent("\r"))
			tab.WaitText(`[data-testid="err-settings"]`, "Lane 1 nodes: 0 is out of range [1, 16]")
			if w := browsertest.Run(tab, chromedp.Evaluate[int64](`document.documentElement.scrollWidth`)); w > width {
				t.Errorf("the playground is %d px wide on a %d px screen", w, width)
			}
			for _, p := range tab.Problems() {
				if !strings.Contains(p, "status of 400") { // the refused apply's answer
					t.Errorf("browser console: %s", p)
				}
			}
		})
	}
}

// TestBrowserPlayServersOneServerDisabled: a lane's sync, route and clock
// offsets are disabled while it runs on one server without a central
// store (play.ServersRule: there is nothing to set), and enabled as soon
// as it has more servers or the central store.
func TestBrowserPlayServersOneServerDisabled(t *testing.T) {
	_, url, _ := newTestServer(t, Playground(play.NewStore(nil)))
	tab := browsertest.NewTab(t)
	tab.Do(chromedp.EmulateViewport(1280, 900), chromedp.Navigate(url+scenario.EncodeURL(serversScenario())))
	tab.WaitText(`[data-testid="live-status"]`, "Live: connected")
	tab.Do(chromedp.WaitVisible(chromedp.CSS(`#lane-0`)))
	tab.WaitLive() // the stream's first frame has re-rendered the page
	tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="play-servers"] > summary`)))
	tab.Do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="lane-nodes"]`)))

	first := `[data-testid="lane-servers"]:first-of-type `
	disabledJS := `['lane-sync', 'lane-route', 'lane-skew'].map(id => document.querySelector('` + first + `[data-testid=' + id + ']').disabled)`
	for i, step := range []struct {
		do   string // "" the fields as sent, "nodes N" types N servers, "central" ticks the store
		want bool   // sync, route and offsets disabled
	}{
		{"", true},
		{"nodes 3", false},
		{"nodes 1", true},
		{"central", false},
		{"central", true},
	} {
		switch {
		case strings.HasPrefix(step.do, "nodes "):
			sel := first + `[data-testid="lane-nodes"]`
			browsertest.Run(tab, chromedp.Evaluate[bool](`(document.querySelector('`+sel+`').value = '', true)`))
			tab.Do(chromedp.SendKeys(chromedp.CSS(sel), strings.TrimPrefix(step.do, "nodes ")))
		case step.do == "central":
			tab.Do(chromedp.Click(chromedp.CSS(first + `[data-testid="lane-central"]`)))
		}
		want := []bool{step.want, step.want, step.want}
		if got, ok := browsertest.Until(tab, disabledJS, func(got []bool) bool { return fmt.Sprint(got) == fmt.Sprint(want) }); !ok {
			t.Errorf("step %d (%q): sync, route, offsets disabled = %v, want %v", i, step.do, got, want)
		}
	}
	tab.NoProblems()
}

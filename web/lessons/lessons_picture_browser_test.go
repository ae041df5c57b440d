package lessons

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/windowlab/playground/internal/browsertest"
)

// startAt puts keyboard focus on a prediction's block itself, so that the
// next Tab reaches the first control inside it: what a learner reading down
// the page would reach by tabbing.
func startAt(tab *browsertest.Tab, id string) {
	tab.T().Helper()
	browsertest.Run(tab, chromedp.Evaluate[bool](fmt.Sprintf(`(() => {
		const s = document.querySelector('[data-predict=%q]');
		s.setAttribute('tabindex', '-1');
		s.focus();
		return document.activeElement === s;
	})()`, id)))
}

// activeIs describes the focused element: its role, and its aria-label or
// name.
func active(tab *browsertest.Tab) string {
	tab.T().Helper()
	return browsertest.Run(tab, chromedp.Evaluate[string](`(() => {
		const a = document.activeElement;
		return (a.getAttribute('role') || a.tagName.toLowerCase()) + ': ' + (a.getAttribute('aria-label') || a.name || '');
	})()`))
}

// TestBrowserPredictOnThePictureWithTheKeyboard answers lesson 1's first
// prediction on its picture with the keyboard alone, at 1280×900 and on a
// 360×740 phone: Tab reaches the picture's marks, arrow keys move between
// the cars, Space marks the nine the learner thinks get in, the count field
// follows the marks, and Enter commits it, checked by the server as a
// typed 9 would be. Then lesson 2's moment question: the marker moved with
// the arrow keys writes the time.
func TestBrowserPredictOnThePictureWithTheKeyboard(t *testing.T) {
	url := lessonsSite(t)
	for _, c := range []struct {
		w, h   int64
		mobile bool
	}{{1280, 900, false}, {360, 740, true}} {
		name := fmt.Sprintf("%d×%d", c.w, c.h)
		tab := browsertest.NewTab(t)
		var opts []chromedp.EmulateViewportOption
		if c.mobile {
			opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch)
		}
		tab.Do(chromedp.EmulateViewport(c.w, c.h, opts...), chromedp.Navigate(url+"/lessons/fixed-window"))
		predictionsReady(tab)
		const id = "fw-car-park-count"
		startAt(tab, id)
		tab.Do(chromedp.KeyEvent(kb.Tab))
		if got := active(tab); !strings.HasPrefix(got, "checkbox: Request 1, at 0 s") {
			t.Fatalf("%s: Tab into the prediction focuses %q, want the picture's first car", name, got)
		}
		// Cars 1–5 (0 s to 15 s) and 7–10 (35 s, 40 s): all but the one at 25 s.
		for i := 1; i <= 10; i++ {
			if i != 6 {
				tab.Do(chromedp.KeyEvent(" "))
			}
			if i < 10 {
				tab.Do(chromedp.KeyEvent(kb.ArrowRight))
			}
		}
		sel := `[data-predict="` + id + `"]`
		checked := browsertest.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll('`+sel+` [role=checkbox][aria-checked=true]').length`))
		field := browsertest.Run(tab, chromedp.Evaluate[string](`document.querySelector('`+sel+` [data-testid=predict-answer]').value`))
		if checked != 9 || field != "9" {
			t.Fatalf("%s: %d cars marked and the count field says %q, want 9 and \"9\"", name, checked, field)
		}
		tab.Do(chromedp.KeyEvent(kb.Tab))
		if got := active(tab); !strings.HasPrefix(got, "input: answer") {
			t.Fatalf("%s: Tab after the picture focuses %q, want the count field", name, got)
		}
		tab.Do(chromedp.KeyEvent(kb.Enter))
		tab.WaitText(sel+` [data-testid="predict-verdict"]`, "Your prediction was right")
		if !revealOpen(tab, id) {
			t.Errorf("%s: the example did not open after the prediction", name)
		}
		if overflow := browsertest.Run(tab, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > document.documentElement.clientWidth`)); overflow {
			t.Errorf("%s: the lesson scrolls sideways", name)
		}
		tab.NoProblems()
	}

	// A moment: the sliding log's first admit from 25 s, by moving the
	// marker (a range under the picture) with the arrow keys.
	tab := browsertest.NewTab(t)
	tab.Do(chromedp.EmulateViewport(1280, 900), chromedp.Navigate(url+"/lessons/sliding-log"))
	predictionsReady(tab)
	const id = "sl-exact-wait"
	sel := `[data-predict="` + id + `"]`
	startAt(tab, id)
	tab.Do(chromedp.KeyEvent(kb.Tab))
	if got := active(tab); !strings.HasPrefix(got, "input: ") || !strings.Contains(got, "first moment") {
		t.Fatalf("Tab into the moment question focuses %q, want the picture's marker", got)
	}
	step := browsertest.Run(tab, chromedp.Evaluate[int](`+document.querySelector('`+sel+` [data-testid=ask-moment]').step`))
	for range 5000 / step { // 25 s + 5 s
		tab.Do(chromedp.KeyEvent(kb.ArrowRight))
	}
	field := browsertest.Run(tab, chromedp.Evaluate[string](`document.querySelector('`+sel+` [data-testid=predict-answer]').value`))
	if field != "30 s" {
		t.Fatalf("after moving the marker 5 s on, the time field says %q, want \"30 s\"", field)
	}
	tab.Do(chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(kb.Enter))
	tab.WaitText(sel+` [data-testid="predict-verdict"]`, "Your prediction was right")
	tab.NoProblems()
}

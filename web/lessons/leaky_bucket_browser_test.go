package lessons

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/windowlab/playground/internal/browsertest"
)

// TestBrowserLeakyBucketLesson reads the queue's section of "Beyond
// windows" on a desktop and on a phone: the prediction before nginx's
// example opens it, and the queue's lane then draws each queued request's
// wait, from arrival to departure, as long on screen as the wait is on the
// time axis.
func TestBrowserLeakyBucketLesson(t *testing.T) {
	url := lessonsSite(t)
	for _, width := range []int64{1280, 360} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			tab := browsertest.NewTab(t)
			tab.Do(chromedp.EmulateViewport(width, 900), chromedp.Navigate(url+"/lessons/beyond-windows"))
			predictionsReady(tab)
			const id = "queue-burst-count"
			if revealOpen(tab, id) {
				t.Fatal("the queue's example is open before any prediction")
			}
			form := `[data-predict="` + id + `"]`
			tab.Do(chromedp.Focus(chromedp.CSS(form+` [data-testid="predict-answer"]`)), chromedp.KeyEvent("6\r"))
			tab.WaitText(form+` [data-testid="predict-verdict"]`, "Your prediction was right")
			if !revealOpen(tab, id) {
				t.Fatal("a committed prediction did not open the queue's example")
			}
			lane := `details[data-predict-reveal="` + id + `"] figure[data-policy="leaky-bucket"]`
			// The bars' drawn widths, in CSS pixels, with each bar's title;
			// every bar must be inside the lane's drawing and visible.
			type bar struct {
				Width   float64 `json:"width"`
				Visible bool    `json:"visible"`
				Inside  bool    `json:"inside"`
				Title   string  `json:"title"`
			}
			bars := browsertest.Run(tab, chromedp.Evaluate[[]bar](`(() => {
				const svg = document.querySelector('`+lane+` svg.lane-svg').getBoundingClientRect();
				return [...document.querySelectorAll('`+lane+` [data-testid="wait"]')].map(g => {
					const r = g.querySelector('line').getBoundingClientRect();
					return {width: r.width, visible: g.checkVisibility(), title: g.querySelector('title').textContent,
						inside: r.left >= svg.left - 1 && r.right <= svg.right + 1};
				});
			})()`))
			if len(bars) != 5 {
				t.Fatalf("the queue's lane draws %d waits, want 5 (requests 2 to 6)", len(bars))
			}
			for i, b := range bars {
				if !b.Visible || !b.Inside || b.Width < 4 {
					t.Errorf("wait %d (%s): visible %v, inside the lane %v, %.1f px wide", i+1, b.Title, b.Visible, b.Inside, b.Width)
				}
				// Waits of 1 to 5 s: bar i is i+1 times the first.
				if want := float64(i+1) * bars[0].Width; b.Width < want-2 || b.Width > want+2 {
					t.Errorf("wait %d is %.1f px, want %.1f (%d × the 1 s wait)", i+1, b.Width, want, i+1)
				}
			}
			if want := "request 6 arrives at 0 s, waits 5 s, leaves at 5 s"; bars[4].Title != want {
				t.Errorf("the last wait's title is %q, want %q", bars[4].Title, want)
			}
			if n := browsertest.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll('.claim-mismatch, .claim-broken, .block-broken').length`)); n > 0 {
				t.Errorf("the lesson shows %d numbers that disagree with the policies", n)
			}
			if w := browsertest.Run(tab, chromedp.Evaluate[int64](`document.documentElement.scrollWidth`)); w > width {
				t.Errorf("the lesson is %d px wide on a %d px screen", w, width)
			}
			tab.NoProblems()
		})
	}
}

// TestBrowserLeakyBucketExercises answers the section's two exercises with
// the keyboard on a phone: queued or refused a little later (its working
// says how long the request waits), and how many get through; "another
// one" gives a variant.
func TestBrowserLeakyBucketExercises(t *testing.T) {
	url := lessonsSite(t)
	tab := browsertest.NewTab(t)
	tab.Do(chromedp.EmulateViewport(360, 740), chromedp.Navigate(url+"/exercises/leaky-queue-outcome"))
	tab.WaitText(`[data-testid="question"]`, "rate=1r/s burst=5")
	tab.WaitText(`[data-testid="live-status"]`, "Live: buttons and pictures answer in place")
	tab.Do(chromedp.Focus(chromedp.CSS(`[data-testid="answer"]`)), chromedp.KeyEvent("admitted\r"))
	tab.WaitText(`[data-testid="verdict"]`, "Right")
	tab.WaitText(`[data-testid="trace"]`, "waits 3.5 s")
	focusAndEnter(tab, `[data-testid="another"]`)
	tab.WaitText(`.lesson-meta`, "variant")

	tab.Do(chromedp.Navigate(url + "/exercises/leaky-queue-count"))
	tab.WaitText(`[data-testid="question"]`, "Eight requests arrive at the same instant")
	tab.Do(chromedp.Focus(chromedp.CSS(`[data-testid="answer"]`)), chromedp.KeyEvent("3\r"))
	tab.WaitText(`[data-testid="verdict"]`, "Not quite")
	tab.Do(chromedp.Focus(chromedp.CSS(`[data-testid="reveal"] summary`)), chromedp.KeyEvent("\r"))
	tab.WaitText(`[data-testid="reveal"]`, "The policies say 4")
	if w := browsertest.Run(tab, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 360 {
		t.Errorf("the exercise with its feedback is %d px wide on a 360 px screen", w)
	}
	tab.NoProblems()
}

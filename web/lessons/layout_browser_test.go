package lessons

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/windowlab/playground/internal/browsertest"
)

// screen is a size a layout test is run at.
type screen struct {
	w, h   int64
	mobile bool
}

func (s screen) String() string { return fmt.Sprintf("%d×%d", s.w, s.h) }

var laptopAndPhone = []screen{{1280, 900, false}, {360, 740, true}}

// open navigates a new tab emulating the screen to url.
func (s screen) open(t *testing.T, url string) *browsertest.Tab {
	t.Helper()
	tab := browsertest.NewTab(t)
	var opts []chromedp.EmulateViewportOption
	if s.mobile {
		opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch)
	}
	tab.Do(chromedp.EmulateViewport(s.w, s.h, opts...), chromedp.Navigate(url))
	return tab
}

// layoutProblemsJS lists what of a page's pictures and working tables
// inside root does not read as laid out: the page scrolling sideways, a
// lane's drawing past the screen's edge or scrolling sideways inside its
// card with no line saying so, a lane's time labels drawn smaller than
// 9 px, a table wider than its scroller, and (where the working keeps one
// line a decision) an instant or a policy's name wrapped onto two lines.
const layoutProblemsJS = `((root) => {
	const out = [], d = document.documentElement, W = d.clientWidth;
	if (d.scrollWidth > W) out.push('the page scrolls sideways: ' + d.scrollWidth + ' > ' + W);
	const lines = e => {
		const r = document.createRange();
		r.selectNodeContents(e);
		return new Set([...r.getClientRects()].filter(b => b.width > 0).map(b => Math.round(b.top))).size;
	};
	for (const fig of document.querySelectorAll(root + ' figure.lane')) {
		const svg = fig.querySelector('.lane-svg'), b = svg.getBoundingClientRect();
		if (b.left < -0.5 || b.right > W + 0.5) out.push(fig.id + ': drawn from ' + Math.round(b.left) + ' to ' + Math.round(b.right) + ' px of ' + W);
		const sc = fig.querySelector('.lane-scroll');
		const cue = fig.querySelector('.lane-more');
		if (sc && sc.scrollWidth > sc.clientWidth + 1 && (!cue || getComputedStyle(cue).display === 'none'))
			out.push(fig.id + ': scrolls sideways (' + sc.scrollWidth + ' > ' + sc.clientWidth + ') with no line saying so');
		const tick = svg.querySelector('.tick-label');
		if (tick && tick.getBoundingClientRect().height < 9) out.push(fig.id + ': its time labels are ' + tick.getBoundingClientRect().height.toFixed(1) + ' px high');
	}
	for (const t of document.querySelectorAll(root + ' table')) {
		const sc = t.closest('.table-scroll');
		const box = (sc || t.parentElement).getBoundingClientRect(), r = t.getBoundingClientRect();
		if (r.right > box.right + 1 || (sc && sc.scrollWidth > sc.clientWidth + 1 && !t.closest('.live-table'))) out.push('a table (' + (t.caption ? t.caption.textContent.trim() : t.className) + ') runs ' + Math.round(r.right - box.right) + ' px past its box');
		if (r.right > W + 0.5) out.push('a table ends at ' + Math.round(r.right) + ' px of ' + W);
	}
	if (W >= 1024) for (const c of document.querySelectorAll(root + ' .working-table :is(.w-at, .w-policy)'))
		if (lines(c) > 1) out.push('"' + c.textContent.trim() + '" wraps onto ' + lines(c) + ' lines');
	return out;
})`

// TestBrowserExerciseAnswerLayout answers an exercise at 1280×900 and on a
// 360×740 phone: the answer's lane fits the screen with readable time
// labels (on the phone too, with no sideways scrolling), and the working
// fits its box, keeping each instant and policy on one line at a laptop's
// width and reflowing into a card a decision on the phone.
func TestBrowserExerciseAnswerLayout(t *testing.T) {
	url := lessonsSite(t)
	for _, s := range laptopAndPhone {
		tab := s.open(t, url+"/exercises/fw-car-park-count")
		tab.WaitText(`[data-testid="live-status"]`, "Live: buttons and pictures answer in place")
		tab.Do(chromedp.SendKeys(chromedp.CSS(`[data-testid="answer"]`), "9\r"))
		tab.WaitText(`[data-testid="verdict"]`, "Right")
		tab.Do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="answer-lanes"] .lane-svg`)))
		if n := browsertest.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="answer-lanes"] figure.lane').length`)); n != 1 {
			t.Errorf("%s: the answer draws %d lanes, want the fixed window's one", s, n)
		}
		for _, p := range browsertest.Run(tab, chromedp.Evaluate[[]string](layoutProblemsJS+`('[data-testid="feedback"]')`)) {
			t.Errorf("%s: %s", s, p)
		}
		if s.mobile {
			// A decision is a card: its instant and policy on one line, the
			// decision and the arithmetic under them, all inside the screen.
			cards := browsertest.Run(tab, chromedp.Evaluate[[]float64](`[...document.querySelectorAll('[data-testid="trace"] tbody tr')].map(tr => {
				const at = tr.querySelector('.w-at').getBoundingClientRect(), pol = tr.querySelector('.w-policy').getBoundingClientRect(), dec = tr.querySelector('.w-decision').getBoundingClientRect();
				return (Math.abs(at.top - pol.top) < 2 && dec.top >= at.bottom - 1) ? 1 : 0;
			})`))
			for i, ok := range cards {
				if ok != 1 {
					t.Errorf("%s: decision %d is not a card (instant and policy on a line, the decision under them)", s, i+1)
				}
			}
		}
		tab.NoProblems()
	}
}

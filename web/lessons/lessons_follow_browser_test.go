package lessons

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/windowlab/playground/internal/browsertest"
)

// followProblems lists, for each lane of a lanes block, what of the step
// told lies outside the part of the drawing its scroller shows: the
// clock's line (the step's instant), the step's own mark (the last drawn),
// and the left edges of the elements extra (a JavaScript function of the
// lane's figure; null for none) picks, such as the window whose start is a roll-over.
func followProblems(tab *browsertest.Tab, block, extra string) []string {
	tab.T().Helper()
	return browsertest.Run(tab, chromedp.Evaluate[[]string](fmt.Sprintf(`(() => {
		const extra = %s;
		const out = [];
		const figs = [...document.querySelectorAll('#%s figure.lane')];
		if (figs.length === 0) out.push('no lanes');
		for (const fig of figs) {
			const sc = fig.querySelector('.lane-scroll[data-follow]');
			if (!sc) { out.push(fig.id + ': no following scroller'); continue; }
			const box = sc.getBoundingClientRect();
			const marks = [...fig.querySelectorAll('svg .mark')];
			const last = marks.reduce((a, m) => !a || +m.dataset.index > +a.dataset.index ? m : a, null);
			const want = [['the clock line', fig.querySelector('svg line.now')], ['the step mark', last]];
			const more = extra(fig);
			if (more && more.length === 0) out.push(fig.id + ': extra picks nothing');
			for (const e of more || []) want.push([e.textContent.trim(), e]);
			for (const [name, e] of want) {
				if (!e) { out.push(fig.id + ': no ' + name); continue; }
				const r = e.getBoundingClientRect();
				const x = name === 'the step mark' ? r.left + r.width / 2 : r.left;
				if (x < box.left - 0.5 || x > box.right + 0.5) out.push(fig.id + ': ' + name + ' at x ' + Math.round(x) + ', outside ' + Math.round(box.left) + '–' + Math.round(box.right));
			}
		}
		return out;
	})()`, extra, block)))
}

// laneCue is the visible text of each of a block's lanes' "more" lines: empty
// when the line is not displayed, and without the parts that are hidden.
func laneCue(tab *browsertest.Tab, block string) []string {
	tab.T().Helper()
	return browsertest.Run(tab, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#`+block+` figure.lane')].map(fig => {
		const p = fig.querySelector('.lane-more');
		if (!p || getComputedStyle(p).display === 'none') return '';
		return [...p.children].filter(s => getComputedStyle(s).visibility !== 'hidden').map(s => s.textContent).join(' ');
	})`))
}

// cutTables lists the page's tables that are wider than their scroller
// and have no visible line above them saying that they scroll.
func cutTables(tab *browsertest.Tab) []string {
	tab.T().Helper()
	return browsertest.Run(tab, chromedp.Evaluate[[]string](`[...document.querySelectorAll('.live-table .table-scroll')].filter(s => {
		if (s.scrollWidth <= s.clientWidth + 1) return false;
		const cue = s.closest('.live-table').querySelector('.table-more');
		return !cue || getComputedStyle(cue).display === 'none' || !cue.textContent.includes('scroll');
	}).map(s => s.getAttribute('aria-label') + ': ' + s.scrollWidth + ' > ' + s.clientWidth)`))
}

// TestBrowserLessonLanesFollowTheStepAt360 opens lessons at steps whose
// instant lies past what a 360 px phone shows of a lane from its start:
// each lane shows the step's instant (its clock line and its mark, and in
// the car park the roll-over at 30 s), a line says there is more,
// earlier, and every table either fits or says that it scrolls. With
// JavaScript and without it (the server starts the scroller at its end).
func TestBrowserLessonLanesFollowTheStepAt360(t *testing.T) {
	url := lessonsSite(t)
	const none = `fig => null`
	const rollOver = `fig => [...fig.querySelectorAll('rect.band')].filter(r => r.querySelector('title').textContent.startsWith('window from 30 s'))`
	cases := []struct {
		name, path, block, extra string
	}{
		// "Step 20 of 20: the request at 15 s", in lanes over 0–20 s.
		{"attack at 15 s", "/lessons/where-they-disagree?open=attack", "lanes-3", none},
		// The car at 35 s, and the three at 40 s, after the roll-over.
		{"car park at 35 s", "/lessons/fixed-window?lanes-1=7", "lanes-1", rollOver},
		{"car park at 40 s", "/lessons/fixed-window?lanes-1=10", "lanes-1", rollOver},
	}
	for _, js := range []bool{true, false} {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s, js %v", c.name, js), func(t *testing.T) {
				tab := browsertest.NewTab(t)
				if !js {
					if _, err := chromedp.Call(tab.Context(), emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
						t.Fatal(err)
					}
				}
				tab.Do(chromedp.EmulateViewport(360, 740), chromedp.Navigate(url+c.path))
				if js {
					tab.WaitText(`[data-testid="live-status"]`, "Live: buttons and pictures answer in place")
				}
				openAllDetails(tab)
				for _, p := range followProblems(tab, c.block, c.extra) {
					t.Errorf("%s: %s", c.path, p)
				}
				for i, cue := range laneCue(tab, c.block) {
					if !strings.Contains(cue, "← earlier") || !strings.Contains(cue, "scrolls sideways") {
						t.Errorf("%s: lane %d's cue reads %q, want it to say \"← earlier\" and that it scrolls sideways", c.path, i, cue)
					}
				}
				for _, cut := range cutTables(tab) {
					t.Errorf("%s: table cut without a cue: %s", c.path, cut)
				}
			})
		}
	}
}

// TestBrowserLessonLanesFollowAStep steps the car park from its first car
// to its last on a 360 px phone that asks for reduced motion: the block is
// redrawn in place and its lane scrolls, at once, to the cars at 40 s.
func TestBrowserLessonLanesFollowAStep(t *testing.T) {
	url := lessonsSite(t)
	tab := browsertest.NewTab(t)
	if _, err := chromedp.Call(tab.Context(), emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}}}); err != nil {
		t.Fatal(err)
	}
	tab.Do(chromedp.EmulateViewport(360, 740), chromedp.Navigate(url+"/lessons/fixed-window?lanes-1=1"))
	tab.WaitText(`[data-testid="live-status"]`, "Live: buttons and pictures answer in place")
	openAllDetails(tab)
	if cue := laneCue(tab, "lanes-1"); len(cue) != 1 || strings.Contains(cue[0], "earlier") || !strings.Contains(cue[0], "later →") {
		t.Errorf("at the first car the cue reads %q, want only \"later →\"", cue)
	}
	at := tab.Location()
	tab.Do(chromedp.Focus(chromedp.CSS(`#lanes-1 [data-testid="lane-last"]`)), chromedp.KeyEvent("\r"))
	tab.WaitText(`#lanes-1 [data-testid="lane-now"]`, "Step 10 of 10: the request at 40 s")
	// Reduced motion scrolls at once; the redraw's observer runs after
	// the patch, so give it a moment rather than a fixed sleep.
	if !browsertest.Run(tab, chromedp.Poll[bool](`document.querySelector('#lanes-1 .lane-scroll').dataset.followed === document.querySelector('#lanes-1 .lane-scroll').dataset.follow`, chromedp.WithPollingTimeout(5*time.Second))) {
		t.Fatal("the lane did not follow the new step")
	}
	for _, p := range followProblems(tab, "lanes-1", `fig => [...fig.querySelectorAll('rect.band')].filter(r => r.querySelector('title').textContent.startsWith('window from 30 s'))`) {
		t.Errorf("after End: %s", p)
	}
	if cue := laneCue(tab, "lanes-1"); len(cue) != 1 || !strings.Contains(cue[0], "← earlier") {
		t.Errorf("at the last car the cue reads %q, want \"← earlier\"", cue)
	}
	if loc := tab.Location(); loc != at {
		t.Errorf("stepping loaded another page: %q, was %q", loc, at)
	}
	tab.NoProblems()
}

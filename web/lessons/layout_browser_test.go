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
// 9 px, a table cut off with no line saying it scrolls, and (where the working keeps one
// line a decision) an instant or a policy's name wrapped onto two lines.
const layoutProblemsJS = `((root) => {
	const out = [], d = document.documentElement, W = d.clientWidth;
	if (d.scrollWidth > W) out.push('the page scrolls sideways: ' + d.scrollWidth + ' > ' + W);
	const lines = e => {
		const r = document.createRange();
		r.selectNodeContents(e);
		return new Set([...r.getClientRects()].filter(b => b.width > 0).map(b => Math.round(b.top))).size;
	};
	const shown = e => e.checkVisibility(); // a closed <details> still lays its content out
	for (const fig of [...document.querySelectorAll(root + ' figure.lane')].filter(shown)) {
		// The drawing shown: a lane may carry a narrow card's as well.
		const sc = [...fig.querySelectorAll('.lane-scroll')].find(shown) || fig.querySelector('.lane-scroll');
		const svg = sc ? sc.querySelector('.lane-svg') : fig.querySelector('.lane-svg');
		const scrolls = sc && getComputedStyle(sc).overflowX !== 'visible';
		const b = (scrolls ? sc : svg).getBoundingClientRect();
		if (b.left < -0.5 || b.right > W + 0.5) out.push(fig.id + ': drawn from ' + Math.round(b.left) + ' to ' + Math.round(b.right) + ' px of ' + W);
		const cue = fig.querySelector('.lane-more');
		if (scrolls && sc.scrollWidth > sc.clientWidth + 1 && (!cue || getComputedStyle(cue).display === 'none'))
			out.push(fig.id + ': scrolls sideways (' + sc.scrollWidth + ' > ' + sc.clientWidth + ') with no line saying so');
		const tick = svg.querySelector('.tick-label');
		if (tick && tick.getBoundingClientRect().height < 9) out.push(fig.id + ': its time labels are ' + tick.getBoundingClientRect().height.toFixed(1) + ' px high');
	}
	for (const t of [...document.querySelectorAll(root + ' table')].filter(shown)) {
		const name = 'a table (' + (t.caption ? t.caption.textContent.trim() : t.className) + ')';
		const sc = t.closest('.table-scroll'), box = (sc || t.parentElement).getBoundingClientRect();
		if (box.right > W + 0.5) out.push(name + ' ends at ' + Math.round(box.right) + ' px of ' + W);
		if (!sc) {
			if (t.getBoundingClientRect().right > box.right + 1) out.push(name + ' runs past its box');
			continue;
		}
		const cue = sc.previousElementSibling && sc.previousElementSibling.matches('.table-more') ? sc.previousElementSibling : null;
		if (sc.scrollWidth > sc.clientWidth + 1 && (!cue || !shown(cue)))
			out.push(name + ' is cut off: ' + sc.scrollWidth + ' px in a ' + sc.clientWidth + ' px box, with no line saying it scrolls');
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
		tab.Do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="answer-lanes"] figure.lane`)))
		if n := browsertest.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="answer-lanes"] figure.lane').length`)); n != 1 {
			t.Errorf("%s: the answer draws %d lanes, want the fixed window's one", s, n)
		}
		for _, p := range browsertest.Run(tab, chromedp.Evaluate[[]string](layoutProblemsJS+`('[data-testid="feedback"]')`)) {
			t.Errorf("%s: %s", s, p)
		}
		figure(t, tab, `[data-testid="feedback"]`, fmt.Sprintf("exercise-answer-%d.png", s.w))
		if s.mobile {
			// The answer's lane reads on the phone: its plot takes most of
			// the screen's width (260 px of 360: the page's and the
			// answer's margins and the limit's label, no more) and is 80
			// px high (a column of five marks, a limit's worth, stacked at
			// full spacing under the ▼ row); its axis labels draw at 11 px
			// and its marks 8 px across at least. Inside two cards'
			// padding, a 560-unit drawing came out 243 × 50 px, its
			// labels at 9.5 px and its marks at 4.8 px.
			got := browsertest.Run(tab, chromedp.Evaluate[map[string]float64](answerLaneSizeJS))
			for what, least := range map[string]float64{"plot width": 260, "plot height": 80, "label size": 11, "mark size": 8} {
				if got[what] < least {
					t.Errorf("%s: the answer's lane draws its %s at %.1f px, want at least %.0f px (measured %v)", s, what, got[what], least, got)
				}
			}
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

// answerLaneSizeJS measures the drawing of an exercise answer's first lane
// shown (a lane may carry a drawing for a narrow card as well as its wide
// one, and shows one of them): its plot's width and height, the rendered
// size of its time axis's labels and of its first mark, in CSS pixels.
const answerLaneSizeJS = `(() => {
	const svg = [...document.querySelectorAll('[data-testid="answer-lanes"] .lane-svg')].find(s => s.getClientRects().length > 0);
	if (!svg) return {};
	const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
	const axis = svg.querySelector('.axis'), now = svg.querySelector('.now');
	const label = svg.querySelector('.tick-label'), mark = svg.querySelector('.mark:not(.stacked) circle, .mark:not(.stacked) path');
	return {"plot width": (axis.x2.baseVal.value - axis.x1.baseVal.value) * scale,
		"plot height": (axis.y1.baseVal.value - now.y1.baseVal.value) * scale,
		"label size": parseFloat(getComputedStyle(label).fontSize) * scale,
		"mark size": mark.getBoundingClientRect().width};
})()`

// exampleBeside is where a computed example's parts sit: its first
// paragraph, its lanes and the widest thing of the lesson.
type exampleBeside struct {
	Width                  float64 // the viewport's
	TextLeft, TextRight    float64 // the example's first paragraph
	TextTop, TextBottom    float64
	LanesLeft, LanesRight  float64 // its lanes block
	LanesTop, LanesBottom  float64
	PredictRight           float64 // the prediction's box
	PictureRight, FormLeft float64 // the prediction's picture and its question
	PictureTop, FormTop    float64
}

const exampleBesideJS = `((id) => {
	const box = s => document.querySelector(s).getBoundingClientRect();
	const body = '[data-predict-reveal="' + id + '"] .predict-reveal-body';
	const p = box(body + ' > p'), l = box(body + ' > .live-lanes'), q = box('[data-predict="' + id + '"]');
	const pic = box('[data-predict="' + id + '"] .ask-picture'), form = box('[data-predict="' + id + '"] .predict-form');
	return {Width: document.documentElement.clientWidth, TextLeft: p.left, TextRight: p.right, TextTop: p.top, TextBottom: p.bottom,
		LanesLeft: l.left, LanesRight: l.right, LanesTop: l.top, LanesBottom: l.bottom, PredictRight: q.right,
		PictureRight: pic.right, FormLeft: form.left, PictureTop: pic.top, FormTop: form.top};
})`

// TestBrowserLessonUsesItsWidth commits lesson 1's first prediction at
// 1280×900 and on a 360×740 phone. At 1280 the lesson uses its width: the
// prediction's picture sits beside its question, the example that opens
// sets its lanes beside the words that walk through them, and the two reach
// past 80 % of the screen's width; the working under the answer keeps each
// instant and policy on one line. On the phone they stack, and nothing
// scrolls sideways without a line saying so.
func TestBrowserLessonUsesItsWidth(t *testing.T) {
	url := lessonsSite(t)
	const id = "fw-car-park-count"
	for _, s := range laptopAndPhone {
		tab := s.open(t, url+"/lessons/fixed-window")
		predictionsReady(tab)
		sel := `[data-predict="` + id + `"]`
		browsertest.Run(tab, chromedp.Evaluate[bool](`(document.querySelector('`+sel+` [data-testid=predict-answer]').value = '9', true)`))
		tab.Do(chromedp.Click(chromedp.CSS(sel + ` [data-testid="predict-commit"]`)))
		tab.WaitText(sel+` [data-testid="predict-verdict"]`, "Your prediction was right")
		tab.Do(chromedp.WaitVisible(chromedp.CSS(`[data-predict-reveal="` + id + `"] .live-lanes .lane-svg`)))
		got := browsertest.Run(tab, chromedp.Evaluate[exampleBeside](exampleBesideJS+`('`+id+`')`))
		overlap := func(aTop, aBottom, bTop, bBottom float64) bool { return aTop < bBottom && bTop < aBottom }
		if !s.mobile {
			if got.FormLeft < got.PictureRight || !overlap(got.PictureTop, got.PictureTop+1, got.FormTop-200, got.FormTop+200) {
				t.Errorf("%s: the prediction's question (left %.0f px) is not beside its picture (right %.0f px)", s, got.FormLeft, got.PictureRight)
			}
			if got.LanesLeft < got.TextRight+16 || !overlap(got.TextTop, got.TextBottom, got.LanesTop, got.LanesBottom) {
				t.Errorf("%s: the example's lanes (%.0f–%.0f px across, %.0f–%.0f down) are not beside its words (%.0f–%.0f across, %.0f–%.0f down)",
					s, got.LanesLeft, got.LanesRight, got.LanesTop, got.LanesBottom, got.TextLeft, got.TextRight, got.TextTop, got.TextBottom)
			}
			if right := max(got.LanesRight, got.PredictRight); right < 0.8*got.Width {
				t.Errorf("%s: the prediction and its example end at %.0f px of %.0f, want past 80 %%", s, right, got.Width)
			}
		} else if got.LanesTop < got.TextBottom {
			t.Errorf("%s: the example's lanes (top %.0f px) do not come under its first paragraph (bottom %.0f px) on a phone", s, got.LanesTop, got.TextBottom)
		}
		for _, p := range browsertest.Run(tab, chromedp.Evaluate[[]string](layoutProblemsJS+`('[data-testid="lesson"]')`)) {
			t.Errorf("%s: %s", s, p)
		}
		figure(t, tab, `[data-predict-reveal="`+id+`"]`, fmt.Sprintf("lesson-example-%d.png", s.w))
		tab.NoProblems()
	}
}

// figure saves the screen, scrolled to the element selector picks, as the
// documentation's figure name, when this run saves figures.
func figure(t *testing.T, tab *browsertest.Tab, selector, name string) {
	t.Helper()
	if !browsertest.FiguresWanted() {
		return
	}
	browsertest.Run(tab, chromedp.Evaluate[bool](`(document.querySelector('`+selector+`').scrollIntoView({block: 'start', behavior: 'instant'}), scrollBy(0, -16), true)`))
	browsertest.FinishAnimations(tab)
	browsertest.SaveFigure(t, name, browsertest.Run(tab, chromedp.CaptureScreenshot()))
}

// TestBrowserEveryLessonFits opens every lesson at 1280×900 and on a
// 360×740 phone with every disclosure open (each example, each "As a
// table"), as a reader who opens them all: no lane or table is cut off
// without a line saying it scrolls, no time label is smaller than 9 px, and
// nothing makes the page scroll sideways. Before any is opened, as the
// page first comes: every lesson has section pictures, none of whose lanes
// scrolls sideways or runs past the screen, their time labels readable,
// and at 1280 no picture leaves more than half its height blank beside
// short words (it comes above them instead, using the width). One visit a
// lesson and size serves both.
func TestBrowserEveryLessonFits(t *testing.T) {
	url := lessonsSite(t)
	lib, _, err := LoadLessons()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range laptopAndPhone {
		tab := s.open(t, "about:blank")
		for _, l := range lib.Lessons {
			tab.Do(chromedp.Navigate(url + "/lessons/" + l.Slug))
			tab.WaitText(`[data-testid="lesson"]`, "minute read")
			if n := browsertest.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll('figure.section-picture').length`)); n == 0 {
				t.Errorf("%s, %s: no section pictures", s, l.Slug)
			}
			for _, p := range browsertest.Run(tab, chromedp.Evaluate[[]string](fmt.Sprintf(sectionPicturesJS+`(%t)`, !s.mobile))) {
				t.Errorf("%s, %s: %s", s, l.Slug, p)
			}
			openAllDetails(tab)
			for _, p := range browsertest.Run(tab, chromedp.Evaluate[[]string](layoutProblemsJS+`('[data-testid="lesson"]')`)) {
				t.Errorf("%s, %s: %s", s, l.Slug, p)
			}
			for _, p := range browsertest.Run(tab, chromedp.Evaluate[[]string](fmt.Sprintf(sectionsOpenWithPictureJS+`(%t)`, s.mobile))) {
				t.Errorf("%s, %s: %s", s, l.Slug, p)
			}
			switch l.Slug {
			case "sliding-counter":
				figure(t, tab, `#the-formula`, fmt.Sprintf("lesson-section-%d.png", s.w))
			case "sliding-log":
				figure(t, tab, `#the-redis-version`, fmt.Sprintf("lesson-section-redis-%d.png", s.w))
			}
		}
		tab.NoProblems()
	}
}

// sectionsOpenWithPictureJS lists the sections of a lesson that do not
// open with their picture: after each heading, the first thing is a figure
// of lanes with a text alternative (an SVG of role img, labelled), first in
// the group of the section's opening words (section-open). On a phone it
// is above the section's first paragraph; on a laptop (phone=false) beside
// it (its left edge right of the paragraph's right edge, its top no lower
// than the paragraph's) when it is drawn beside the words, else above it.
const sectionsOpenWithPictureJS = `((phone) => {
	const out = [];
	for (const h of document.querySelectorAll('[data-testid="lesson"] > h2')) {
		if (h.closest('.lesson-exercises')) continue;
		const name = h.textContent.trim();
		const open = h.nextElementSibling;
		const fig = open && open.matches('.section-open') ? open.firstElementChild : open;
		if (!fig || !fig.matches('figure[data-testid="section-picture"]')) {
			out.push('section “' + name + '” opens with ' + (fig ? fig.tagName.toLowerCase() + '.' + fig.className : 'nothing') + ', not its picture');
			continue;
		}
		const svg = fig.querySelector('svg.lane-svg[role="img"]');
		if (!svg || !(svg.getAttribute('aria-labelledby') || '').split(' ').every(id => (document.getElementById(id)?.textContent || '').trim())) {
			out.push('section “' + name + '”: its picture has no lane with a text alternative');
			continue;
		}
		const p = open.querySelector('.section-words > :is(p, ul, ol)');
		if (!p) continue;
		const f = fig.getBoundingClientRect(), t = p.getBoundingClientRect();
		if (f.height < 60) out.push('section “' + name + '”: its picture is ' + Math.round(f.height) + ' px tall');
		if (phone || fig.matches('.section-picture-above')) {
			if (f.bottom > t.top + 1) out.push('section “' + name + '”: its picture (bottom ' + Math.round(f.bottom) + ' px) is not above its words (top ' + Math.round(t.top) + ' px)');
		} else {
			// The words beside the picture: the paragraph's first line box.
			const r = document.createRange();
			r.selectNodeContents(p);
			const line = r.getClientRects()[0];
			if (f.left < line.right || f.top > line.top + 1) {
				out.push('section “' + name + '”: its picture (left ' + Math.round(f.left) + ', top ' + Math.round(f.top) + ') is not beside its first words (right ' + Math.round(line.right) + ', top ' + Math.round(line.top) + ')');
			}
		}
	}
	return out;
})`

// TestBrowserExerciseOnThePicture answers an exercise on its picture, at
// 1280×900 and on a 360×740 phone: the question's cars are drawn above
// the form, a click on each of the nine the learner thinks get in writes
// 9 into the answer field, and checking it is right, as the typed answer
// would be. A which-question's picture has a row for each policy, labelled
// for that policy's box.
func TestBrowserExerciseOnThePicture(t *testing.T) {
	url := lessonsSite(t)
	for _, s := range laptopAndPhone {
		tab := s.open(t, url+"/exercises/fw-car-park-count")
		tab.WaitText(`[data-testid="live-status"]`, "Live: buttons and pictures answer in place")
		tab.Do(chromedp.WaitVisible(chromedp.CSS(`.ask-live [data-picture-rows]`)))
		above := browsertest.Run(tab, chromedp.Evaluate[bool](`document.querySelector('[data-testid="ask-picture"]').getBoundingClientRect().bottom <= document.querySelector('[data-testid="answer"]').getBoundingClientRect().top`))
		if !above {
			t.Errorf("%s: the picture is not above the answer field", s)
		}
		// The cars at 0 s to 15 s (requests 1–5) and 35 s, 40 s (7–10).
		for i := 1; i <= 10; i++ {
			if i != 6 {
				// A click where the car is drawn, as a pointer would (a
				// mark is an SVG group, which has no box of its own to
				// wait on).
				at := browsertest.Run(tab, chromedp.Evaluate[[]float64](fmt.Sprintf(`(() => {
					const m = document.querySelector('[data-testid="ask-picture"] [data-mark="%d"] .ask-dot');
					m.scrollIntoView({block: 'center', behavior: 'instant'});
					const r = m.getBoundingClientRect();
					return [r.left + r.width / 2, r.top + r.height / 2];
				})()`, i)))
				tab.Do(chromedp.MouseClickXY(at[0], at[1]))
			}
		}
		if got := browsertest.Run(tab, chromedp.Evaluate[string](`document.querySelector('[data-testid="answer"]').value`)); got != "9" {
			t.Fatalf("%s: after marking nine cars the answer field says %q, want \"9\"", s, got)
		}
		tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="check"]`)))
		tab.WaitText(`[data-testid="verdict"]`, "Right")
		if d := browsertest.Run(tab, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > document.documentElement.clientWidth`)); d {
			t.Errorf("%s: the page scrolls sideways", s)
		}
		tab.NoProblems()
	}
	tab := browsertest.NewTab(t)
	tab.Do(chromedp.Navigate(url + "/exercises/choose-which-admit"))
	tab.Do(chromedp.WaitVisible(chromedp.CSS(`.ask-live [data-picture-rows]`)))
	bad := browsertest.Run(tab, chromedp.Evaluate[[]string](`[...document.querySelectorAll('.ask-row-label')].filter(l => !l.control || l.control.name !== 'choice').map(l => l.textContent.trim())`))
	rows := browsertest.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll('.ask-row-label').length`))
	if rows < 2 || len(bad) > 0 {
		t.Errorf("the which-question's picture has %d labelled rows, %v not labels of a policy's box", rows, bad)
	}
	tab.NoProblems()
}

package lessons

import (
	"fmt"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/windowlab/playground/internal/browsertest"
	"github.com/windowlab/playground/internal/webtest"
)

// sectionPicturesJS lists what of a lesson's section pictures does not
// read as laid out: a lane that scrolls sideways in its picture or a
// picture past the screen's edge, time labels drawn under 9 px high, and
// at a laptop's width (wide) blank space: a picture beside its words that
// is more than half its height taller than them, or a picture above its
// words that does not use the width (its lanes side by side, or one lane
// beside its caption).
const sectionPicturesJS = `((wide) => {
	const out = [], W = document.documentElement.clientWidth;
	for (const fig of document.querySelectorAll('figure.section-picture')) {
		const name = '“' + fig.querySelector('.section-picture-caption').textContent.trim() + '”';
		const f = fig.getBoundingClientRect();
		if (f.left < -0.5 || f.right > W + 0.5) out.push(name + ': drawn from ' + Math.round(f.left) + ' to ' + Math.round(f.right) + ' px of ' + W);
		for (const sc of fig.querySelectorAll('.lane-scroll'))
			if (sc.scrollWidth > sc.clientWidth + 1) out.push(name + ': a lane scrolls sideways (' + sc.scrollWidth + ' px in ' + sc.clientWidth + ')');
		for (const t of fig.querySelectorAll('.tick-label'))
			if (t.getBoundingClientRect().height < 9) { out.push(name + ': its time labels are ' + t.getBoundingClientRect().height.toFixed(1) + ' px high'); break; }
		if (!wide) continue;
		const words = fig.nextElementSibling && fig.nextElementSibling.matches('.section-words') ? fig.nextElementSibling.getBoundingClientRect() : null;
		const lanes = [...fig.querySelectorAll('.lesson-lanes > .lane')].map(l => l.getBoundingClientRect());
		if (fig.matches('.section-picture-beside')) {
			if (!words || words.left > f.left) { out.push(name + ': beside no words'); continue; }
			const blank = f.bottom - Math.max(words.bottom, f.top);
			if (blank > f.height / 2) out.push(name + ': ' + Math.round(blank) + ' px blank under its words beside it (' + Math.round(f.height) + ' px tall)');
		} else {
			if (words && f.bottom > words.top + 1) out.push(name + ': above its words, but ends at ' + Math.round(f.bottom) + ' px under their top ' + Math.round(words.top));
			const cap = fig.querySelector('.section-picture-caption').getBoundingClientRect();
			const sideBySide = lanes.length > 1 ? lanes.some(l => Math.abs(l.top - lanes[0].top) < 1 && l.left > lanes[0].right) : cap.left > lanes[0].right;
			if (!sideBySide) out.push(name + ': above its words, with ' + (lanes.length > 1 ? 'its lanes one under another' : 'its caption above its lane') + ' at ' + W + ' px');
		}
	}
	return out;
})`

// pointed is what a section picture shows of the instant pointed at.
type pointed struct {
	Text     string // the line under the picture
	Pointing bool   // the picture says an instant is pointed at
	Lines    int    // lanes with the instant's line drawn
	Hit      int    // lanes with a mark of the instant ringed
	Lanes    int
	Focused  bool // the picture's lanes have the keyboard's focus
}

const pointedJS = `((fig) => {
	fig = document.querySelector(fig);
	const lanes = [...fig.querySelectorAll('svg.lane-svg')];
	const pt = fig.querySelector('[data-testid="picture-point"]');
	return {Text: pt.checkVisibility({visibilityProperty: true}) ? pt.textContent.trim() : '', Pointing: fig.hasAttribute('data-pointing'),
		Lines: lanes.filter(s => s.querySelector('.picture-at')).length, Hit: lanes.filter(s => s.querySelector('.picture-hit')).length,
		Lanes: lanes.length, Focused: document.activeElement === fig.querySelector('[data-picture-explore]')};
})`

// TestBrowserSectionPictureAnswersTheReader points at lesson 1's first
// picture at 1280×900 and on a 360×740 phone, by keyboard alone and then
// with the pointer: Tab reaches its lanes, → says the first instant's
// decisions in the server's words and marks it in every lane (a line, its
// marks ringed), End goes to the last, Escape lets go; hovering an instant
// (tapping it on the phone) says that one. axe finds nothing while an
// instant is pointed at.
func TestBrowserSectionPictureAnswersTheReader(t *testing.T) {
	url := lessonsSite(t)
	const fig = `#picture-1`
	for _, s := range laptopAndPhone {
		tab := s.open(t, url+"/lessons/fixed-window")
		tab.WaitText(`[data-testid="live-status"]`, "Live: buttons and pictures answer in place")
		instants := browsertest.Run(tab, chromedp.Evaluate[[]string](`[...document.querySelectorAll('`+fig+` .picture-instants li')].map(li => li.textContent.trim())`))
		if len(instants) < 3 {
			t.Fatalf("%s: the picture lists %d instants, want the quiet start and the burst's", s, len(instants))
		}
		// Tab from the top of the page until the picture's lanes have focus,
		// as a keyboard user would reach them.
		focused := false
		for range 40 {
			tab.Do(chromedp.KeyEvent(kb.Tab))
			if browsertest.Run(tab, chromedp.Evaluate[pointed](pointedJS+`('`+fig+`')`)).Focused {
				focused = true
				break
			}
		}
		if !focused {
			t.Fatalf("%s: 40 presses of Tab never reached the picture's lanes", s)
		}
		got := browsertest.Run(tab, chromedp.Evaluate[pointed](pointedJS+`('`+fig+`')`))
		if got.Pointing || got.Lines > 0 {
			t.Errorf("%s: focus alone points at an instant: %+v", s, got)
		}
		tab.Do(chromedp.KeyEvent(kb.ArrowRight))
		got = browsertest.Run(tab, chromedp.Evaluate[pointed](pointedJS+`('`+fig+`')`))
		if got.Text != instants[0] || !got.Pointing || got.Lines != got.Lanes || got.Hit != got.Lanes {
			t.Errorf("%s: after →: %+v, want %q said and marked in all %d lanes", s, got, instants[0], got.Lanes)
		}
		tab.Do(chromedp.KeyEvent(kb.End))
		if got = browsertest.Run(tab, chromedp.Evaluate[pointed](pointedJS+`('`+fig+`')`)); got.Text != instants[len(instants)-1] {
			t.Errorf("%s: after End the picture says %q, want the last instant's %q", s, got.Text, instants[len(instants)-1])
		}
		webtest.NoAxeViolations(t, tab, fmt.Sprintf("%s, an instant pointed at by keyboard", s))
		figure(t, tab, `[data-testid="lesson"] > h2`, fmt.Sprintf("lesson-section-pointing-%d.png", s.w))
		tab.Do(chromedp.KeyEvent(kb.Escape))
		if got = browsertest.Run(tab, chromedp.Evaluate[pointed](pointedJS+`('`+fig+`')`)); got.Pointing || got.Lines > 0 || got.Text != "" {
			t.Errorf("%s: after Escape the picture still points: %+v", s, got)
		}
		// The pointer over the second instant's x in the lane, where its
		// marks are drawn.
		at := browsertest.Run(tab, chromedp.Evaluate[[]float64](`(() => {
			const svg = document.querySelector('`+fig+` svg.lane-svg'), li = document.querySelectorAll('`+fig+` .picture-instants li')[1];
			svg.scrollIntoView({block: 'center', behavior: 'instant'});
			const d = svg.dataset, x = Number(d.x0) + (li.dataset.at - d.from) / (d.to - d.from) * (d.x1 - d.x0);
			const p = new DOMPoint(x, svg.viewBox.baseVal.height / 2).matrixTransform(svg.getScreenCTM());
			return [p.x, p.y];
		})()`))
		// A pointer hovers there; a phone, which has no hover, taps.
		how := "hovering"
		if s.mobile {
			how = "tapping"
			tab.Do(chromedp.MouseClickXY(at[0], at[1]))
		} else {
			tab.Do(chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, at[0], at[1]))
		}
		if got = browsertest.Run(tab, chromedp.Evaluate[pointed](pointedJS+`('`+fig+`')`)); got.Text != instants[1] || got.Lines != got.Lanes {
			t.Errorf("%s: %s the second instant: %+v, want %q", s, how, got, instants[1])
		}
		tab.NoProblems()
	}
}

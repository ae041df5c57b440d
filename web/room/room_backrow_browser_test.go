package room

import (
	"fmt"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/windowlab/playground/internal/browsertest"
	"github.com/windowlab/playground/internal/webtest"
)

// backRowJS measures what the back row reads on the projector: each lane's
// plot (from the axis up to the top of the plot, which is half as high
// again as the limit line, the renderer's yMax) against the height of the
// lane's visible text (its name, and its state line when shown); the
// question's type against the status line's; every visible element of the
// screen against the viewport, and content the side column cuts off; each
// tally bar's line count; and the lanes' axis labels.
const backRowJS = `(() => {
	const visible = e => e && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
	const lanes = [...document.querySelectorAll('#room-lanes [data-testid=lane]')].map(l => {
		const y = sel => { const e = l.querySelector(sel); const m = e.getScreenCTM(); return m.f + m.d * (+e.getAttribute('y1')); };
		const axis = y('line.axis'), limit = y('line.limit');
		let top = Infinity, bottom = -Infinity;
		for (const e of l.querySelectorAll('figcaption, [data-testid=lane-status]')) {
			if (!visible(e)) continue;
			const r = e.getBoundingClientRect();
			top = Math.min(top, r.top); bottom = Math.max(bottom, r.bottom);
		}
		return {lane: l.dataset.label, plot: 1.5 * (axis - limit), axisToLimit: axis - limit, text: bottom - top,
			ticks: [...l.querySelectorAll('.tick-label')].map(t => t.textContent),
			marks: l.querySelectorAll('[data-index]').length};
	});
	const outside = [];
	const present = document.querySelector('[data-testid=present]');
	for (const e of present.querySelectorAll('*')) {
		if (!visible(e) || e.closest('svg') && e.tagName.toLowerCase() !== 'svg') continue;
		const r = e.getBoundingClientRect();
		if (r.width === 0 || r.height === 0) continue;
		if (r.left < -0.5 || r.top < -0.5 || r.right > innerWidth + 0.5 || r.bottom > innerHeight + 0.5)
			outside.push((e.id || e.dataset.testid || e.className.baseVal || e.className || e.tagName) + ' ' + [r.left, r.top, r.right, r.bottom].map(Math.round).join(','));
	}
	const side = document.querySelector('.present-side');
	const bars = [...document.querySelectorAll('[data-testid=tally] [data-testid=bar]')].map(b => ({
		text: b.innerText.replace(/\s+/g, ' '), height: b.getBoundingClientRect().height,
		line: parseFloat(getComputedStyle(b).fontSize) * 1.6}));
	const q = document.querySelector('#room-question h2');
	return {lanes, outside, cut: side.scrollHeight - side.clientHeight, bars,
		question: q ? parseFloat(getComputedStyle(q).fontSize) : 0,
		status: parseFloat(getComputedStyle(document.querySelector('#room-status')).fontSize),
		qr: visible(document.querySelector('[data-testid=room-qr]'))};
})()`

type backRowLane struct {
	Lane                    string
	Plot, AxisToLimit, Text float64
	Ticks                   []string
	Marks                   int
}

type backRowBar struct {
	Text         string
	Height, Line float64
}

type backRow struct {
	Lanes            []backRowLane
	Outside          []string
	Cut              float64
	Bars             []backRowBar
	Question, Status float64
	QR               bool
}

// TestBrowserRoomProjectorBackRow: the seven-lane projector at 1280 × 720
// and 1920 × 1080 (#27's "the projector reads from the back row"). With a
// phone following, the QR code steps aside and Q shows it again; with a
// count question open, a revealed tally and a request pointed at, nothing
// runs off the screen or is cut off, each lane's plot is taller than its
// text and its limit line at least 4.5 % of the screen's height above
// its axis, the question's type is at least twice the status line's, and
// no tally bar wraps; and pressing Play with a question open, then
// jumping minutes on, keeps the lanes on the question's moment.
func TestBrowserRoomProjectorBackRow(t *testing.T) {
	for _, size := range [][2]int64{{1280, 720}, {1920, 1080}} {
		w, h := size[0], size[1]
		name := fmt.Sprintf("%d × %d, seven lanes", w, h)
		tab, url, roomPath := projectorRoom(t, w, h)
		measure := func(stage string) backRow {
			t.Helper()
			browsertest.Run(tab, chromedp.Evaluate[bool](`(window.scrollTo(0, 0), document.activeElement && document.activeElement.blur(), true)`))
			got := browsertest.Run(tab, chromedp.Evaluate[backRow](backRowJS))
			if len(got.Lanes) != 7 {
				t.Fatalf("%s, %s: %d lanes, want 7", name, stage, len(got.Lanes))
			}
			for _, o := range got.Outside {
				t.Errorf("%s, %s: %s runs off the screen", name, stage, o)
			}
			if got.Cut > 1 {
				t.Errorf("%s, %s: the side column cuts off %.0f px of its content", name, stage, got.Cut)
			}
			for _, l := range got.Lanes {
				if l.Plot <= l.Text {
					t.Errorf("%s, %s, %s: the plot is %.0f px high, its text %.0f px: want the plot taller", name, stage, l.Lane, l.Plot, l.Text)
				}
				if min := 0.045 * float64(h); l.AxisToLimit < min {
					t.Errorf("%s, %s, %s: the limit line is %.0f px above the axis, want at least %.0f px", name, stage, l.Lane, l.AxisToLimit, min)
				}
			}
			low := got.Lanes[0]
			for _, l := range got.Lanes {
				if l.AxisToLimit < low.AxisToLimit {
					low = l
				}
			}
			t.Logf("%s, %s: question %.1f px, status line %.1f px; lowest plot %.0f px (limit %.0f px above the axis) beside %.0f px of text", name, stage, got.Question, got.Status, low.Plot, low.AxisToLimit, low.Text)
			return got
		}

		// A phone follows the room: the QR code steps aside; Q brings it
		// back and takes it away again.
		phone := browsertest.NewTab(t)
		phone.Do(chromedp.EmulateViewport(360, 740), chromedp.Navigate(url+roomPath))
		tab.WaitText(`[data-testid="room-status"]`, "1 phone following")
		if measure("a phone joined").QR {
			t.Errorf("%s: the QR code still shows with a phone following", name)
		}
		tab.Do(chromedp.KeyEvent("q"))
		tab.Do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="room-qr"] svg`)))
		if got := browsertest.Run(tab, chromedp.Evaluate[string](`document.querySelector('[data-testid=qr-toggle]').getAttribute('aria-expanded')`)); got != "true" {
			t.Errorf("%s: after Q the QR button's aria-expanded is %q, want true", name, got)
		}
		tab.Do(chromedp.KeyEvent("q"))
		tab.Do(chromedp.WaitNotVisible(chromedp.CSS(`[data-testid="room-qr"]`)))

		// Point, ask how many of 5 get through, one phone answers, reveal.
		if s := post(t, tab, roomPath+"/point?i=9", "{}"); s >= 300 {
			t.Fatalf("%s: pointing at request 10: status %d", name, s)
		}
		tab.WaitText(`[data-testid="room-pointed"]`, "Request 10 at 40 s")
		if s := post(t, tab, roomPath+"/ask", `{"cost": "1", "askKind": "count", "askAt": "41 s", "askN": "5"}`); s >= 300 {
			t.Fatalf("%s: asking: status %d", name, s)
		}
		tab.WaitText(`[data-testid="answered"]`, "0 answered")
		open := measure("question open")
		webtest.NoAxeViolations(t, tab, name+", projector with a question open")
		if open.Question < 2*open.Status-0.05 {
			t.Errorf("%s, question open: the question is %.1f px, the status line %.1f px: want at least twice", name, open.Question, open.Status)
		}
		phone.WaitText(`[data-testid="room-question"]`, "how many get through")
		for lane := range 7 {
			phone.Do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-testid="answer-lane"]:nth-of-type(%d) [data-testid="tap"][data-value="%d"]`, lane+1, lane%3))))
		}
		tab.WaitText(`[data-testid="answered"]`, "1 answered")
		if s := post(t, tab, roomPath+"/reveal", "{}"); s >= 300 {
			t.Fatalf("%s: revealing: status %d", name, s)
		}
		tab.Do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="tally"]`)))
		tab.WaitText(`[data-testid="room-pointed"]`, "against 5")
		revealed := measure("revealed, pointed at")
		if revealed.Question < 2*revealed.Status-0.05 {
			t.Errorf("%s, revealed: the question is %.1f px, the status line %.1f px: want at least twice", name, revealed.Question, revealed.Status)
		}
		if len(revealed.Bars) < 7 {
			t.Errorf("%s: %d tally bars, want at least one per lane", name, len(revealed.Bars))
		}
		webtest.NoAxeViolations(t, tab, name+", projector revealed")
		for _, b := range revealed.Bars {
			if b.Height > b.Line {
				t.Errorf("%s: the tally bar %q is %.0f px high: it wraps (one line is at most %.0f px)", name, b.Text, b.Height, b.Line)
			}
		}

		// A question open, Play pressed, then minutes on: the clock runs,
		// the lanes stay on the question's moment and its requests.
		post(t, tab, roomPath+"/dismiss", "{}")
		if s := post(t, tab, roomPath+"/ask", `{"cost": "1", "askKind": "admit", "askAt": "41 s"}`); s >= 300 {
			t.Fatalf("%s: asking again: status %d", name, s)
		}
		tab.WaitText(`[data-testid="answered"]`, "0 answered")
		tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="room-toggle"]`)))
		tab.WaitText(`[data-testid="room-clock"]`, "playing")
		if s := post(t, tab, roomPath+"/play/jump", `{"cost": "1", "jumpSeconds": "360"}`); s >= 300 {
			t.Fatalf("%s: jumping to 360 s: status %d", name, s)
		}
		// Waits on the browser: the stream's next frame shows the jump.
		browsertest.Run(tab, chromedp.Poll[bool](`parseFloat(document.querySelector("[data-testid=clock]").textContent) >= 360`))
		tab.WaitText(`[data-testid="room-status"]`, "the lanes stay at the question's moment, 41 s")
		played := measure("playing past the question")
		for _, l := range played.Lanes {
			if !slices.Contains(l.Ticks, "40 s") || l.Marks == 0 {
				t.Errorf("%s, playing past the question, %s: axis %v with %d marks: want the question's moment (40 s) and its requests in view", name, l.Lane, l.Ticks, l.Marks)
			}
		}
	}
}

// post posts body as the page's signals to path from tab, as a button's
// action does, and returns the status.
func post(t *testing.T, tab *browsertest.Tab, path, body string) int {
	t.Helper()
	return browsertest.Run(tab, chromedp.Evaluate[int](fmt.Sprintf(
		`fetch(%q, {method: 'POST', headers: {'Content-Type': 'application/json'}, body: %q}).then(r => r.status)`, path, body),
		chromedp.EvalAwaitPromise))
}

package room

import (
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/windowlab/playground/internal/browsertest"
	"github.com/windowlab/playground/internal/webtest"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/room"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web"
	weblessons "github.com/windowlab/playground/web/lessons"
	webplay "github.com/windowlab/playground/web/play"
	"github.com/windowlab/playground/web/simulate"
)

// roomBoxesJS measures what the room's projector must show whole: the
// clock, every lane, the join code, the question's tally and the
// pointed-at request's explanation (presentBoxesJS's rule: content an
// element scrolls or clips counts as not shown).
const roomBoxesJS = `(() => {
	const measure = (name, e) => {
		if (!e) return {name: name + ' (missing)', left: -1, top: -1, right: -1, bottom: -1, hidden: 0};
		const r = e.getBoundingClientRect();
		return {name, left: r.left, top: r.top, right: r.right, bottom: r.bottom,
			hidden: Math.max(e.scrollHeight - e.clientHeight, e.scrollWidth - e.clientWidth, 0)};
	};
	const out = [measure('clock', document.querySelector('#room-clock')),
		measure('join code', document.querySelector('[data-testid=room-code]')),
		measure('tally', document.querySelector('[data-testid=tally]')),
		measure('pointed-at request', document.querySelector('#room-pointed'))];
	for (const l of document.querySelectorAll('[data-testid=lane]')) out.push(measure(l.dataset.label, l));
	for (const l of document.querySelectorAll('[data-testid=tally-lane]')) out.push(measure('tally of ' + l.querySelector('h3').textContent.split(':')[0].trim(), l));
	for (const a of document.querySelectorAll('#room-pointed [data-testid=explain-lane]')) out.push(measure('explanation of ' + a.querySelector('strong').textContent.trim(), a));
	return out;
})()`

// roomTypeJS finds the smallest font size among the projector's lines the
// room reads besides the clock: the question, how many answered, each
// tally row, each line of the pointed-at request's explanation, the room's
// status line and each lane's state line.
const roomTypeJS = `(() => {
	// -1 when none is shown (with six lanes or more the lanes' state
	// lines are not: room.css).
	const smallest = sel => { const s = [...document.querySelectorAll(sel)].filter(e => e.getClientRects().length > 0).map(e => parseFloat(getComputedStyle(e).fontSize)); return s.length ? Math.min(...s) : -1; };
	return {"question": smallest('#room-question h2'), "answered": smallest('[data-testid=answered]'),
		"tally row": smallest('[data-testid=tally-lane] h3, [data-testid=bar]'),
		"pointed-at line": smallest('#room-pointed h2, #room-pointed [data-testid=explain-lane], #room-pointed p'),
		"room status": smallest('#room-status'), "lane state line": smallest('[data-testid=lane-status]')};
})()`

// TestBrowserRoomProjectorFits: the room's projector, laid out as every
// presentation is, shows the clock, every lane, the join code, an open
// question's tally and the pointed-at request's
// explanation whole without scrolling, on a 1280 × 720 projector with four
// lanes and with seven (the presenter's own car-park preset) and a
// 1920 × 1080 one with seven, while the question is open and after it is
// revealed, light and dark, every line of
// them, the room's status line and the lanes' state lines included, at
// least 2.2 % of the screen's height as on /play's presentation (1.8 %
// with seven lanes);
// the "disagree" mark stays at 4.5:1; and every lane keeps its marks apart
// (webtest.LaneMarksApart), the ▼ row and the ring clear of every mark,
// with the question open (marks at their cost) and revealed.
func TestBrowserRoomProjectorFits(t *testing.T) {
	lib, _, err := weblessons.LoadLessons()
	if err != nil {
		t.Fatal(err)
	}
	sessions := play.NewStore(nil)
	b := room.DefaultBounds()
	b.RoomsPerClient = 10 // one browser opens six rooms
	rooms, err := room.New(room.NewMemStore(), room.Config{Bounds: &b})
	if err != nil {
		t.Fatal(err)
	}
	rf := Rooms(rooms, sessions, lib)
	site, err := web.New(web.Config{DatastarPath: webtest.BundlePath(t), PublicURL: "http://workshop.example:8080",
		Features: []web.Feature{simulate.API(), webplay.Playground(sessions, rf), rf}}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	url := browsertest.Serve(t, site)
	seven, err := os.ReadFile("../../lessons/scenarios/car-park.json")
	if err != nil {
		t.Fatal(err)
	}
	all, err := scenario.Parse(seven)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		w, h  int64
		sc    scenario.Scenario
		lanes int
	}{
		{1280, 720, webtest.CarParkScenario(t, scenario.DefaultPolicies()), 4}, // /play opens with seven lanes
		{1280, 720, all, 7},
		{1920, 1080, all, 7},
	} {
		for _, scheme := range []string{"light", "dark"} {
			name := fmt.Sprintf("%dx%d %d lanes %s", c.w, c.h, c.lanes, scheme)
			tab := browsertest.NewTab(t)
			webtest.EmulateScheme(t, tab, scheme)
			tab.Do(chromedp.EmulateViewport(c.w, c.h), chromedp.Navigate(url+scenario.EncodeURL(c.sc)+"&t=40000"))
			tab.WaitText(`[data-testid="live-status"]`, "Live: connected")
			from := tab.Location()
			tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="start-room"]`)))
			tab.WaitNavigated(from)
			tab.WaitText(`[data-testid="live-status"]`, "Live: connected")
			roomPath := strings.TrimSuffix(strings.TrimPrefix(tab.Location(), url), "/present")
			// Point at the car park's last request, then ask about the next
			// moment and reveal: the state with the most on the screen.
			status := browsertest.Run(tab, chromedp.Evaluate[int](
				`fetch('`+roomPath+`/point?i=9', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{}'}).then(r => r.status)`,
				chromedp.EvalAwaitPromise))
			if status != 200 && status != 204 {
				t.Fatalf("%s: pointing at request 10: status %d", name, status)
			}
			tab.WaitText(`[data-testid="room-pointed"]`, "Request 10 at 40 s")
			// Large type as on /play's presentation (2.2 % of the height),
			// up to five lanes: with seven, the side column's lines step
			// down to 0.8rem (1.84 %) to stay on the screen.
			minType := 0.022 * float64(c.h)
			if c.lanes > 5 {
				minType = 0.018 * float64(c.h)
			}
			// fits checks one moment of the room: while the question is open
			// there is no tally yet, and each lane's status line is the
			// longer "hidden while a question is open" sentence.
			fits := func(stage string, tally bool) {
				t.Helper()
				// The presenter's controls are below the screen; the room
				// sees its top.
				browsertest.Run(tab, chromedp.Evaluate[bool](`(window.scrollTo(0, 0), document.activeElement && document.activeElement.blur(), true)`))
				for what, size := range browsertest.Run(tab, chromedp.Evaluate[map[string]float64](roomTypeJS)) {
					if what == "tally row" && !tally || what == "lane state line" && c.lanes > 5 && size == -1 {
						continue
					}
					// Math.min of nothing is Infinity, which JSON sends as null: 0 here.
					if size < minType {
						t.Errorf("%s, %s: the smallest %s is %.1f px, want at least %.1f px", name, stage, what, size, minType)
					}
				}
				boxes := browsertest.Run(tab, chromedp.Evaluate[[]webtest.Box](roomBoxesJS))
				want := 4 + 2*c.lanes + c.lanes
				if !tally {
					want = 4 + 2*c.lanes
				}
				if got := len(boxes); got != want {
					t.Errorf("%s, %s: %d boxes measured, want the clock, the code, the tally, the explanation and %d lanes in each", name, stage, got, c.lanes)
				}
				for _, b := range boxes {
					if b.Name == "tally (missing)" && !tally {
						continue
					}
					if b.Left < 0 || b.Top < 0 || b.Right > float64(c.w)+0.5 || b.Bottom > float64(c.h)+0.5 {
						t.Errorf("%s, %s: %s spans (%.0f, %.0f)–(%.0f, %.0f), outside the %d × %d screen", name, stage, b.Name, b.Left, b.Top, b.Right, b.Bottom, c.w, c.h)
					}
					if b.Hidden > 1 {
						t.Errorf("%s, %s: %s hides %.0f px of its content (scrolled or clipped)", name, stage, b.Name, b.Hidden)
					}
				}
			}
			tab.Do(chromedp.SendKeys(chromedp.CSS(`[data-testid="ask-at"]`), "41 s"), chromedp.Click(chromedp.CSS(`[data-testid="ask"]`)))
			tab.WaitText(`[data-testid="answered"]`, "answered")
			fits("question open", false)
			browsertest.FinishAnimations(tab)
			webtest.LaneMarksApart(t, tab, name+", question open")
			tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="reveal"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid="tally"]`)))
			fits("revealed", true)
			// The lanes keep their marks apart on the projector too: the
			// ▼ row over a refusal at the top of the plot (the car park's
			// 25 s and 35 s in the sliding counters) and the pointed-at
			// request's ring touch no mark.
			browsertest.FinishAnimations(tab)
			webtest.LaneMarksApart(t, tab, name+", revealed")
			got := browsertest.Run(tab, chromedp.Evaluate[map[string]float64](webtest.ContrastJS))
			if !webtest.HasPrefix(got, "mark ") {
				t.Errorf("%s: the lanes draw no ▼ mark; measured %v", name, got)
			}
			for what, ratio := range got {
				if ratio < 4.5 {
					t.Errorf("%s: the disagreement %s has contrast %.2f:1, want 4.5:1", name, what, ratio)
				}
			}
		}
	}
}

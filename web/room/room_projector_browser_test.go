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
)

// projectorTextJS lists every text the projector shows on its screen (at
// the page's top, where the room looks) with the size it is drawn at in
// CSS px: an HTML text's computed font size, and an SVG text's font size
// times the scale its figure is drawn at (getScreenCTM), since a lane's
// axis labels shrink with the figure. Text outside the viewport (the
// presenter's controls below the screen) and visually hidden text are not
// shown to the room and are left out.
const projectorTextJS = `(() => {
	const out = [];
	const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
	for (let n = walk.nextNode(); n; n = walk.nextNode()) {
		const text = n.textContent.trim();
		const el = n.parentElement;
		if (!text || !el || el.closest('.visually-hidden, title, desc, script, style, noscript')) continue;
		const st = getComputedStyle(el);
		if (st.visibility === 'hidden' || st.display === 'none') continue;
		const range = document.createRange();
		range.selectNodeContents(n);
		const r = range.getBoundingClientRect();
		if (r.width < 1 || r.height < 1) continue;
		if (r.bottom <= 0 || r.top >= innerHeight || r.right <= 0 || r.left >= innerWidth) continue;
		let px = parseFloat(st.fontSize);
		const svgText = el.closest('text');
		if (svgText) {
			const m = svgText.getScreenCTM();
			px *= Math.hypot(m.b, m.d);
		}
		out.push({text: text.slice(0, 40), where: ((el.closest('[id]') || {}).id || '') + ' ' + el.tagName.toLowerCase() + (el.getAttribute('class') ? '.' + el.getAttribute('class').split(' ')[0] : ''), px});
	}
	return out;
})()`

// shownText is one text of projectorTextJS.
type shownText struct {
	Text, Where string
	Px          float64
}

// projectorRoom starts a room over the seven-lane car park at 40 s in a
// tab of the given size and returns the tab, the server's URL and the
// room's path (/room/<id>).
func projectorRoom(t *testing.T, w, h int64) (*browsertest.Tab, string, string) {
	t.Helper()
	lib, _, err := weblessons.LoadLessons()
	if err != nil {
		t.Fatal(err)
	}
	sessions := play.NewStore(nil)
	rooms, err := room.New(room.NewMemStore(), room.Config{})
	if err != nil {
		t.Fatal(err)
	}
	rf := Rooms(rooms, sessions, lib)
	site, err := web.New(web.Config{DatastarPath: webtest.BundlePath(t), PublicURL: "http://workshop.example:8080",
		Features: []web.Feature{webplay.Playground(sessions, rf), rf}}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	url := browsertest.Serve(t, site)
	seven, err := os.ReadFile("../../lessons/scenarios/car-park.json")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Parse(seven)
	if err != nil {
		t.Fatal(err)
	}
	tab := browsertest.NewTab(t)
	tab.Do(chromedp.EmulateViewport(w, h), chromedp.Navigate(url+scenario.EncodeURL(sc)+"&t=40000"))
	tab.WaitText(`[data-testid="live-status"]`, "Interactive parts: on")
	from := tab.Location()
	tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="start-room"]`)))
	tab.WaitNavigated(from)
	tab.WaitText(`[data-testid="live-status"]`, "Interactive parts: on")
	return tab, url, strings.TrimSuffix(strings.TrimPrefix(tab.Location(), url), "/present")
}

// TestBrowserRoomProjectorTypeSize: on the seven-lane projector at
// 1280 × 720 and 1920 × 1080, with a request pointed at, while a question
// is open and after its reveal, every text on the screen (the lanes' axis
// labels and names, the status lines, the question, the tally, the
// explanation, the join code) is drawn at least projectorMinType of the
// screen's height (docs/rooms.md says why).
func TestBrowserRoomProjectorTypeSize(t *testing.T) {
	for _, size := range [][2]int64{{1280, 720}, {1920, 1080}} {
		w, h := size[0], size[1]
		tab, _, roomPath := projectorRoom(t, w, h)
		name := fmt.Sprintf("%d × %d, seven lanes", w, h)
		status := browsertest.Run(tab, chromedp.Evaluate[int](
			`fetch('`+roomPath+`/point?i=9', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{}'}).then(r => r.status)`,
			chromedp.EvalAwaitPromise))
		if status != 200 && status != 204 {
			t.Fatalf("%s: pointing at request 10: status %d", name, status)
		}
		tab.WaitText(`[data-testid="room-pointed"]`, "Request 10 at 40 s")
		min := projectorMinType * float64(h)
		check := func(stage string) {
			t.Helper()
			browsertest.Run(tab, chromedp.Evaluate[bool](`(window.scrollTo(0, 0), document.activeElement && document.activeElement.blur(), true)`))
			texts := browsertest.Run(tab, chromedp.Evaluate[[]shownText](projectorTextJS))
			if len(texts) < 50 {
				t.Fatalf("%s, %s: %d texts measured, want the lanes' labels and the side column's lines", name, stage, len(texts))
			}
			svg := 0
			for _, x := range texts {
				if x.Px < min-0.05 {
					t.Errorf("%s, %s: %q (in %s) is %.1f px, want at least %.1f px", name, stage, x.Text, x.Where, x.Px, min)
				}
				if strings.HasPrefix(x.Where, "lane-") || x.Where == "room-lanes" {
					svg++
				}
			}
		}
		tab.Do(chromedp.SendKeys(chromedp.CSS(`[data-testid="ask-at"]`), "41 s"), chromedp.Click(chromedp.CSS(`[data-testid="ask"]`)))
		tab.WaitText(`[data-testid="answered"]`, "answered")
		check("question open")
		tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="reveal"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid="tally"]`)))
		check("revealed")
	}
}

const projectorMinType = 0.018

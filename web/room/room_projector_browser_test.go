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
	return scenarioRoom(t, "car-park", 40000, w, h)
}

// scenarioRoom starts a room over lessons/scenarios/<name>.json at atMs
// in a tab of the given size, as projectorRoom does.
func scenarioRoom(t *testing.T, name string, atMs int64, w, h int64) (*browsertest.Tab, string, string) {
	t.Helper()
	return scenarioRoomConfig(t, name, atMs, w, h, room.Config{})
}

// scenarioRoomConfig is scenarioRoom with the rooms configured as cfg
// says (a test's clock, say).
func scenarioRoomConfig(t *testing.T, name string, atMs int64, w, h int64, cfg room.Config) (*browsertest.Tab, string, string) {
	t.Helper()
	lib, _, err := weblessons.LoadLessons()
	if err != nil {
		t.Fatal(err)
	}
	sessions := play.NewStore(nil)
	rooms, err := room.New(room.NewMemStore(), cfg)
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
	raw, err := os.ReadFile("../../lessons/scenarios/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	tab := browsertest.NewTab(t)
	tab.Do(chromedp.EmulateViewport(w, h), chromedp.Navigate(url+scenario.EncodeURL(sc)+fmt.Sprintf("&t=%d", atMs)))
	tab.WaitText(`[data-testid="live-status"]`, "Live: connected")
	from := tab.Location()
	tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="start-room"]`)))
	tab.WaitNavigated(from)
	tab.WaitText(`[data-testid="live-status"]`, "Live: connected")
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

// nodesHiddenJS measures, in every lane that says what its nodes hold is
// hidden, the extent of that sentence's text and of the lane's status
// line's text, the lane's own box, and whether the status line clips or scrolls content.
const nodesHiddenJS = `(() => [...document.querySelectorAll('[data-testid=lane]')].flatMap(l => {
	const hidden = l.querySelector('[data-testid=lane-nodes-hidden]'), status = l.querySelector('[data-testid=lane-status]');
	if (!hidden || !status) return [];
	const rect = r => ({left: r.left, top: r.top, right: r.right, bottom: r.bottom});
	// A text's own extent: a box too small for its lines lets them spill.
	const text = e => { const r = document.createRange(); r.selectNodeContents(e); return rect(r.getBoundingClientRect()); };
	return [{lane: l.dataset.label, hidden: text(hidden), status: text(status), box: rect(l.getBoundingClientRect()),
		clipped: Math.max(status.scrollHeight - status.clientHeight, status.scrollWidth - status.clientWidth, 0),
		px: Math.min(parseFloat(getComputedStyle(hidden).fontSize), parseFloat(getComputedStyle(status).fontSize))}];
}))()`

// rect is one box of nodesHiddenJS, in CSS px.
type rect struct{ Left, Top, Right, Bottom float64 }

// nodesHidden is one lane of nodesHiddenJS.
type nodesHidden struct {
	Lane                string
	Hidden, Status, Box rect
	Clipped             float64
	Px                  float64 // the smaller of the two texts' font sizes
}

// TestBrowserRoomProjectorNodesHidden: with a question open on the
// several-servers preset, each multi-server lane's "what each node holds
// is hidden" sentence and its status line do not overlap, and the status
// line stays inside its lane, on a 1280 × 720 and a 1920 × 1080 projector
// and on a 360 px phone; on the projectors both are at least 2.2 % of the
// screen's height, the rule of the room's lines with up to five lanes
// (TestBrowserRoomProjectorFits).
func TestBrowserRoomProjectorNodesHidden(t *testing.T) {
	for _, size := range [][2]int64{{1280, 720}, {1920, 1080}, {360, 740}} {
		w, h := size[0], size[1]
		name := fmt.Sprintf("%d × %d, several servers", w, h)
		tab, _, _ := scenarioRoom(t, "several-servers", 600, w, h)
		tab.Do(chromedp.SendKeys(chromedp.CSS(`[data-testid="ask-at"]`), "1 s"), chromedp.Click(chromedp.CSS(`[data-testid="ask"]`)))
		tab.WaitText(`[data-testid="answered"]`, "answered")
		browsertest.Run(tab, chromedp.Evaluate[bool](`(window.scrollTo(0, 0), document.activeElement && document.activeElement.blur(), true)`))
		lanes := browsertest.Run(tab, chromedp.Evaluate[[]nodesHidden](nodesHiddenJS))
		if len(lanes) != 3 {
			t.Fatalf("%s: %d lanes say their nodes are hidden, want the 3 on several servers", name, len(lanes))
		}
		for _, l := range lanes {
			hid, st, box := l.Hidden, l.Status, l.Box
			if hid.Left < st.Right && st.Left < hid.Right && hid.Top < st.Bottom && st.Top < hid.Bottom {
				t.Errorf("%s, %s: the hidden-nodes sentence %v overlaps the status line %v", name, l.Lane, hid, st)
			}
			if st.Left < box.Left-0.5 || st.Top < box.Top-0.5 || st.Right > box.Right+0.5 || st.Bottom > box.Bottom+0.5 {
				t.Errorf("%s, %s: the status line %v runs outside its lane %v", name, l.Lane, st, box)
			}
			if hid.Left < box.Left-0.5 || hid.Top < box.Top-0.5 || hid.Right > box.Right+0.5 || hid.Bottom > box.Bottom+0.5 {
				t.Errorf("%s, %s: the hidden-nodes sentence %v runs outside its lane %v", name, l.Lane, hid, box)
			}
			if min := 0.022 * float64(h); w >= 700 && l.Px < min-0.05 {
				t.Errorf("%s, %s: the status line or the hidden-nodes sentence is %.1f px, want at least %.1f px", name, l.Lane, l.Px, min)
			}
			if l.Clipped > 1 {
				t.Errorf("%s, %s: the status line hides %.0f px of its content", name, l.Lane, l.Clipped)
			}
		}
	}
}

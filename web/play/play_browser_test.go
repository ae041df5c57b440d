package play

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/windowlab/playground/internal/browsertest"
	"github.com/windowlab/playground/internal/webtest"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web"
)

// carParkDefaultLanes is the car park with the playground's four default
// lanes, run by the scenario package: what every lane must show.
func carParkDefaultLanes(t *testing.T) scenario.Result {
	t.Helper()
	sc := play.DefaultScenario()
	for _, a := range webtest.CarParkArrivals {
		sc.Requests = append(sc.Requests, scenario.Request{At: int64(a.Sec) * 1000, Cost: 1, Count: int64(a.Cars)})
	}
	res, err := scenario.Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

type laneMarks struct {
	Label   string `json:"label"`
	Allowed []bool `json:"allowed"`
}

const lanesJS = `[...document.querySelectorAll('[data-testid=lane]')].map(l => ({label: l.dataset.label,
	allowed: [...l.querySelectorAll('.mark')].map(m => m.classList.contains('admitted'))}))`

// waitLanes waits until every lane shows the marks of want.
func waitLanes(t *testing.T, tab *browsertest.Tab, want scenario.Result) {
	t.Helper()
	wantLanes := []laneMarks{}
	for _, r := range want.Results {
		lm := laneMarks{Label: r.Label, Allowed: []bool{}}
		for _, d := range r.Decisions {
			lm.Allowed = append(lm.Allowed, d.Allowed())
		}
		wantLanes = append(wantLanes, lm)
	}
	js, err := json.Marshal(wantLanes)
	if err != nil {
		t.Fatal(err)
	}
	tab.WaitFor(fmt.Sprintf("JSON.stringify(%s) === %q", lanesJS, js), "JSON.stringify("+lanesJS+") + ', the policies decide ' + "+strconv.Quote(string(js)))
}

// waitCount waits until the first lane draws n marks.
func waitCount(t *testing.T, tab *browsertest.Tab, n int) {
	t.Helper()
	js := `document.querySelectorAll('#lane-0 .mark').length`
	tab.WaitFor(fmt.Sprintf("%s === %d", js, n), fmt.Sprintf("'lane 0 draws ' + %s + ' marks, want %d'", js, n))
}

func openPlay(t *testing.T, url string) *browsertest.Tab {
	t.Helper()
	tab := browsertest.NewTab(t)
	tab.Do(chromedp.Navigate(url))
	tab.WaitText(`[data-testid="live-status"]`, "Live: connected")
	// The stream's first event re-renders the page: wait for it.
	tab.Do(chromedp.WaitVisible(chromedp.CSS(`#lane-0`)))
	tab.WaitLive() // the stream's first frame has re-rendered the page
	return tab
}

func pressKey(tab *browsertest.Tab, key string) {
	tab.Do(chromedp.KeyEvent(key))
}

func TestBrowserPlayCarParkWithTheKeyboard(t *testing.T) {
	_, url, _ := newTestServer(t, Playground(play.NewStore(nil)))
	tab := openPlay(t, url+"/play")
	// Focus the page body: keys typed into fields are not shortcuts.
	browsertest.Run(tab, chromedp.Evaluate[bool](`(document.activeElement && document.activeElement.blur(), true)`))
	fired, now := 0, 0
	for _, a := range webtest.CarParkArrivals {
		for now < a.Sec {
			pressKey(tab, "s")
			now++
			tab.WaitText(`[data-testid="clock"]`, fmt.Sprintf("%d s", now))
		}
		for range a.Cars {
			pressKey(tab, "f")
			fired++
			waitCount(t, tab, fired)
		}
	}
	waitLanes(t, tab, carParkDefaultLanes(t))
	if got := tab.Text(`[data-testid="summary"]`); !strings.Contains(got, "decided differently") {
		t.Errorf("summary %q does not mark the disagreements", got)
	}
	// Selecting the last request explains it in every lane.
	pressKey(tab, "[")
	tab.WaitText(`[data-testid="explain"]`, "Request 10 at 40 s")
	tab.WaitText(`[data-testid="explain"]`, "Retry-After")
}

func TestBrowserPlayCarParkWithTheMouse(t *testing.T) {
	_, url, _ := newTestServer(t, Playground(play.NewStore(nil)))
	tab := openPlay(t, url+"/play")
	fired := 0
	for _, a := range webtest.CarParkArrivals {
		// Clear the field, then type into it: the key events feed the binding.
		browsertest.Run(tab, chromedp.Evaluate[bool](`(document.querySelector('[data-testid=jump-input]').value = '', true)`))
		tab.Do(
			chromedp.SendKeys(chromedp.CSS(`[data-testid="jump-input"]`), fmt.Sprint(a.Sec)),
			chromedp.Click(chromedp.CSS(`[data-testid="jump"]`)),
		)
		tab.WaitText(`[data-testid="clock"]`, fmt.Sprintf("%d s", a.Sec))
		for range a.Cars {
			tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="fire"]`)))
			fired++
			waitCount(t, tab, fired)
		}
	}
	want := carParkDefaultLanes(t)
	waitLanes(t, tab, want)

	// The shared link, opened in a fresh browser context, shows the same
	// timeline.
	link := browsertest.Run(tab, chromedp.Evaluate[string](`document.querySelector('[data-testid=share-link]').href`))
	other := openPlay(t, link)
	waitLanes(t, other, want)
	// Select the last request, where the lanes disagree, to show its
	// explanation.
	browsertest.Run(other, chromedp.Evaluate[bool](`(document.activeElement && document.activeElement.blur(), true)`))
	pressKey(other, "[")
	other.WaitText(`[data-testid="explain"]`, "Request 10 at 40 s")
	saveFigure(t, other, "play-car-park.png")
}

func TestBrowserPlayClockSelectionAndSettings(t *testing.T) {
	_, url, _ := newTestServer(t, Playground(play.NewStore(nil)))
	// The four lanes a scenario without lanes gets, so that adding gcra
	// adds a fifth (a new /play has all seven, gcra among them).
	tab := openPlay(t, url+scenario.EncodeURL(scenario.Scenario{Limit: 5, WindowMs: 30_000, Policies: scenario.DefaultPolicies()}))
	tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="play-toggle"]`)))
	tab.WaitText(`[data-testid="clock-state"]`, "playing at 1×")
	// The clock moves on from 0 s (whole seconds, or a fraction).
	clock := `(document.querySelector('[data-testid="clock"]') || {}).innerText?.trim().replace(/\s+/g, ' ') || ''`
	tab.WaitFor(`(t => t !== '0 s' && t.endsWith('s') && !t.endsWith(' ms') || t.includes('.'))(`+clock+`)`, `'the clock still shows ' + `+clock)
	tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="play-toggle"]`)))
	tab.WaitText(`[data-testid="clock-state"]`, "paused")

	// Clicking a mark explains its request.
	tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="fire"]`)))
	waitCount(t, tab, 1)
	tab.Do(chromedp.Click(chromedp.CSS(`#lane-0 .mark`)))
	tab.WaitText(`[data-testid="explain"]`, "Request 1 at")

	// A limit of 0 is refused next to the settings and changes nothing.
	browsertest.Run(tab, chromedp.Evaluate[bool](`(document.querySelector('[data-testid=limit]').value = '', true)`))
	tab.Do(
		chromedp.SendKeys(chromedp.CSS(`[data-testid="limit"]`), "0"),
		chromedp.Click(chromedp.CSS(`[data-testid="apply"]`)),
	)
	tab.WaitText(`[data-testid="err-settings"]`, "Limit: 0 is not a whole number from 1")
	if got := tab.Text(`[data-testid="summary"]`); !strings.Contains(got, "limit 5 per 30 s") {
		t.Errorf("after a refused limit the summary reads %q", got)
	}

	// Adding gcra adds a fifth lane after the fourth.
	browsertest.Run(tab, chromedp.Evaluate[bool](`(document.querySelector('[data-testid=limit]').value = '', true)`))
	tab.Do(
		chromedp.SendKeys(chromedp.CSS(`[data-testid="limit"]`), "5"),
		chromedp.Click(chromedp.CSS(`[data-bind-use-gcra]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="apply"]`)),
	)
	tab.Do(chromedp.WaitVisible(chromedp.CSS(`#lane-4[data-policy="gcra"]`)))
	if order := browsertest.Run(tab, chromedp.Evaluate[string](`[...document.querySelectorAll('[data-testid=lane]')].map(l => l.id).join(' ')`)); order != "lane-0 lane-1 lane-2 lane-3 lane-4" {
		t.Errorf("lanes in order %q", order)
	}
	if msg := tab.Text(`[data-testid="err-settings"]`); msg != "" {
		t.Errorf("the settings error stayed after a valid apply: %q", msg)
	}

	// A second client has lanes of its own.
	tab.Do(
		chromedp.Click(chromedp.CSS(`.play-controls details summary`)),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="new-client"]`), `alice "<b>"`),
		chromedp.Click(chromedp.CSS(`[data-testid="add-client"]`)),
	)
	tab.WaitText(`[data-testid="summary"]`, `drawing client alice "<b>"`)
	waitCount(t, tab, 0)
	tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="fire"]`)))
	waitCount(t, tab, 1)
	tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="fire"]`)))
	waitCount(t, tab, 2)
	tab.Do(chromedp.SetValue(chromedp.CSS(`[data-testid="client"]`), "default"))
	browsertest.Run(tab, chromedp.Evaluate[bool](`(document.querySelector('[data-testid=client]').dispatchEvent(new Event('change', {bubbles: true})), true)`))
	tab.WaitText(`[data-testid="summary"]`, "drawing client default")
	waitCount(t, tab, 1)
}

func saveFigure(t *testing.T, tab *browsertest.Tab, name string) {
	t.Helper()
	if !browsertest.FiguresWanted() {
		return
	}
	tab.Do(chromedp.EmulateViewport(1280, 1100), chromedp.Sleep(300*time.Millisecond))
	browsertest.FinishAnimations(tab)
	browsertest.SaveFigure(t, name, browsertest.Run(tab, chromedp.FullScreenshot(100)))
}

// TestBrowserPlayPhoneAndPresentation checks that /play fits a 360 px
// phone, and that the presentation view hides the controls but keeps the
// keyboard.
func TestBrowserPlayPhoneAndPresentation(t *testing.T) {
	_, url, _ := newTestServer(t, Playground(play.NewStore(nil)))
	tab := browsertest.NewTab(t)
	// The full page, load form included, fits the phone too.
	tab.Do(chromedp.EmulateViewport(360, 740), chromedp.Navigate(url+"/play"))
	tab.WaitText(`[data-testid="live-status"]`, "Live: connected")
	tab.Do(chromedp.WaitVisible(chromedp.CSS(`#lane-0`)))
	if w := browsertest.Run(tab, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 360 {
		wide := browsertest.Run(tab, chromedp.Evaluate[[]string](`[...document.querySelectorAll('body *')].filter(e => !e.closest('.lane-scroll') && e.getBoundingClientRect().right > 360.5).map(e => e.tagName + ' ' + e.className)`))
		t.Errorf("/play is %d px wide on a 360 px screen; too wide: %v", w, wide)
	}
	tab.Do(chromedp.EmulateViewport(360, 740), chromedp.Navigate(url+"/play?present=1"))
	tab.WaitText(`[data-testid="live-status"]`, "Live: connected")
	tab.Do(chromedp.WaitVisible(chromedp.CSS(`#lane-0`)))
	if w := browsertest.Run(tab, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 360 {
		t.Errorf("/play is %d px wide on a 360 px screen", w)
	}
	if hidden := browsertest.Run(tab, chromedp.Evaluate[bool](`getComputedStyle(document.querySelector('.play-controls fieldset')).display === 'none'`)); !hidden {
		t.Error("the presentation view shows the control panels")
	}
	tab.WaitLive() // the stream's first frame has re-rendered the page
	pressKey(tab, "f")
	waitCount(t, tab, 1)
	pressKey(tab, "w")
	tab.WaitText(`[data-testid="clock"]`, "30 s")
}

// TestBrowserPlayLoadsPastedAndUploadedScenarios loads the seeds' car park
// with all seven policies, pasted and then uploaded, and checks every lane
// against scenario.Run.
func TestBrowserPlayLoadsPastedAndUploadedScenarios(t *testing.T) {
	path, err := filepath.Abs("../../lessons/scenarios/car-park.json")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	want, err := scenario.Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	_, url, _ := newTestServer(t, Playground(play.NewStore(nil)))
	tab := openPlay(t, url+"/play")
	tab.Do(
		chromedp.SetValue(chromedp.CSS(`#load-text`), string(data)),
		chromedp.Click(chromedp.CSS(`.play-load button[type=submit]`)),
	)
	tab.WaitText(`[data-testid="summary"]`, "drawing client car-park")
	waitLanes(t, tab, want)

	// The uploaded file has a limit of 4, so its lanes differ.
	sc.Limit = 4
	want, err = scenario.Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	upload := filepath.Join(t.TempDir(), "car-park-4.json")
	if err := os.WriteFile(upload, []byte(strings.Replace(string(data), `"limit": 5`, `"limit": 4`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	tab.Do(
		chromedp.SetUploadFiles(chromedp.CSS(`.play-load input[type=file]`), []string{upload}),
		chromedp.Click(chromedp.CSS(`.play-load button[type=submit]`)),
	)
	tab.WaitText(`[data-testid="summary"]`, "limit 4 per 30 s")
	waitLanes(t, tab, want)
}

// TestBrowserPlayEnterInAFieldActs: typing a number into a field and
// pressing Enter does what the field's button does, as in a form (the
// shortcut letters type into a field, so Enter is the keyboard's way).
func TestBrowserPlayEnterInAFieldActs(t *testing.T) {
	_, url, _ := newTestServer(t, Playground(play.NewStore(nil)))
	tab := openPlay(t, url+"/play")
	typeEnter := func(testid, text string) {
		sel := `[data-testid="` + testid + `"]`
		browsertest.Run(tab, chromedp.Evaluate[bool](`(document.querySelector('`+sel+`').value = '', true)`))
		tab.Do(chromedp.SendKeys(chromedp.CSS(sel), text), chromedp.KeyEvent(kb.Enter))
	}
	typeEnter("jump-input", "12")
	tab.WaitText(`[data-testid="clock"]`, "12 s")
	typeEnter("burst-count", "3")
	waitCount(t, tab, 3)
	typeEnter("limit", "7")
	tab.WaitText(`[data-testid="summary"]`, "limit 7 per 30 s")
	tab.NoProblems()
}

// lastLabelsClipped lists the lanes whose last time label (the axis's end)
// the lane's scroller cuts off.
const lastLabelsClipped = `[...document.querySelectorAll('[data-testid=lane]')].filter(l => {
	const scroller = l.querySelector('.lane-scroll');
	scroller.scrollLeft = scroller.scrollWidth; // a phone scrolls to the axis's end
	const labels = l.querySelectorAll('.tick-label'), box = scroller.getBoundingClientRect();
	return labels[labels.length - 1].getBoundingClientRect().right > box.right + 0.5;
}).map(l => l.dataset.label)`

// TestBrowserPlayTimeAxisLabelsShowWhole: the last time label ("90 s")
// is not cut off, on a laptop, on a projector in presentation, on a phone.
func TestBrowserPlayTimeAxisLabelsShowWhole(t *testing.T) {
	_, url, _ := newTestServer(t, Playground(play.NewStore(nil)))
	tab := browsertest.NewTab(t)
	for _, c := range []struct {
		path string
		w, h int64
	}{{"/play", 1280, 800}, {"/play?present=1", 1024, 768}, {"/play", 360, 740}} {
		tab.Do(chromedp.EmulateViewport(c.w, c.h), chromedp.Navigate(url+c.path))
		tab.WaitText(`[data-testid="live-status"]`, "Live: connected")
		tab.Do(chromedp.WaitVisible(chromedp.CSS(`#lane-0`)))
		if clipped := browsertest.Run(tab, chromedp.Evaluate[[]string](lastLabelsClipped)); len(clipped) > 0 {
			t.Errorf("%s at %d px: the last time label is cut off in %v", c.path, c.w, clipped)
		}
	}
}

// TestBrowserPlayPresentationShowsALaneWhole: on a 1024 × 768 projector
// the presentation view shows the clock, the keys and the first lane whole
// without scrolling.
func TestBrowserPlayPresentationShowsALaneWhole(t *testing.T) {
	_, url, _ := newTestServer(t, Playground(play.NewStore(nil)))
	tab := browsertest.NewTab(t)
	tab.Do(chromedp.EmulateViewport(1024, 768), chromedp.Navigate(url+"/play?present=1"))
	tab.WaitText(`[data-testid="live-status"]`, "Live: connected")
	tab.Do(chromedp.WaitVisible(chromedp.CSS(`#lane-0`)))
	if bottom := browsertest.Run(tab, chromedp.Evaluate[float64](`document.querySelector('#lane-0').getBoundingClientRect().bottom`)); bottom > 768 {
		t.Errorf("the first lane ends at %.0f px, below a 768 px projector", bottom)
	}
	if top := browsertest.Run(tab, chromedp.Evaluate[float64](`document.querySelector('#lane-1').getBoundingClientRect().top`)); top > 700 {
		t.Errorf("the second lane starts at %.0f px: the audience sees no comparison on a 768 px projector", top)
	}
}

// TestBrowserPlayDisagreementIsReadable: the orange of "the policies
// disagree" reads at 4.5:1 or better, light and dark, as text and as the
// lanes' marks, in the normal view and the presentation view (it was
// about 4.4:1 and 3.8:1, faint on a projector, and in the presentation's
// dark setting it was the dark scheme's orange on white).
func TestBrowserPlayDisagreementIsReadable(t *testing.T) {
	_, url, _ := newTestServer(t, Playground(play.NewStore(nil)))
	carPark := scenario.EncodeURL(webtest.CarParkScenario(t, nil)) + "&t=40000"
	for _, scheme := range []string{"light", "dark"} {
		for _, page := range []struct{ name, path string }{
			{"/play", "/play"}, {"the car park", carPark}, {"the car park presented", carPark + "&present=1"},
		} {
			tab := browsertest.NewTab(t)
			webtest.EmulateScheme(t, tab, scheme)
			tab.Do(chromedp.Navigate(url + page.path))
			tab.WaitText(`[data-testid="live-status"]`, "Live: connected")
			tab.Do(chromedp.WaitVisible(chromedp.CSS(`#lane-0`)))
			got := browsertest.Run(tab, chromedp.Evaluate[map[string]float64](webtest.ContrastJS))
			if len(got) == 0 {
				t.Fatalf("%s, %s: no disagreement key or mark to measure", scheme, page.name)
			}
			if page.path != "/play" && !webtest.HasPrefix(got, "mark ") {
				t.Errorf("%s, %s: the lanes draw no ▼ mark; measured %v", scheme, page.name, got)
			}
			for what, c := range got {
				if c < 4.5 {
					t.Errorf("%s, %s: the disagreement %s has contrast %.2f:1, want 4.5:1", scheme, page.name, what, c)
				}
			}
		}
	}
}

// TestBrowserPlaySaysWhenTheSessionHasEnded: after a server restart the
// page's session is gone; the next button says so on the page instead of
// doing nothing.
func TestBrowserPlaySaysWhenTheSessionHasEnded(t *testing.T) {
	build := func() http.Handler {
		s, err := web.New(web.Config{DatastarPath: webtest.BundlePath(t), Version: "test-version", Features: []web.Feature{Playground(play.NewStore(nil))}}, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	var current atomic.Pointer[http.Handler]
	before := build()
	current.Store(&before)
	url := browsertest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*current.Load()).ServeHTTP(w, r) }))
	tab := openPlay(t, url+"/play")
	tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="fire"]`)))
	waitCount(t, tab, 1)

	after := build() // the server restarted: it knows no session
	current.Store(&after)
	tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="fire"]`)))
	tab.WaitText(`[data-testid="summary"]`, "This playground session has ended")
	tab.WaitText(`[data-testid="summary"]`, "Link to this scenario")
}

// TestBrowserPlayCopiesWithoutTheClipboardAPI: over plain http from another
// machine (a workshop) the page is not a secure context and has no
// navigator.clipboard. "Copy scenario" then selects the scenario and copies
// it with execCommand, or, where that is refused too, leaves it selected and
// says how to copy it.
func TestBrowserPlayCopiesWithoutTheClipboardAPI(t *testing.T) {
	_, url, _ := newTestServer(t, Playground(play.NewStore(nil)))
	tab := openPlay(t, url+"/play")
	tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="fire"]`)))
	waitCount(t, tab, 1)
	browsertest.Run(tab, chromedp.Evaluate[bool](`(delete Navigator.prototype.clipboard, delete navigator.clipboard, !('clipboard' in navigator))`))

	// execCommand copies: the whole scenario was selected when it ran.
	browsertest.Run(tab, chromedp.Evaluate[bool](`(window.copiedText = null, document.execCommand = (cmd) => {
		const ta = document.getElementById('scenario-json');
		window.copiedText = cmd === 'copy' && document.activeElement === ta ? ta.value.substring(ta.selectionStart, ta.selectionEnd) : null;
		return true;
	}, true)`))
	tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="copy-scenario"]`)))
	tab.WaitText(`[data-testid="copy-status"]`, "Copied.")
	copied := browsertest.Run(tab, chromedp.Evaluate[string](`window.copiedText || ''`))
	shown := browsertest.Run(tab, chromedp.Evaluate[string](`document.getElementById('scenario-json').value`))
	if copied == "" || copied != shown {
		t.Errorf("execCommand copied %q, the scenario is %q", copied, shown)
	}

	// execCommand refused: the scenario stays selected and the page says so.
	browsertest.Run(tab, chromedp.Evaluate[bool](`(document.execCommand = () => false, document.activeElement.blur(), true)`))
	tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="copy-scenario"]`)))
	tab.WaitText(`[data-testid="copy-status"]`, "Selected: press Ctrl+C to copy")
	if sel := browsertest.Run(tab, chromedp.Evaluate[bool](`(() => { const ta = document.getElementById('scenario-json');
		return document.activeElement === ta && ta.selectionStart === 0 && ta.selectionEnd === ta.value.length && ta.value.length > 0 })()`)); !sel {
		t.Error("after a refused copy the scenario is not selected")
	}
	if live := browsertest.Run(tab, chromedp.Evaluate[string](`document.querySelector('[data-testid=copy-status]').getAttribute('aria-live')`)); live != "polite" {
		t.Errorf("the copy status has aria-live %q", live)
	}
	tab.NoProblems()
}

// TestBrowserPlayJumpKeyStartsFromTheClock: the Jump field keeps what was
// typed into it while the clock moves on, so j must not jump to that old
// time at once. It fills the field with the clock's time and focuses it;
// the presenter types the time and presses Enter.
func TestBrowserPlayJumpKeyStartsFromTheClock(t *testing.T) {
	_, url, _ := newTestServer(t, Playground(play.NewStore(nil)))
	tab := openPlay(t, url+"/play")
	browsertest.Run(tab, chromedp.Evaluate[bool](`(document.activeElement && document.activeElement.blur(), true)`))
	for i := 1; i <= 3; i++ {
		pressKey(tab, "s")
		tab.WaitText(`[data-testid="clock"]`, fmt.Sprintf("%d s", i))
	}
	pressKey(tab, "w")
	tab.WaitText(`[data-testid="clock"]`, "33 s")

	// Every clock the page shows from here on is noted: a jump that j
	// made at once would show before the jump typed below, which proves
	// the page live.
	browsertest.Run(tab, chromedp.Evaluate[bool](`(() => { window.clocksShown = [];
		new MutationObserver(() => { const c = document.querySelector('[data-testid=clock]'); if (c) window.clocksShown.push(c.textContent.trim()) })
			.observe(document.body, {subtree: true, childList: true, characterData: true}); return true })()`))
	pressJ(tab)
	state := browsertest.Run(tab, chromedp.Evaluate[map[string]any](`(() => { const f = document.querySelector('[data-testid=jump-input]');
		return {focused: document.activeElement === f, value: f.value} })()`))
	if state["focused"] != true || state["value"] != "33" {
		t.Errorf("after j the Jump field is %v; want it focused, holding the clock's 33", state)
	}

	// The time is selected: typing replaces it, and Enter jumps there.
	tab.Do(chromedp.KeyEvent("1"), chromedp.KeyEvent("2"), chromedp.KeyEvent(kb.Enter))
	tab.WaitText(`[data-testid="clock"]`, "12 s")
	for _, c := range browsertest.Run(tab, chromedp.Evaluate[[]string](`window.clocksShown`)) {
		if c != "33 s" && c != "12 s" {
			t.Fatalf("j moved the clock to %q before the typed jump; it should wait for a time", c)
		}
	}
	// Enter left the field: the shortcuts work again.
	pressKey(tab, "s")
	tab.WaitText(`[data-testid="clock"]`, "13 s")

	// The presentation view hides the clock panel; j shows it until the
	// jump is made.
	tab.Do(chromedp.Navigate(url + "/play?present=1"))
	tab.WaitText(`[data-testid="live-status"]`, "Live: connected")
	tab.Do(chromedp.WaitVisible(chromedp.CSS(`#lane-0`)))
	tab.WaitLive() // the stream's first frame has re-rendered the page
	panelShown := `getComputedStyle(document.querySelector('.play-clock-controls')).display !== 'none'`
	if browsertest.Run(tab, chromedp.Evaluate[bool](panelShown)) {
		t.Fatal("the presentation view shows the clock panel")
	}
	pressKey(tab, "w")
	tab.WaitText(`[data-testid="clock"]`, "30 s")
	pressJ(tab)
	if !browsertest.Run(tab, chromedp.Evaluate[bool](panelShown+` && document.activeElement === document.querySelector('[data-testid=jump-input]')`)) {
		t.Fatal("in the presentation view j does not show and focus the Jump field")
	}
	tab.Do(chromedp.KeyEvent("5"), chromedp.KeyEvent(kb.Enter))
	tab.WaitText(`[data-testid="clock"]`, "5 s")
	if browsertest.Run(tab, chromedp.Evaluate[bool](panelShown)) {
		t.Error("the clock panel stayed open in the presentation view after the jump")
	}
	tab.NoProblems()
}

// pressJ presses j as a person does. chromedp.KeyEvent sends the character
// as an event of its own, which a keydown's preventDefault cannot cancel as
// it does in a browser, and which would type "j" into the field j focuses.
func pressJ(tab *browsertest.Tab) {
	tab.Do(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		for _, ev := range []input.DispatchKeyEventParams{
			{Type: input.DispatchKeyEventTypeKeyDown, Key: "j", Code: "KeyJ", Text: "j", UnmodifiedText: "j", WindowsVirtualKeyCode: 74, NativeVirtualKeyCode: 74},
			{Type: input.DispatchKeyEventTypeKeyUp, Key: "j", Code: "KeyJ", WindowsVirtualKeyCode: 74, NativeVirtualKeyCode: 74},
		} {
			if _, err := cdp.Call(ctx, tg, input.DispatchKeyEvent, ev); err != nil {
				return err
			}
		}
		return nil
	}))
}

// TestBrowserPlayShortcutsPressTheirButtons: each shortcut the Keyboard
// panel lists presses its button (play-keys.js routes a key to the button
// whose data-key names it), Enter in a field presses the button beside it,
// and a key typed into a field, or held with Ctrl, presses nothing. Clicks
// are caught before they reach Datastar, so only the routing is tested.
func TestBrowserPlayShortcutsPressTheirButtons(t *testing.T) {
	_, url, _ := newTestServer(t, Playground(play.NewStore(nil)))
	tab := openPlay(t, url+"/play")
	browsertest.Run(tab, chromedp.Evaluate[bool](`(window.pressed = [],
		document.addEventListener('click', (evt) => {
			const b = evt.target.closest('button');
			if (b) { window.pressed.push(b.dataset.testid); evt.stopImmediatePropagation(); evt.preventDefault(); }
		}, true),
		document.activeElement && document.activeElement.blur(), true)`))
	pressed := func() []string {
		return browsertest.Run(tab, chromedp.Evaluate[[]string](`window.pressed.splice(0)`))
	}
	for _, c := range []struct{ key, button string }{
		{"f", "fire"}, {"b", "burst"}, {"p", "fire-pattern"}, {" ", "play-toggle"},
		{".", "step-100ms"}, {"s", "step-1s"}, {kb.ArrowRight, "step-1s"}, {"w", "step-window"},
		{"r", "reset"}, {"[", "select-prev"}, {"]", "select-next"},
	} {
		pressKey(tab, c.key)
		if got := pressed(); !reflect.DeepEqual(got, []string{c.button}) {
			t.Errorf("key %q pressed %q, want %s", c.key, got, c.button)
		}
	}
	tab.Do(chromedp.KeyEvent("f", chromedp.KeyModifiers(chromedp.ModifierCtrl)))
	if got := pressed(); len(got) != 0 {
		t.Errorf("Ctrl+f pressed %q, want nothing", got)
	}
	tab.Do(chromedp.Focus(chromedp.CSS(`[data-testid="cost"]`)), chromedp.KeyEvent("f"))
	if got := pressed(); len(got) != 0 {
		t.Errorf("f typed into the cost field pressed %q, want nothing", got)
	}
	// The client's name field sits in a closed "Clients" section.
	browsertest.Run(tab, chromedp.Evaluate[bool](`(document.querySelector('[data-testid=new-client]').closest('details').open = true)`))
	for _, c := range []struct{ field, button string }{
		{"burst-count", "burst"}, {"pattern-span", "fire-pattern"}, {"limit", "apply"}, {"new-client", "add-client"},
	} {
		tab.Do(chromedp.Focus(chromedp.CSS(`[data-testid="`+c.field+`"]`)), chromedp.KeyEvent(kb.Enter))
		if got := pressed(); !reflect.DeepEqual(got, []string{c.button}) {
			t.Errorf("Enter in %s pressed %q, want %s", c.field, got, c.button)
		}
	}
	tab.NoProblems()
}

package room

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/windowlab/playground/internal/browsertest"
	"github.com/windowlab/playground/internal/webtest"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/room"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web"
	weblessons "github.com/windowlab/playground/web/lessons"
	webplay "github.com/windowlab/playground/web/play"
	"github.com/windowlab/playground/web/room/pages"
	"github.com/windowlab/playground/web/simulate"
)

// TestBrowserRoomWorkshop runs a workshop: a presenter and three phones
// (one at 360 px) go through start room → join by code → ask → answer →
// reveal; the projector's tally and each phone's right/wrong must match
// the truth the scenario package computes, and a phone's attempt at a
// presenter action is refused.
func TestBrowserRoomWorkshop(t *testing.T) {
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
		Features: []web.Feature{simulate.API(), webplay.Playground(sessions, rf), rf}}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	// Every room stream must have been offered gzip: then the shared
	// chunks, not identity bytes, are what Chromium decoded.
	var mu sync.Mutex
	var streamEncodings []string
	url := browsertest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/stream") && strings.HasPrefix(r.URL.Path, "/room/") {
			mu.Lock()
			streamEncodings = append(streamEncodings, r.Header.Get("Accept-Encoding"))
			mu.Unlock()
		}
		site.ServeHTTP(w, r)
	}))

	start := time.Now()
	// The presenter starts a room from the playground and loads the car park.
	presenter := browsertest.NewTab(t)
	presenter.Do(chromedp.EmulateViewport(1920, 1080), chromedp.Navigate(url+"/play"))
	presenter.WaitText(`[data-testid="live-status"]`, "Live: connected")
	from := presenter.Location()
	presenter.Do(chromedp.Click(chromedp.CSS(`[data-testid="start-room"]`)))
	presenter.WaitNavigated(from)
	presenter.WaitText(`[data-testid="live-status"]`, "Live: connected")
	code := presenter.Text(`[data-testid="room-code"]`)
	if len(code) != room.CodeLen {
		t.Fatalf("the projector shows the code %q", code)
	}
	if got := presenter.Text(`[data-testid="join-url"]`); got != "http://workshop.example:8080/join/"+code {
		t.Errorf("the join URL reads %q", got)
	}
	presenter.Do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="room-qr"] svg`)))
	roomPath := strings.TrimSuffix(strings.TrimPrefix(presenter.Location(), url), "/present")
	presenter.Do(chromedp.Click(chromedp.CSS(`[data-testid="room-load-preset"]`)))
	presenter.WaitText(`[data-testid="room-status"]`, "10 requests")

	t.Logf("%v: room started", time.Since(start))
	// Three phones join by typing the code, one in lower case with a space.
	sizes := [][2]int64{{360, 740}, {412, 915}, {390, 844}}
	typed := []string{code, strings.ToLower(code[:2]) + " " + strings.ToLower(code[2:]), code}
	phones := make([]*browsertest.Tab, len(sizes))
	for i, sz := range sizes {
		p := browsertest.NewTab(t)
		p.Do(chromedp.EmulateViewport(sz[0], sz[1]), chromedp.Navigate(url+"/join"))
		from := p.Location()
		p.Do(chromedp.SendKeys(chromedp.CSS(`[data-testid="join-code"]`), typed[i]), chromedp.Submit(chromedp.CSS(`[data-testid="join-code"]`)))
		p.WaitNavigated(from)
		if got := strings.TrimPrefix(p.Location(), url); got != roomPath {
			t.Fatalf("phone %d joined at %s, want %s", i, got, roomPath)
		}
		p.WaitText(`[data-testid="room-status"]`, "10 requests")
		phones[i] = p
	}

	t.Logf("%v: phones joined", time.Since(start))
	// The question: will a request at 41 s be admitted, in every lane?
	sc, err := lib.Scenario("car-park")
	if err != nil {
		t.Fatal(err)
	}
	truth := admitTruth(t, sc, "car-park", 41_000)
	presenter.Do(chromedp.SendKeys(chromedp.CSS(`[data-testid="ask-at"]`), "41 s"), chromedp.Click(chromedp.CSS(`[data-testid="ask"]`)))
	presenter.WaitText(`[data-testid="room-question"]`, "0 answered · 3 phones following")
	answers := [][]int64{make([]int64, len(truth)), make([]int64, len(truth)), truth}
	for i := range answers[0] {
		answers[0][i] = 1 // admitted everywhere
	}
	for i, p := range phones {
		p.WaitText(`[data-testid="room-question"]`, "be admitted?")
		if i == 0 {
			// At 360 × 740 the open question is on the first screen, and
			// before the lanes in the keyboard's order.
			type place struct {
				Top         float64 `json:"top"`
				BeforeLanes bool    `json:"beforeLanes"`
			}
			got := browsertest.Run(p, chromedp.Evaluate[place](`(() => {
				const q = document.querySelector('[data-testid=room-question]');
				const lanes = document.querySelector('[data-testid=room-lanes]');
				return {top: q.getBoundingClientRect().top + window.scrollY,
					beforeLanes: !!(q.compareDocumentPosition(lanes) & Node.DOCUMENT_POSITION_FOLLOWING)};
			})()`))
			if got.Top >= 740-60 || !got.BeforeLanes {
				t.Errorf("on a 360 × 740 phone the question starts %.0f px down (want within the first screen, with room for its first line), before the lanes: %v", got.Top, got.BeforeLanes)
			}
		}
		for lane, v := range answers[i] {
			p.Do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-testid="answer-lane"]:nth-of-type(%d) [data-testid="tap"][data-value="%d"]`, lane+1, v))))
		}
		p.WaitText(`[data-testid="room-mine"]`, "Sent.")
	}
	presenter.WaitText(`[data-testid="answered"]`, "3 answered · 3 phones following")
	t.Logf("%v: answered", time.Since(start))
	if n := browsertest.Run(presenter, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid=tally]').length`)); n != 0 {
		t.Error("the projector shows the distribution before the reveal")
	}

	// A phone's attempt at a presenter action is refused.
	status := browsertest.Run(phones[1], chromedp.Evaluate[int](
		`fetch('`+roomPath+`/play/fire', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{}'}).then(r => r.status)`,
		chromedp.EvalAwaitPromise))
	if status != http.StatusForbidden {
		t.Errorf("a phone's POST %s/play/fire: status %d, want 403", roomPath, status)
	}

	presenter.Do(chromedp.Click(chromedp.CSS(`[data-testid="reveal"]`)))
	presenter.Do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="tally"]`)))
	type laneTally struct {
		Truth     string `json:"truth"`
		Right     int    `json:"right"`
		RightText string `json:"rightText"`
	}
	tally := browsertest.Run(presenter, chromedp.Evaluate[[]laneTally](`[...document.querySelectorAll('[data-testid=tally-lane]')].map(l => ({
		truth: l.querySelector('[data-testid=truth]').innerText,
		right: +l.querySelector('[data-testid=bar][data-right]').dataset.count,
		rightText: l.querySelector('[data-testid=bar][data-right] .bar-count').innerText}))`))
	if len(tally) != len(truth) {
		t.Fatalf("the tally has %d lanes, want %d", len(tally), len(truth))
	}
	for lane, tv := range truth {
		want := 0
		for _, a := range answers {
			if a[lane] == tv {
				want++
			}
		}
		wantText := map[int64]string{1: "admitted", 0: "refused"}[tv]
		if tally[lane].Truth != wantText || tally[lane].Right != want {
			t.Errorf("lane %d: the projector shows truth %q with %d right, want %q with %d", lane, tally[lane].Truth, tally[lane].Right, wantText, want)
		}
		// The count says what it counts, so it is not read as the choice.
		if wantCount := pages.PhonesText(want); tally[lane].RightText != wantCount {
			t.Errorf("lane %d: the right bar's count reads %q, want %q", lane, tally[lane].RightText, wantCount)
		}
	}
	for i, p := range phones {
		p.WaitText(`[data-testid="room-mine"]`, "right")
		want := 0
		for lane, v := range answers[i] {
			if v == truth[lane] {
				want++
			}
		}
		if want == 0 {
			p.WaitText(`[data-testid="room-mine"]`, "wrong")
		}
		right := browsertest.Run(p, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid=mine-right]').length`))
		wrong := browsertest.Run(p, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid=mine-wrong]').length`))
		if right != want || wrong != len(truth)-want {
			t.Errorf("phone %d: %d right and %d wrong, want %d and %d", i, right, wrong, want, len(truth)-want)
		}
	}

	t.Logf("%v: revealed", time.Since(start))
	// The 360 px phone: the question (revealed now) first, then the lanes,
	// nothing wider than the screen.
	phone := phones[0]
	layout := browsertest.Run(phone, chromedp.Evaluate[[]float64](`[document.documentElement.scrollWidth,
		document.querySelector('[data-testid=room-lanes]').getBoundingClientRect().top,
		document.querySelector('[data-testid=room-question]').getBoundingClientRect().top]`))
	if layout[0] > 360 {
		t.Errorf("the 360 px phone scrolls sideways: the page is %v px wide", layout[0])
	}
	if layout[2] >= layout[1] {
		t.Errorf("on the phone the question (top %v) comes after the lanes (top %v)", layout[2], layout[1])
	}
	// A phone reads its own explanation; the projector's stays as it was.
	phone.Do(chromedp.Click(chromedp.CSS(`[data-testid="phone-next"]`)))
	phone.WaitText(`[data-testid="phone-explain"]`, "Request 1 at 0 s")
	if got := presenter.Text(`[data-testid="room-pointed"]`); got != "" {
		t.Errorf("an attendee's selection reached the projector: %q", got)
	}

	mu.Lock()
	for _, enc := range streamEncodings {
		if !strings.Contains(enc, "gzip") {
			t.Errorf("a room stream was opened without gzip (Accept-Encoding %q)", enc)
		}
	}
	mu.Unlock()
	for i, tab := range append([]*browsertest.Tab{presenter}, phones...) {
		for _, p := range tab.Problems() {
			// The refused action above is the one problem expected.
			if i != 2 || !strings.Contains(p, "403") {
				t.Errorf("tab %d: browser console: %s", i, p)
			}
		}
	}

	// axe-core finds nothing on the projector and the 360 px phone after
	// the reveal, the states with the most on them.
	for name, tab := range map[string]*browsertest.Tab{"projector": presenter, "phone": phone} {
		webtest.NoAxeViolations(t, tab, name)
	}

	if browsertest.FiguresWanted() {
		saveRoomScreenshot(t, presenter, 1920, 1080, "", "room-projector-tally.png")
		// The phone from its last lane on: the lanes, then the clock, the
		// question and this attendee's marks.
		saveRoomScreenshot(t, phone, 360, 1100, "#room-lanes .lane:last-child", "room-phone.png")
	}

	// Pairing, from the keyboard: the controls' link leads to the
	// presenter's own page, whose button shows the code with the full link
	// and its QR code; axe finds nothing there either.
	pairHref := browsertest.Run(presenter, chromedp.Evaluate[string](`document.querySelector('[data-testid=pair-open]').getAttribute('href')`))
	if pairHref != roomPath+"/pair/new" {
		t.Fatalf("the pairing link goes to %q, want %s/pair/new", pairHref, roomPath)
	}
	presenter.Do(chromedp.Navigate(url + pairHref))
	presenter.WaitText(`[data-testid="pair-warning"]`, "not on the projector")
	focused := ""
	for range 20 {
		presenter.Do(chromedp.KeyEvent(kb.Tab))
		if focused = browsertest.Run(presenter, chromedp.Evaluate[string](`document.activeElement.dataset.testid || ''`)); focused == "pair-show" {
			break
		}
	}
	if focused != "pair-show" {
		t.Fatalf("20 presses of Tab never reach the button that shows a pairing code")
	}
	// The form posts to the page's own address: the code is the change.
	presenter.Do(chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(chromedp.CSS(`[data-testid="pair-qr"] svg`)))
	pairCode := presenter.Text(`[data-testid="pair-code"]`)
	if want := "http://workshop.example:8080" + roomPath + "/pair?code=" + pairCode; presenter.Text(`[data-testid="pair-url"]`) != want {
		t.Errorf("the pairing link reads %q, want %q", presenter.Text(`[data-testid="pair-url"]`), want)
	}
	webtest.NoAxeViolations(t, presenter, "pairing page")
}

// admitTruth is, per lane of sc, 1 if a request from key at `at` would be
// admitted after sc's requests before it, else 0.
func admitTruth(t *testing.T, sc scenario.Scenario, key string, at int64) []int64 {
	t.Helper()
	base := sc
	base.Requests = nil
	for _, r := range sc.Requests {
		if r.At < at {
			base.Requests = append(base.Requests, r)
		}
	}
	var truth []int64
	for _, spec := range sc.Specs() {
		d, err := scenario.WhatIf(base, spec, scenario.Request{At: at, Key: key, Cost: 1, Count: 1})
		if err != nil {
			t.Fatal(err)
		}
		if d.Allowed() {
			truth = append(truth, 1)
		} else {
			truth = append(truth, 0)
		}
	}
	return truth
}

// saveRoomScreenshot saves the view of w × h px at the top of the page,
// or with the element matching from at its top.
func saveRoomScreenshot(t *testing.T, tab *browsertest.Tab, w, h int64, from, name string) {
	t.Helper()
	scroll := `window.scrollTo(0, 0)`
	if from != "" {
		scroll = fmt.Sprintf(`document.querySelector(%q).scrollIntoView()`, from)
	}
	tab.Do(chromedp.EmulateViewport(w, h), chromedp.Evaluate[chromedp.Void](scroll), chromedp.Sleep(300*time.Millisecond))
	browsertest.FinishAnimations(tab)
	browsertest.SaveFigure(t, name, browsertest.Run(tab, chromedp.CaptureScreenshot()))
}

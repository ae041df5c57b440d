package room

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/windowlab/playground/internal/browsertest"
	"github.com/windowlab/playground/internal/webtest"
)

// phoneLayoutJS measures a phone's room page: how wide the page is, each
// lane's box, whether any link of the site's navigation shows, and how far
// the clock is from the question.
const phoneLayoutJS = `(() => {
	const visible = e => e && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
	const box = e => { const r = e.getBoundingClientRect(); return {left: r.left, top: r.top + scrollY, right: r.right, bottom: r.bottom + scrollY}; };
	const lanes = [...document.querySelectorAll('#room-lanes [data-testid=lane]')].map(box);
	const siteLinks = [...document.querySelectorAll('a')].filter(a => visible(a) && !a.closest('#room') && !a.classList.contains('skip-link')).map(a => a.textContent.trim());
	const clock = box(document.querySelector('#room-clock')), question = box(document.querySelector('#room-question'));
	return {width: document.documentElement.scrollWidth, lanes, siteLinks, clockToQuestion: question.top - clock.bottom};
})()`

type phoneLayout struct {
	Width           float64
	Lanes           []rect
	SiteLinks       []string
	ClockToQuestion float64
}

// joinPhone opens the room at roomPath on a 360 × 740 phone (mobile
// emulation), which joins it.
func joinPhone(t *testing.T, url, roomPath string) *browsertest.Tab {
	t.Helper()
	p := browsertest.NewTab(t)
	p.Do(chromedp.EmulateViewport(360, 740, chromedp.EmulateScale(2), chromedp.EmulateMobile), chromedp.Navigate(url+roomPath))
	p.WaitText(`[data-testid="live-status"]`, "Live: connected")
	p.WaitText(`[data-testid="room-status"]`, "requests")
	return p
}

// checkPhone checks a phone's page at one moment: the lanes fill the
// width of the 360 px screen with nothing wider than it, no link of the
// site's navigation shows, and the clock stands just above the question.
func checkPhone(t *testing.T, p *browsertest.Tab, stage string) {
	t.Helper()
	got := browsertest.Run(p, chromedp.Evaluate[phoneLayout](phoneLayoutJS))
	if got.Width > 360 {
		t.Errorf("%s: the page is %.0f px wide on a 360 px phone", stage, got.Width)
	}
	if len(got.Lanes) != 7 {
		t.Errorf("%s: %d lanes, want 7", stage, len(got.Lanes))
	}
	for i, l := range got.Lanes {
		if l.Right-l.Left < 0.9*360 || l.Left < 0 || l.Right > 360 {
			t.Errorf("%s: lane %d spans %.0f–%.0f px: want at least 90 %% of the 360 px screen, inside it", stage, i+1, l.Left, l.Right)
		}
	}
	if len(got.SiteLinks) > 0 {
		t.Errorf("%s: the phone shows the site's links %q, which leave the room", stage, got.SiteLinks)
	}
	if got.ClockToQuestion < 0 || got.ClockToQuestion > 24 {
		t.Errorf("%s: the question starts %.0f px below the clock, want the clock just above it", stage, got.ClockToQuestion)
	}
}

// TestBrowserRoomPhones: phones that explain themselves (#32 item 6), at
// 360 × 740 with the seven-lane car park, lanes as wide as the screen and
// nothing wider (#27 item 3 for rooms). A phone opens on the room's header
// and "waiting for the next question", with the clock just above the
// question and no site navigation; one that taps 3 of 7 lanes is told its
// answer is not sent, before the reveal and after it; a phone that opens
// the room after the presenter closed it to new devices is told so at
// once, on its first screen, and is offered no answer to tap.
func TestBrowserRoomPhones(t *testing.T) {
	presenter, url, roomPath := projectorRoom(t, 1280, 720)
	code := presenter.Text(`[data-testid="room-code"]`)
	phone := joinPhone(t, url, roomPath)
	if got := phone.Text(`[data-testid="phone-header"] h1`); got != "Room "+code {
		t.Errorf("the phone's header reads %q, want %q", got, "Room "+code)
	}
	phone.WaitText(`[data-testid="waiting"]`, "Waiting for the next question")
	checkPhone(t, phone, "waiting")
	webtest.NoAxeViolations(t, phone, "phone, waiting")

	if s := post(t, presenter, roomPath+"/ask", `{"cost": "1", "askKind": "count", "askAt": "41 s", "askN": "5"}`); s >= 300 {
		t.Fatalf("asking: status %d", s)
	}
	phone.WaitText(`[data-testid="room-step"]`, "Question 1")
	phone.WaitText(`[data-testid="unsent"]`, "Not sent yet: 0 of 7 lanes answered")
	for lane := range 3 {
		phone.Do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-testid="answer-lane"]:nth-of-type(%d) [data-testid="tap"][data-value="2"]`, lane+1))))
	}
	phone.WaitText(`[data-testid="unsent"]`, "Not sent yet: 3 of 7 lanes answered")
	checkPhone(t, phone, "question open, 3 of 7 lanes tapped")
	webtest.NoAxeViolations(t, phone, "phone, question open")
	presenter.WaitText(`[data-testid="answered"]`, "0 answered")

	// A second phone answers every lane, then opens the page again: it
	// shows the taps it sent, and does not say "not sent".
	sent := joinPhone(t, url, roomPath)
	sent.WaitText(`[data-testid="room-step"]`, "Question 1")
	for lane := range 7 {
		sent.Do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-testid="answer-lane"]:nth-of-type(%d) [data-testid="tap"][data-value="1"]`, lane+1))))
	}
	sent.WaitText(`[data-testid="room-mine"]`, "Sent.")
	presenter.WaitText(`[data-testid="answered"]`, "1 answered")
	sent.Do(chromedp.Reload())
	sent.WaitText(`[data-testid="room-mine"]`, "Sent.")
	// Waits on the browser: /mine's reply restores the taps.
	browsertest.Run(sent, chromedp.Poll[bool](`document.querySelectorAll('[data-testid=tap][aria-pressed=true]').length === 7`))
	if shown := browsertest.Run(sent, chromedp.Evaluate[bool](`document.querySelector('[data-testid=unsent]').getClientRects().length > 0`)); shown {
		t.Error("a phone that sent every lane, opened again, says its answer is not sent")
	}

	if s := post(t, presenter, roomPath+"/reveal", "{}"); s >= 300 {
		t.Fatalf("revealing: status %d", s)
	}
	phone.WaitText(`[data-testid="room-step"]`, "revealed")
	phone.WaitText(`[data-testid="unsent"]`, "Not sent: 3 of 7 lanes were answered, so this device's answer did not count.")
	phone.WaitText(`[data-testid="room-mine"]`, "No answer from this device was counted")
	checkPhone(t, phone, "revealed")

	// The presenter closes the room to new devices and asks again; a
	// phone arriving now is told at once.
	browsertest.Run(presenter, chromedp.Evaluate[int](`fetch('`+roomPath+`/joins', {method: 'POST', body: new URLSearchParams('open=0')}).then(r => r.status)`, chromedp.EvalAwaitPromise))
	post(t, presenter, roomPath+"/dismiss", "{}")
	if s := post(t, presenter, roomPath+"/ask", `{"cost": "1", "askKind": "admit", "askAt": "41 s"}`); s >= 300 {
		t.Fatalf("asking again: status %d", s)
	}
	late := joinPhone(t, url, roomPath)
	type note struct {
		Text   string  `json:"text"`
		Bottom float64 `json:"bottom"`
		Taps   int     `json:"taps"`
	}
	got := browsertest.Run(late, chromedp.Evaluate[note](`(() => {
		const n = document.querySelector('[data-testid=join-note]');
		return {text: n ? n.textContent : '', bottom: n ? n.getBoundingClientRect().bottom : 1e9,
			taps: [...document.querySelectorAll('[data-testid=tap], [data-testid=moment]')].filter(e => e.getClientRects().length > 0).length};
	})()`))
	if !strings.Contains(got.Text, "closed to new devices") || got.Bottom > 740 {
		t.Errorf("the late phone's first screen says %q (ending at %.0f px): want that the room is closed to new devices, on the first 740 px", got.Text, got.Bottom)
	}
	late.WaitText(`[data-testid="room-question"]`, "be admitted?")
	got = browsertest.Run(late, chromedp.Evaluate[note](`({text: document.querySelector('[data-testid=watching-note]').innerText,
		taps: [...document.querySelectorAll('[data-testid=tap], [data-testid=moment]')].filter(e => e.getClientRects().length > 0).length})`))
	if got.Taps != 0 || !strings.Contains(got.Text, "cannot answer") {
		t.Errorf("the late phone shows %d answer controls and says %q: want none, and why", got.Taps, got.Text)
	}
	checkPhone(t, late, "late phone, question open")
	webtest.NoAxeViolations(t, late, "late phone")
	for _, tab := range []*browsertest.Tab{phone, sent, late} {
		tab.NoProblems()
	}
}

package main

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/windowlab/playground/internal/browsertest"
)

const liveStatus = `[data-testid="live-status"]`

// marksJS is how many requests lane 0 of a page draws.
const marksJS = `document.querySelectorAll('#lane-0 .mark, [data-testid=room-lanes] #lane-0 .mark').length`

// waitMarks waits for lane 0 to draw n requests.
func waitMarks(t *testing.T, tab *browsertest.Tab, n int, step string) {
	t.Helper()
	got, ok := browsertest.Until(tab, marksJS, func(got int) bool { return got == n })
	if ok {
		return
	}
	t.Fatalf("%s: lane 0 draws %d requests, want %d", step, got, n)
}

// clockSeconds is the virtual time a page's clock shows.
func clockSeconds(t *testing.T, tab *browsertest.Tab, sel string) float64 {
	t.Helper()
	s := browsertest.Run(tab, chromedp.Evaluate[string](`document.querySelector('`+sel+`').dataset.seconds || ''`))
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("the clock %s reads %q: %v", sel, s, err)
	}
	return v
}

// TestBrowserRestartLosesNothing kills the server (SIGKILL, no shutdown)
// under an open playground with its clock playing and a workshop room
// with an open question one phone has answered, then starts it again on
// the same data directory: every page reconnects by itself to the same
// lanes, clock, room, question and answers, and each keeps its role (the
// learner fires, the presenter reveals, the phone sees its answer judged).
func TestBrowserRestartLosesNothing(t *testing.T) {
	addr, dir := freeAddr(t), t.TempDir()
	url := "http://" + addr
	srv := startServer(t, "-addr", addr, "-data", dir)

	learner := browsertest.NewTab(t)
	learner.Do(chromedp.Navigate(url + "/play"))
	learner.WaitText(liveStatus, "Live: connected")
	learner.Do(chromedp.WaitVisible(chromedp.CSS(`#lane-0`)))
	for i := range 3 {
		learner.Do(chromedp.Click(chromedp.CSS(`[data-testid="fire"]`)))
		waitMarks(t, learner, i+1, "before the restart")
	}
	learner.Do(chromedp.Click(chromedp.CSS(`[data-testid="play-toggle"]`)))
	learner.WaitText(`[data-testid="clock-state"]`, "playing")

	presenter := browsertest.NewTab(t)
	presenter.Do(chromedp.EmulateViewport(1280, 720), chromedp.Navigate(url+"/play"))
	presenter.WaitText(liveStatus, "Live: connected")
	from := presenter.Location()
	presenter.Do(chromedp.Click(chromedp.CSS(`[data-testid="start-room"]`)))
	presenter.WaitNavigated(from)
	presenter.WaitText(liveStatus, "Live: connected")
	code := presenter.Text(`[data-testid="room-code"]`)
	presenter.Do(chromedp.Click(chromedp.CSS(`[data-testid="room-load-preset"]`)))
	presenter.WaitText(`[data-testid="room-status"]`, "10 requests")

	phone := browsertest.NewTab(t)
	phone.Do(chromedp.EmulateViewport(360, 740), chromedp.Navigate(url+"/join"))
	from = phone.Location()
	phone.Do(chromedp.SendKeys(chromedp.CSS(`[data-testid="join-code"]`), code), chromedp.Submit(chromedp.CSS(`[data-testid="join-code"]`)))
	phone.WaitNavigated(from)
	phone.WaitText(`[data-testid="room-status"]`, "10 requests")

	presenter.Do(chromedp.SendKeys(chromedp.CSS(`[data-testid="ask-at"]`), "41 s"), chromedp.Click(chromedp.CSS(`[data-testid="ask"]`)))
	presenter.WaitText(`[data-testid="room-question"]`, "0 answered · 1 phone")
	phone.WaitText(`[data-testid="room-question"]`, "be admitted?")
	lanes := browsertest.Run(phone, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid=answer-lane]').length`))
	for lane := range lanes {
		phone.Do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-testid="answer-lane"]:nth-of-type(%d) [data-testid="tap"][data-value="1"]`, lane+1))))
	}
	phone.WaitText(`[data-testid="room-mine"]`, "Sent.")
	presenter.WaitText(`[data-testid="answered"]`, "1 answered")

	tried := attempts(learner)
	before := clockSeconds(t, learner, `[data-testid="clock"]`)
	killedAt := time.Now()
	srv.kill()
	for _, p := range []*browsertest.Tab{learner, presenter, phone} {
		p.WaitText(connection, "Disconnected from the server")
	}
	// The server stays down until the learner's page has tried three
	// times to reconnect, each refused by the closed port: its back-off
	// waits at least 0.25, 0.5 and 1 s before them, so the playing clock
	// has moved on by more than the second the check below allows.
	learner.WaitFor(attemptsAbove(tried+2), `'attempts: ' + `+attemptsJS)
	startServer(t, "-addr", addr, "-data", dir)

	// The learner's page comes back to the same lanes, its clock moved on
	// by the time that passed, and it still drives its session.
	learner.WaitText(liveStatus, "Live: connected")
	waitMarks(t, learner, 3, "after the restart")
	if !strings.Contains(learner.Text(`[data-testid="clock-state"]`), "playing") {
		t.Errorf("after the restart the clock reads %q, want it still playing", learner.Text(`[data-testid="clock-state"]`))
	}
	after := clockSeconds(t, learner, `[data-testid="clock"]`)
	if down := time.Since(killedAt).Seconds(); after < before+down-1 {
		t.Errorf("the clock read %.1f s before the restart and %.1f s after it; want it moved on by the %.1f s that passed", before, after, down)
	}
	learner.Do(chromedp.Click(chromedp.CSS(`[data-testid="fire"]`)))
	waitMarks(t, learner, 4, "a fire after the restart")

	// The room, its open question and its answer are back, and the
	// presenter still presents: the reveal reaches the phone.
	presenter.WaitText(liveStatus, "Live: connected")
	if got := presenter.Text(`[data-testid="room-code"]`); got != code {
		t.Errorf("after the restart the projector shows the code %q, want %q", got, code)
	}
	presenter.WaitText(`[data-testid="answered"]`, "1 answered")
	phone.WaitText(liveStatus, "Live: connected")
	phone.WaitText(`[data-testid="room-mine"]`, "Sent.")
	presenter.Do(chromedp.Click(chromedp.CSS(`[data-testid="reveal"]`)))
	presenter.Do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="tally"]`)))
	phone.Do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="mine-right"], [data-testid="mine-wrong"]`)))
}

// TestBrowserReplicasShareARoom runs two servers on one NATS server (a
// third process), a presenter on one and the phones on the other, through
// a predict-and-reveal round: every change on one replica reaches the
// pages of the other, and no request needs to reach the replica that
// made the room.
func TestBrowserReplicasShareARoom(t *testing.T) {
	natsAddr := freeAddr(t)
	startNATS(t, natsAddr, t.TempDir())
	natsURL := "nats://" + natsAddr
	a, b := freeAddr(t), freeAddr(t)
	startServer(t, "-addr", a, "-nats", natsURL)
	startServer(t, "-addr", b, "-nats", natsURL)

	presenter := browsertest.NewTab(t)
	presenter.Do(chromedp.EmulateViewport(1280, 720), chromedp.Navigate("http://"+a+"/play"))
	presenter.WaitText(liveStatus, "Live: connected")
	from := presenter.Location()
	presenter.Do(chromedp.Click(chromedp.CSS(`[data-testid="start-room"]`)))
	presenter.WaitNavigated(from)
	presenter.WaitText(liveStatus, "Live: connected")
	code := presenter.Text(`[data-testid="room-code"]`)
	presenter.Do(chromedp.Click(chromedp.CSS(`[data-testid="room-load-preset"]`)))
	presenter.WaitText(`[data-testid="room-status"]`, "10 requests")

	phones := make([]*browsertest.Tab, 2)
	for i := range phones {
		p := browsertest.NewTab(t)
		p.Do(chromedp.EmulateViewport(360, 740), chromedp.Navigate("http://"+b+"/join"))
		from := p.Location()
		p.Do(chromedp.SendKeys(chromedp.CSS(`[data-testid="join-code"]`), code), chromedp.Submit(chromedp.CSS(`[data-testid="join-code"]`)))
		p.WaitNavigated(from)
		p.WaitText(`[data-testid="room-status"]`, "10 requests")
		phones[i] = p
	}
	// The presenter's fire on replica a reaches the phones on replica b.
	presenter.Do(chromedp.Click(chromedp.CSS(`[data-testid="room-fire"]`)))
	for _, p := range phones {
		p.WaitText(`[data-testid="room-status"]`, "11 requests")
	}
	presenter.Do(chromedp.SendKeys(chromedp.CSS(`[data-testid="ask-at"]`), "41 s"), chromedp.Click(chromedp.CSS(`[data-testid="ask"]`)))
	// The phones follow on replica b, the presenter's page on a: its
	// count is the room's, on every replica.
	presenter.WaitText(`[data-testid="room-status"]`, "2 phones following")
	presenter.WaitText(`[data-testid="room-question"]`, "0 answered")
	for i, p := range phones {
		p.WaitText(`[data-testid="room-question"]`, "be admitted?")
		lanes := browsertest.Run(p, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid=answer-lane]').length`))
		for lane := range lanes {
			p.Do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-testid="answer-lane"]:nth-of-type(%d) [data-testid="tap"][data-value="%d"]`, lane+1, i%2))))
		}
		p.WaitText(`[data-testid="room-mine"]`, "Sent.")
	}
	presenter.WaitText(`[data-testid="answered"]`, "2 answered")
	presenter.Do(chromedp.Click(chromedp.CSS(`[data-testid="reveal"]`)))
	presenter.Do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="tally"]`)))
	for _, p := range phones {
		p.Do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="mine-right"], [data-testid="mine-wrong"]`)))
		p.WaitText(`[data-testid="room-question"]`, "41")
	}
}

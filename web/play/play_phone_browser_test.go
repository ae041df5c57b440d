package play

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/windowlab/playground/internal/browsertest"
	"github.com/windowlab/playground/lane"
	"github.com/windowlab/playground/play"
)

// phonePlay is where /play's parts sit on a phone.
type phonePlay struct {
	Overflow      bool    // the page scrolls sideways
	Lanes         int     // lanes drawn
	Width         float64 // the viewport's width
	LaneWidest    float64 // the widest lane drawing
	BarTop        float64 // the bottom bar's top edge
	BarBottom     float64
	Height        float64 // the viewport's height
	Newest        int     // the newest mark's request index in lane 0
	NewTop        float64 // its box in the viewport
	NewBottom     float64
	NewWidth      float64 // and its width
	Units         float64 // the lanes' narrowest drawing's width in viewBox units
	ScrollY       float64
	BarFireInView bool
}

const phonePlayJS = `(() => {
	const d = document.documentElement, bar = document.querySelector('[data-testid="play-bar"]').getBoundingClientRect();
	const marks = [...document.querySelectorAll('#lane-0 [data-index]')];
	const newest = marks.sort((a, b) => b.dataset.index - a.dataset.index)[0];
	const r = newest ? newest.getBoundingClientRect() : {top: -1, bottom: -1, width: 0};
	const fire = document.querySelector('[data-testid="bar-fire"]').getBoundingClientRect();
	return {Overflow: d.scrollWidth > d.clientWidth, Lanes: document.querySelectorAll('[data-testid="lane"]').length,
		Width: d.clientWidth, LaneWidest: Math.max(...[...document.querySelectorAll('.lane-svg')].map(s => s.getBoundingClientRect().right)),
		BarTop: bar.top, BarBottom: bar.bottom, Height: innerHeight,
		Newest: newest ? +newest.dataset.index : -1, NewTop: r.top, NewBottom: r.bottom, NewWidth: r.width, ScrollY: scrollY,
		Units: Math.min(...[...document.querySelectorAll('#play-lane-list svg.lane-svg')].map(s => s.viewBox.baseVal.width)),
		BarFireInView: fire.top >= 0 && fire.bottom <= innerHeight};
})()`

// TestBrowserPlayOnAPhone: at 360×740 (mobile emulation) /play opens with
// all seven lanes filling the width (no sideways scrolling, no lane wider
// than the screen), a bar fixed to the bottom of the screen holds fire,
// step and play, and a request fired from it shows its mark in the
// viewport with no scrolling. The page's stream asks for lanes drawn for a
// phone (lane.PhoneWidth units across a 320 px card, not 720): its marks
// at a size a finger can pick and an eye can read.
func TestBrowserPlayOnAPhone(t *testing.T) {
	_, url, _ := newTestServer(t, Playground(play.NewStore(nil)))
	tab := browsertest.NewTab(t)
	tab.Do(chromedp.EmulateViewport(360, 740, chromedp.EmulateMobile, chromedp.EmulateTouch), chromedp.Navigate(url+"/play"))
	tab.WaitText(`[data-testid="live-status"]`, "Live: connected")
	tab.Do(chromedp.WaitVisible(chromedp.CSS(`#lane-0`)))
	// The stream's first frame redraws the lanes the page came with.
	before, _ := browsertest.Until(tab, phonePlayJS, func(p phonePlay) bool { return p.Units == lane.PhoneWidth })
	if before.Units != lane.PhoneWidth {
		t.Errorf("the lanes are drawn %.0f units wide on a phone, want %d", before.Units, lane.PhoneWidth)
	}
	if want := len(play.DefaultScenario().Policies); before.Lanes != want || want != 7 {
		t.Errorf("/play opens with %d lanes, want all seven", before.Lanes)
	}
	if before.Overflow || before.LaneWidest > before.Width+0.5 {
		t.Errorf("the page scrolls sideways (%v) or a lane ends at %.0f px of %.0f", before.Overflow, before.LaneWidest, before.Width)
	}
	if before.BarBottom < before.Height-0.5 || before.BarTop < before.Height-100 || !before.BarFireInView {
		t.Errorf("the bar spans %.0f–%.0f px of a %.0f px screen, want it at the bottom", before.BarTop, before.BarBottom, before.Height)
	}
	for i := 1; i <= 3; i++ {
		tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="bar-fire"]`)))
		// The fired request's mark arrives by the stream: wait on the page.
		got, _ := browsertest.Until(tab, phonePlayJS, func(p phonePlay) bool { return p.Newest >= i-1 })
		if got.Newest != i-1 {
			t.Fatalf("fire %d: lane 0's newest mark is request %d", i, got.Newest)
		}
		if got.ScrollY != before.ScrollY || got.NewTop < 0 || got.NewBottom > got.BarTop {
			t.Errorf("fire %d: the new mark spans %.0f–%.0f px (bar at %.0f, scrolled %.0f), want it in view above the bar with no scrolling", i, got.NewTop, got.NewBottom, got.BarTop, got.ScrollY)
		}
		// A mark's ink is 8 units across; 720 units in a 320 px card made
		// it 4.4 px.
		if got.NewWidth < 7 {
			t.Errorf("fire %d: the new mark is %.1f px across, want at least 7", i, got.NewWidth)
		}
		tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="bar-step"]`)))
	}
	if got := browsertest.Run(tab, chromedp.Evaluate[phonePlay](phonePlayJS)); got.Overflow {
		t.Error("after firing, the page scrolls sideways")
	}
	if browsertest.FiguresWanted() {
		// The last step's frame comes by the stream: wait on the page.
		tab.WaitFor(`document.querySelector('[data-testid="clock"]').dataset.seconds === "3"`, "the third step")
		browsertest.FinishAnimations(tab)
		browsertest.SaveFigure(t, "play-phone-360.png", browsertest.Run(tab, chromedp.CaptureScreenshot()))
	}
	// The servers form: a line or two a lane, its sync, route and offsets
	// only where they apply (here, no lane runs on several servers).
	tab.Do(chromedp.Click(chromedp.CSS(`#play-servers > summary`)), chromedp.WaitVisible(chromedp.CSS(`#play-servers [data-testid="lane-nodes"]`)))
	perLane := browsertest.Run(tab, chromedp.Evaluate[float64](`(() => {
		const ls = [...document.querySelectorAll('[data-testid=lane-servers]')];
		return ls.reduce((h, l) => h + l.getBoundingClientRect().height, 0) / ls.length;
	})()`))
	shown := browsertest.Run(tab, chromedp.Evaluate[int](`[...document.querySelectorAll('[data-testid=lane-sync], [data-testid=lane-route], [data-testid=lane-skew]')].filter(e => e.offsetParent !== null).length`))
	if perLane > 90 || shown != 0 {
		t.Errorf("the servers form takes %.0f px a lane and shows %d sync, route or offset fields of one-server lanes, want at most 90 px and none", perLane, shown)
	}
	tab.NoProblems()
}

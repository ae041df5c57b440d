package lessons

import (
	"bytes"
	"image"
	"image/draw"
	"image/png"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/windowlab/playground/internal/browsertest"
)

// revealOpen reports whether the example a prediction guards is open.
func revealOpen(tab *browsertest.Tab, id string) bool {
	tab.T().Helper()
	return browsertest.Run(tab, chromedp.Evaluate[bool](`document.querySelector('details[data-predict-reveal="`+id+`"]').open`))
}

// predictionsReady waits for the lesson's prediction script, which shows
// the reset control once it has taken over the forms.
func predictionsReady(tab *browsertest.Tab) {
	tab.T().Helper()
	tab.Do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="predict-reset"]`)))
}

// TestBrowserPredictThenSee walks the sliding-counter lesson as a learner
// would: predicts wrongly, sees the example open with the policy's working,
// predicts rightly, comes back to find both kept, and resets them.
func TestBrowserPredictThenSee(t *testing.T) {
	url := lessonsSite(t)
	tab := browsertest.NewTab(t)
	shots := browsertest.FiguresWanted()
	var before, after [][]byte
	tab.Do(chromedp.EmulateViewport(760, 900), chromedp.Navigate(url+"/lessons/sliding-counter"))
	predictionsReady(tab)
	if revealOpen(tab, "car-park-35s") {
		t.Fatal("the example is open before any prediction")
	}
	if browsertest.Run(tab, chromedp.Evaluate[bool](`document.querySelector('[data-predict="car-park-35s"] [data-testid="predict-feedback"]').textContent.trim() !== ""`)) {
		t.Fatal("the feedback region holds something before any prediction")
	}
	first := `[data-predict="car-park-35s"]`
	tab.Do(chromedp.Click(chromedp.CSS(first + ` [data-testid="predict-admitted"]`)))
	if shots {
		before = append(before, viewShot(t, tab, first))
	}
	// A first wrong try: a hint, the example still closed, the form open
	// for a second try.
	tab.Do(chromedp.Click(chromedp.CSS(first + ` [data-testid="predict-commit"]`)))
	tab.WaitText(first+` [data-testid="predict-verdict"]`, "Not quite: try again")
	tab.WaitText(first+` [data-testid="predict-clue"]`, "Hint: Work it again")
	if revealOpen(tab, "car-park-35s") {
		t.Error("a first wrong try opened the example")
	}
	if browsertest.Run(tab, chromedp.Evaluate[bool](`document.querySelector('`+first+` [data-testid="predict-commit"]').disabled`)) {
		t.Error("after a first wrong try the prediction cannot be made again")
	}
	tab.Do(chromedp.Click(chromedp.CSS(first + ` [data-testid="predict-commit"]`)))
	tab.WaitText(first+` [data-testid="predict-verdict"]`, "Not what the policies decide")
	tab.WaitText(first+` [data-testid="predict-compare"]`, "You predicted admitted; the policies decide refused")
	tab.WaitText(first+` [data-testid="trace"]`, "5 × 5/6 = 4.17 carried")
	if !revealOpen(tab, "car-park-35s") {
		t.Error("committing the prediction did not open the example")
	}
	// The example is the car park's lanes; their table is a disclosure of
	// its own, closed until the learner asks for it.
	if !browsertest.Run(tab, chromedp.Evaluate[bool](`document.querySelector('details[data-predict-reveal="car-park-35s"] [data-testid="live-lanes"] svg.lane-svg').checkVisibility()`)) {
		t.Error("the example's lanes are not visible after the reveal")
	}
	if !browsertest.Run(tab, chromedp.Evaluate[bool](`document.querySelector('`+first+` [data-testid="predict-commit"]').disabled`)) {
		t.Error("a committed prediction can still be changed")
	}
	if shots {
		after = append(after, viewShot(t, tab, first))
	}

	second := `[data-predict="floor-vector"]`
	tab.Do(chromedp.Click(chromedp.CSS(second+` [data-testid="predict-choice-sliding-counter/floor"]`)),
		chromedp.Click(chromedp.CSS(second+` [data-testid="predict-commit"]`)))
	tab.WaitText(second+` [data-testid="predict-verdict"]`, "Your prediction was right")
	if !revealOpen(tab, "floor-vector") {
		t.Error("a right prediction did not open its example")
	}
	if revealOpen(tab, "full-window-exact") {
		t.Error("a prediction opened an example it does not guard")
	}

	// Coming back: the predictions are kept in this browser, and the
	// feedback is asked of the server again.
	tab.Do(chromedp.Reload())
	predictionsReady(tab)
	tab.WaitText(first+` [data-testid="predict-verdict"]`, "Not what the policies decide")
	tab.WaitText(second+` [data-testid="predict-verdict"]`, "Your prediction was right")
	if !revealOpen(tab, "car-park-35s") || !revealOpen(tab, "floor-vector") {
		t.Error("after a reload the committed predictions' examples are closed")
	}
	if !browsertest.Run(tab, chromedp.Evaluate[bool](`document.querySelector('`+first+` [data-testid="predict-admitted"]').checked`)) {
		t.Error("after a reload the prediction's own choice is not shown")
	}

	tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="predict-reset"]`)))
	if revealOpen(tab, "car-park-35s") || revealOpen(tab, "floor-vector") {
		t.Error("reset left an example open")
	}
	if n := browsertest.Run(tab, chromedp.Evaluate[int](`Object.keys(localStorage).filter(k => k.startsWith('windowlab:predict:')).length`)); n != 0 {
		t.Errorf("reset left %d predictions in the browser's storage", n)
	}
	if browsertest.Run(tab, chromedp.Evaluate[bool](`document.querySelector('`+first+` [data-testid="predict-commit"]').disabled`)) {
		t.Error("after reset the prediction cannot be made again")
	}

	if shots {
		// The second lesson for the pictures: where they disagree.
		tab.Do(chromedp.Navigate(url + "/lessons/where-they-disagree"))
		predictionsReady(tab)
		front := `[data-predict="front-loaded"]`
		tab.Do(chromedp.Click(chromedp.CSS(front+` [data-testid="predict-choice-sliding-log"]`)),
			chromedp.Click(chromedp.CSS(front+` [data-testid="predict-choice-sliding-counter/exact"]`)))
		before = append(before, viewShot(t, tab, front))
		tab.Do(chromedp.Click(chromedp.CSS(front + ` [data-testid="predict-commit"]`)))
		tab.WaitText(front+` [data-testid="predict-verdict"]`, "Not quite: try again")
		tab.Do(chromedp.Click(chromedp.CSS(front + ` [data-testid="predict-commit"]`)))
		tab.WaitText(front+` [data-testid="predict-verdict"]`, "Not what the policies decide")
		after = append(after, viewShot(t, tab, front))
		saveSideBySide(t, "lesson-predict-before.png", before)
		saveSideBySide(t, "lesson-predict-after.png", after)
	}
	tab.NoProblems()
}

// TestBrowserPredictByKeyboardOnAPhone makes the predictions of "Where they
// disagree" with the keyboard alone on a 360 px screen: an unreadable one
// first, which opens nothing, then a readable one.
func TestBrowserPredictByKeyboardOnAPhone(t *testing.T) {
	url := lessonsSite(t)
	tab := browsertest.NewTab(t)
	tab.Do(chromedp.EmulateViewport(360, 740), chromedp.Navigate(url+"/lessons/where-they-disagree"))
	predictionsReady(tab)

	front := `[data-predict="front-loaded"]`
	// Tick the sliding log and the floor counter with the space bar, then
	// Tab past "none of them" to the button and press Enter.
	tab.Do(chromedp.Focus(chromedp.CSS(`#predict-front-loaded-choice-0`)), chromedp.KeyEvent(" "),
		chromedp.Focus(chromedp.CSS(`#predict-front-loaded-choice-2`)), chromedp.KeyEvent(" "),
		chromedp.KeyEvent("\t"), chromedp.KeyEvent("\t"))
	if got := browsertest.Run(tab, chromedp.Evaluate[string](`document.activeElement.dataset.testid`)); got != "predict-commit" {
		t.Fatalf("two Tabs after the last policy reach %q, want the commit button", got)
	}
	tab.Do(chromedp.KeyEvent("\r"))
	tab.WaitText(front+` [data-testid="predict-verdict"]`, "Your prediction was right")
	if got := browsertest.Run(tab, chromedp.Evaluate[string](`document.activeElement.id`)); got != "predict-front-loaded-feedback" {
		t.Errorf("after committing, focus is on %q, want the feedback", got)
	}
	if !revealOpen(tab, "front-loaded") {
		t.Error("the example did not open")
	}

	attack := `[data-predict="attack"]`
	tab.Do(chromedp.Focus(chromedp.CSS(attack+` [data-testid="predict-answer"]`)), chromedp.KeyEvent("lots\r"))
	tab.WaitText(attack+` [data-testid="predict-verdict"]`, "Can't read that prediction")
	tab.WaitText(attack+` [data-testid="predict-feedback"]`, "Give a whole number")
	if revealOpen(tab, "attack") {
		t.Error("an unreadable prediction opened the example")
	}
	tab.Do(chromedp.Focus(chromedp.CSS(attack + ` [data-testid="predict-answer"]`)))
	browsertest.Run(tab, chromedp.Evaluate[bool](`document.activeElement.select(), true`))
	tab.Do(chromedp.KeyEvent("10\r"))
	tab.WaitText(attack+` [data-testid="predict-verdict"]`, "Not quite: try again")
	if revealOpen(tab, "attack") {
		t.Error("a first wrong try opened the example")
	}
	// The second try, by keyboard again, shows the answer.
	tab.Do(chromedp.Focus(chromedp.CSS(attack + ` [data-testid="predict-answer"]`)))
	browsertest.Run(tab, chromedp.Evaluate[bool](`document.activeElement.select(), true`))
	tab.Do(chromedp.KeyEvent("10\r"))
	tab.WaitText(attack+` [data-testid="predict-verdict"]`, "Not what the policies decide")
	tab.WaitText(attack+` [data-testid="predict-compare"]`, "You predicted 10")
	if !revealOpen(tab, "attack") {
		t.Error("the example did not open after a wrong prediction")
	}
	if w := browsertest.Run(tab, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 360 {
		t.Errorf("the lesson with its feedback open is %d px wide on a 360 px screen", w)
	}
	// The unreadable prediction's 400 is the one error the console may
	// show: Chromium logs every 4xx answer to a fetch.
	for _, p := range tab.Problems() {
		if !strings.Contains(p, "status of 400") {
			t.Errorf("browser console: %s", p)
		}
	}
}

// viewShot scrolls the prediction to the top of the screen and takes what
// the screen shows.
func viewShot(t *testing.T, tab *browsertest.Tab, selector string) []byte {
	t.Helper()
	browsertest.Run(tab, chromedp.Evaluate[bool](`document.querySelector('`+selector+`').scrollIntoView({block: 'start'}), window.scrollBy(0, -16), true`))
	return browsertest.Run(tab, chromedp.CaptureScreenshot())
}

// saveSideBySide puts screenshots next to each other in one PNG.
func saveSideBySide(t *testing.T, name string, shots [][]byte) {
	t.Helper()
	var imgs []image.Image
	w, h := 0, 0
	for _, s := range shots {
		img, err := png.Decode(bytes.NewReader(s))
		if err != nil {
			t.Fatal(err)
		}
		imgs = append(imgs, img)
		w += img.Bounds().Dx()
		h = max(h, img.Bounds().Dy())
	}
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	x := 0
	for _, img := range imgs {
		draw.Draw(out, image.Rect(x, 0, x+img.Bounds().Dx(), img.Bounds().Dy()), img, img.Bounds().Min, draw.Src)
		x += img.Bounds().Dx()
	}
	var b bytes.Buffer
	if err := png.Encode(&b, out); err != nil {
		t.Fatal(err)
	}
	browsertest.SaveFigure(t, name, b.Bytes())
}

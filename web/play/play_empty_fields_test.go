package play

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/chromedp"

	"github.com/windowlab/playground/internal/browsertest"
	"github.com/windowlab/playground/internal/webtest"
	"github.com/windowlab/playground/play"
)

// TestPlayEmptyFieldIsNotZero: an emptied number field used to reach the
// server as 0, so an empty "Jump to" moved the clock to 0 s and an empty
// Cost was refused for "0", which nobody typed. The page now sends a number
// field's text; empty asks for a value and changes nothing.
func TestPlayEmptyFieldIsNotZero(t *testing.T) {
	store := play.NewStore(nil)
	_, url, _ := newTestServer(t, Playground(store))
	sess := webtest.CarParkSession(t, store, 45)
	base := url + "/play/" + sess.ID()
	before := sess.Scenario()
	for _, c := range []struct{ action, body, field, shown string }{
		{"jump", `{"jumpSeconds": ""}`, "at", "Jump to (s): enter a time"},
		{"jump", `{"jumpSeconds": "  "}`, "at", "Jump to (s): enter a time"},
		{"fire", `{"cost": ""}`, "cost", "Cost: enter a whole number from 1 to"},
		{"burst", `{"cost": "1", "burstCount": ""}`, "count", "Burst of: enter a whole number from 1 to"},
		{"pattern", `{"cost": "1", "patternCount": "5", "pattern": "steady", "patternSeconds": ""}`, "span", "Over (s): enter a time"},
		{"settings", `{"limit": "", "windowSeconds": "30", "useFixedWindow": true}`, "limit", "Limit: enter a whole number from 1 to 10000"},
		{"settings", `{"limit": "5", "windowSeconds": "", "useFixedWindow": true}`, "windowMs", "Window (s): enter a time"},
		{"fire", `{"cost": "abc"}`, "cost", `Cost: “abc” is not a number`},
		{"fire", `{"cost": "0"}`, "cost", "Cost: 0 is not a whole number from 1 to"},
	} {
		res := post(t, base+"/"+c.action, c.body, sess)
		if res.status != http.StatusBadRequest || !strings.Contains(res.header.Get("X-Problem"), c.field+":") {
			t.Errorf("%s %s: %d %q, want 400 naming %s", c.action, c.body, res.status, res.header.Get("X-Problem"), c.field)
		}
		if !strings.Contains(res.body, c.shown) {
			t.Errorf("%s %s: the page is not told %q: %.300s", c.action, c.body, c.shown, res.body)
		}
	}
	if now := sess.View().Clock.Now; now != 45_000 {
		t.Errorf("after the refused actions the clock is at %d ms, want 45000", now)
	}
	if !reflect.DeepEqual(sess.Scenario(), before) {
		t.Error("refused actions changed the scenario")
	}
	// The text of a field is read as the number it says.
	if res := post(t, base+"/jump", `{"jumpSeconds": "12.5"}`, sess); res.status != http.StatusOK || sess.View().Clock.Now != 12_500 {
		t.Errorf("jump to \"12.5\": %d, clock at %d ms, want 200 and 12500", res.status, sess.View().Clock.Now)
	}

	// The page declares its number fields' signals as text, so that
	// Datastar sends an emptied field as "" and not as 0.
	res := get(t, url+"/play")
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(res.body))
	if err != nil {
		t.Fatal(err)
	}
	var signals map[string]any
	if err := json.Unmarshal([]byte(doc.Find("#play").AttrOr("data-signals", "")), &signals); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"limit", "windowSeconds", "buckets", "burst", "cost", "burstCount", "patternCount", "patternSeconds", "jumpSeconds"} {
		if _, ok := signals[name].(string); !ok {
			t.Errorf("signal %s = %#v, want the field's text", name, signals[name])
		}
	}
}

// TestBrowserPlayEmptyJump: emptying "Jump to" and pressing Jump says what
// is missing and leaves the clock where it was.
func TestBrowserPlayEmptyJump(t *testing.T) {
	_, url, _ := newTestServer(t, Playground(play.NewStore(nil)))
	tab := openPlay(t, url+"/play")
	browsertest.Run(tab, chromedp.Evaluate[bool](`(document.querySelector('[data-testid=jump-input]').value = '', true)`))
	tab.Do(
		chromedp.SendKeys(chromedp.CSS(`[data-testid="jump-input"]`), "45"),
		chromedp.Click(chromedp.CSS(`[data-testid="jump"]`)),
	)
	tab.WaitText(`[data-testid="clock"]`, "45 s")
	browsertest.Run(tab, chromedp.Evaluate[bool](`(() => { const f = document.querySelector('[data-testid=jump-input]');
		f.value = ''; f.dispatchEvent(new Event('input', {bubbles: true})); return true; })()`))
	tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="jump"]`)))
	tab.WaitText(`[data-testid="err-clock"]`, "Jump to (s): enter a time")
	if got := tab.Text(`[data-testid="clock"]`); got != "45 s" {
		t.Errorf("after an empty jump the clock shows %q, want 45 s", got)
	}
}

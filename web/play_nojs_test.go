package web

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/windowlab/playground/internal/browsertest"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/web/templates"
)

// TestPagesSayWhatNeedsJavaScript: without JavaScript the playground and
// the room's phone page looked live while no button did anything. Each now
// says, first, what needs JavaScript and what works without it; and the
// playground's Speed shows the clock's speed, not the list's first entry.
func TestPagesSayWhatNeedsJavaScript(t *testing.T) {
	store := play.NewStore(nil)
	_, url, _ := newTestServer(t, Playground(store))
	sess := carParkSession(t, store, 45)
	fx := newRoomFixture(t, nil)
	roomID, _, _ := fx.startRoom(t, fx.device(t))
	phone := fx.device(t).get("/room/" + roomID)
	if phone.status != http.StatusOK {
		t.Fatalf("phone page: status %d", phone.status)
	}
	for _, c := range []struct {
		name, body, region string
		says               []string
	}{
		{"playground", get(t, url+"/play").body, "#play", []string{"needs JavaScript", "load", "download", "lessons"}},
		{"phone", phone.body, "#room", []string{"needs JavaScript", "lessons"}},
	} {
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		notice := doc.Find(c.region + ` > noscript`)
		if notice.Length() != 1 {
			t.Errorf("%s: %d <noscript> notices at the top of %s, want 1", c.name, notice.Length(), c.region)
			continue
		}
		if notice.PrevAll().Not(`[data-on-load], [role="status"], [role="alert"]`).Length() != 0 {
			t.Errorf("%s: the notice comes after the page's content", c.name)
		}
		for _, w := range c.says {
			if !strings.Contains(notice.Text(), w) {
				t.Errorf("%s: the notice %q does not mention %q", c.name, notice.Text(), w)
			}
		}
	}

	// Without JavaScript, Speed shows the speed the session plays at.
	for _, sp := range []play.Speed{play.RealSpeed, play.FastSpeed} {
		if err := sess.SetSpeed(sp); err != nil {
			t.Fatal(err)
		}
		v := sess.View()
		var buf bytes.Buffer
		if err := templates.PlayPageView(templates.PlayPage{View: v, Base: "/play/" + v.ID}).Render(context.Background(), &buf); err != nil {
			t.Fatal(err)
		}
		doc, err := goquery.NewDocumentFromReader(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if got := doc.Find(`[data-testid="speed"] option[selected]`); got.Length() != 1 || got.AttrOr("value", "") != sp.String() {
			t.Errorf("at %s, Speed selects %d options (%q), want %s", sp, got.Length(), got.AttrOr("value", ""), sp)
		}
	}
}

// TestBrowserPlayWithoutJavaScript: with scripts off, the notice is shown
// on the first screen of a phone.
func TestBrowserPlayWithoutJavaScript(t *testing.T) {
	_, url, _ := newTestServer(t, Playground(play.NewStore(nil)))
	tab := browsertest.NewTab(t)
	if _, err := chromedp.Call(tab.Context(), emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	tab.Do(
		chromedp.EmulateViewport(360, 740),
		chromedp.Navigate(url+"/play"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="noscript"]`)),
	)
	bottom := browsertest.Run(tab, chromedp.Evaluate[float64](`document.querySelector('[data-testid=noscript]').getBoundingClientRect().bottom`))
	if bottom > 740 {
		t.Errorf("the notice ends %.0f px down a 740 px phone screen", bottom)
	}
}

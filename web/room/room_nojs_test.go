package room

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/windowlab/playground/internal/webtest"
	"github.com/windowlab/playground/web/play/pages"

	"github.com/windowlab/playground/play"
	webplay "github.com/windowlab/playground/web/play"
)

// TestPagesSayWhatNeedsJavaScript: without JavaScript the playground and
// the room's phone page looked live while no button did anything. Each now
// says, first, what needs JavaScript and what works without it; and the
// playground's Speed shows the clock's speed, not the list's first entry.
func TestPagesSayWhatNeedsJavaScript(t *testing.T) {
	store := play.NewStore(nil)
	_, url, _ := newTestServer(t, webplay.Playground(store))
	sess := webtest.CarParkSession(t, store, 45)
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
		if err := pages.PlayPageView(pages.PlayPage{View: v, Base: "/play/" + v.ID}).Render(context.Background(), &buf); err != nil {
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

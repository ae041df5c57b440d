package web

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// localLinks is every same-site link of a page, fragments-only left out.
func localLinks(t *testing.T, body string) (*goquery.Document, []string) {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var links []string
	doc.Find("a[href]").Each(func(_ int, a *goquery.Selection) {
		if h := a.AttrOr("href", ""); strings.HasPrefix(h, "/") && !strings.HasPrefix(h, "//") {
			links = append(links, h)
		}
	})
	return doc, links
}

// A prediction committed without JavaScript answers at a POST-only
// address; the page's links (its footer's "Presentation mode" among them)
// must still lead somewhere that answers GET.
func TestPredictionResultPageLinksAllWork(t *testing.T) {
	base := lessonsSite(t)
	res, err := http.PostForm(base+"/lessons/fixed-window/predictions/fw-car-park-count", url.Values{"answer": {"7"}})
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		t.Fatalf("POST prediction: status %d", res.StatusCode)
	}
	doc, links := localLinks(t, string(data))
	if got := doc.Find(`[data-testid="presentation-toggle"]`).AttrOr("href", ""); got != "/lessons/fixed-window?present=1" {
		t.Errorf("presentation toggle links to %q, want the lesson in presentation mode", got)
	}
	if len(links) < 3 {
		t.Fatalf("only %d links on the page: %v", len(links), links)
	}
	for _, l := range links {
		if st := get(t, base+l).status; st != http.StatusOK {
			t.Errorf("link %s: status %d, want 200", l, st)
		}
	}
}

// The projector is presentation only, so leaving presentation mode leaves
// the projector: its link must not lead back to itself.
func TestProjectorLeavesPresentationMode(t *testing.T) {
	fx := newRoomFixture(t, nil)
	presenter := fx.device(t)
	id, _, _ := fx.startRoom(t, presenter)
	page := presenter.get("/room/" + id + "/present")
	doc, links := localLinks(t, page.body)
	toggle := doc.Find(`[data-testid="presentation-toggle"]`)
	leave := toggle.AttrOr("href", "")
	if !strings.Contains(toggle.Text(), "Leave presentation mode") || leave == "" || strings.HasPrefix(leave, "/room/"+id+"/present") {
		t.Fatalf("projector's toggle %q links to %q; want a link that leaves the projector", strings.TrimSpace(toggle.Text()), leave)
	}
	left := presenter.get(leave)
	if left.status != http.StatusOK {
		t.Fatalf("GET %s: status %d, want 200", leave, left.status)
	}
	ldoc, _ := localLinks(t, left.body)
	if ldoc.Find("body.presentation").Length() != 0 || strings.Contains(ldoc.Find(`[data-testid="presentation-toggle"]`).Text(), "Leave") {
		t.Errorf("after following “Leave presentation mode” to %s, the page is still in presentation mode", leave)
	}
	for _, l := range links {
		if strings.HasPrefix(l, "/lessons") || strings.HasPrefix(l, "/exercises") {
			continue // the room fixture serves no lessons; the nav's links are crawled above
		}
		if st := presenter.get(l).status; st != http.StatusOK {
			t.Errorf("projector link %s: status %d, want 200", l, st)
		}
	}
}

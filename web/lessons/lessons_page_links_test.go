package lessons

import (
	"io"
	"net/http"
	"net/url"
	"testing"

	"github.com/windowlab/playground/internal/webtest"
)

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
	doc, links := webtest.LocalLinks(t, string(data))
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

package play

import (
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/windowlab/playground/lessons"
	"github.com/windowlab/playground/play"
)

// The playground offers the presets (a room's menu lists the same), each a
// link that opens it; the several-servers one opens with its lanes on three servers.
func TestPlayOffersThePresets(t *testing.T) {
	_, url, _ := newTestServer(t, Playground(play.NewStore(nil)))
	res := get(t, url+"/play")
	if res.status != http.StatusOK {
		t.Fatalf("GET /play: status %d", res.status)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(res.body))
	if err != nil {
		t.Fatal(err)
	}
	links := doc.Find(`[data-testid="play-preset"]`)
	if links.Length() != len(lessons.Presets) {
		t.Fatalf("%d presets offered, want the %d of lessons.Presets", links.Length(), len(lessons.Presets))
	}
	var several string
	links.Each(func(i int, a *goquery.Selection) {
		if got := a.Text(); got != lessons.Presets[i].Label {
			t.Errorf("preset %d is %q, want %q", i+1, got, lessons.Presets[i].Label)
		}
		if a.AttrOr("data-preset", "") == "several-servers" {
			several = a.AttrOr("href", "")
		}
	})
	if several == "" {
		t.Fatal("the several-servers preset is not offered")
	}
	page := get(t, url+several)
	if page.status != http.StatusOK {
		t.Fatalf("the several-servers preset: status %d", page.status)
	}
	opened, err := goquery.NewDocumentFromReader(strings.NewReader(page.body))
	if err != nil {
		t.Fatal(err)
	}
	if n := opened.Find(`[data-testid="lane"]`).Eq(1).Find(`[data-testid="lane-node"]`).Length(); n != 3 {
		t.Errorf("the preset's second lane draws %d nodes, want 3", n)
	}
}

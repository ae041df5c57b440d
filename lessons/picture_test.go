package lessons

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// TestEveryLessonShowsAPictureBeforeItsFirstPrediction: in every lesson
// the first prediction's question comes after a picture of its traffic (so
// the learner sees before being asked), and at least one prediction of
// each lesson is answered on its picture (marks to click or a marker to
// move), with the typed field beside it.
func TestEveryLessonShowsAPictureBeforeItsFirstPrediction(t *testing.T) {
	lib, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lib.Lessons {
		r, err := lib.Render(l, nil)
		if err != nil {
			t.Fatalf("%s: %v", l.File, err)
		}
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(r.HTML)))
		if err != nil {
			t.Fatal(err)
		}
		// Document order: the first picture (a prediction's, a lane, an
		// SVG) before the first prediction's form.
		var order []string
		doc.Find(`svg, [data-testid="predict-form"]`).Each(func(_ int, s *goquery.Selection) {
			if s.Is("form") {
				order = append(order, "form")
			} else {
				order = append(order, "picture")
			}
		})
		if len(order) == 0 || order[0] != "picture" {
			t.Errorf("%s: the first prediction comes before any picture (%v)", l.Slug, order[:min(len(order), 3)])
		}
		answerable := 0
		doc.Find(`[data-testid="predict"]`).Each(func(_ int, s *goquery.Selection) {
			pic := s.Find(`[data-testid="ask-picture"]`)
			if mode := pic.AttrOr("data-ask-picture", ""); mode != "" {
				answerable++
				if s.Find(`[data-testid="predict-form"] input`).Length() == 0 {
					t.Errorf("%s: prediction %s answers on its picture with no field to type or tick", l.Slug, s.AttrOr("data-predict", ""))
				}
			}
		})
		if answerable == 0 {
			t.Errorf("%s: no prediction is answered on its picture", l.Slug)
		}
	}
}

package lessons

import (
	"encoding/json"
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

// TestEverySectionOpensWithItsPicture: in every lesson, the first thing
// after each section's heading is its picture, lanes drawn from policies/
// with a text alternative; and no section's picture draws traffic that a
// prediction of the same lesson asks about, so that a picture never shows
// a decision before the learner predicts it.
func TestEverySectionOpensWithItsPicture(t *testing.T) {
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
		sections := doc.Find("body > h2")
		if sections.Length() == 0 {
			t.Errorf("%s: no sections", l.Slug)
		}
		sections.Each(func(_ int, h *goquery.Selection) {
			fig := h.Next()
			if !fig.Is(`figure[data-testid="section-picture"]`) {
				t.Errorf("%s: section %q opens with <%s class=%q>, not its picture", l.Slug, h.Text(), goquery.NodeName(fig), fig.AttrOr("class", ""))
				return
			}
			if fig.Find(`svg.lane-svg[role="img"] title`).Length() == 0 || fig.Find(`svg.lane-svg[role="img"] desc`).Text() == "" {
				t.Errorf("%s: section %q: its picture has no lane with a text alternative", l.Slug, h.Text())
			}
		})
		asked := map[string]bool{}
		for _, p := range r.Predictions {
			var name string
			if json.Unmarshal(p.Exercise.Scenario, &name) == nil {
				asked[name] = true
			}
		}
		for _, p := range r.Pictures {
			if asked[p.Scenario] {
				t.Errorf("%s: the picture %q draws %q decided, which a prediction of the lesson asks about", l.Slug, p.Caption, p.Scenario)
			}
		}
	}
}

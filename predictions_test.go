package playground_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/windowlab/playground/lessons"
)

// TestEveryLessonAsksBeforeItShows: each lesson asks at least one
// prediction, and no prediction's answer is stated above it. Within the
// section (from the last heading) before each prediction, no computed
// number or outcome may be the prediction's own answer; and the block
// itself holds the question only.
func TestEveryLessonAsksBeforeItShows(t *testing.T) {
	lib, _ := load(t)
	for _, l := range lib.Lessons {
		r, err := lib.Render(l, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Predictions) == 0 {
			t.Errorf("%s asks for no prediction before its examples", l.Slug)
		}
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(r.HTML)))
		if err != nil {
			t.Fatal(err)
		}
		var stated []string // claims since the last heading
		doc.Find("h2, h3, [data-testid=claim], [data-testid=predict]").Each(func(_ int, s *goquery.Selection) {
			switch {
			case s.Is("h2, h3"):
				stated = nil
			case s.Is("[data-testid=claim]"):
				stated = append(stated, strings.TrimSpace(s.Text()))
			default:
				id := s.AttrOr("data-predict", "")
				i := slices.IndexFunc(r.Predictions, func(p *lessons.Prediction) bool { return p.ID == id })
				if i < 0 {
					t.Errorf("%s: a block for prediction %q, which Render did not report", l.Slug, id)
					return
				}
				sol, err := r.Predictions[i].Exercise.Instance(0).Solve()
				if err != nil {
					t.Fatal(err)
				}
				if slices.Contains(stated, sol.Text()) {
					t.Errorf("%s: the section above prediction %s already states its answer, %q", l.Slug, id, sol.Text())
				}
				s.Find("label").Remove() // an outcome's choices are "admitted" and "refused"
				if strings.Contains(s.Text(), sol.Text()) {
					t.Errorf("%s: prediction %s's block shows its answer %q before it is committed", l.Slug, id, sol.Text())
				}
			}
		})
	}
}

package lessons

import (
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/windowlab/playground/scenario"
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
// prediction of the same lesson asks about, named or written out, in full
// or its beginning, so that a picture never shows a decision before the
// learner predicts it. (That a picture of other traffic does not print a
// prediction's answer is the root package's TestEveryLessonAsksBeforeItShows.)
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
			if fig.Is(`.section-open`) {
				fig = fig.Children().First()
			}
			if !fig.Is(`figure[data-testid="section-picture"]`) {
				t.Errorf("%s: section %q opens with <%s class=%q>, not its picture", l.Slug, h.Text(), goquery.NodeName(fig), fig.AttrOr("class", ""))
				return
			}
			if fig.Find(`svg.lane-svg[role="img"] title`).Length() == 0 || fig.Find(`svg.lane-svg[role="img"] desc`).Text() == "" {
				t.Errorf("%s: section %q: its picture has no lane with a text alternative", l.Slug, h.Text())
			}
		})
		for _, p := range r.Pictures {
			for _, q := range r.Predictions {
				if sameTraffic(p.Traffic, q.Exercise.Instance(0).Scenario) {
					t.Errorf("%s: the picture %q draws the traffic of prediction %s (or the start of it) decided", l.Slug, p.Caption, q.ID)
				}
			}
		}
	}
}

// sameTraffic reports whether two scenarios share their limit and window
// and one's requests, one by one in time order, begin the other's: a
// picture of the first hundred of a burst shows how the burst's first
// hundred are decided, whatever either scenario is named.
func sameTraffic(a, b scenario.Scenario) bool {
	if a.Limit != b.Limit || a.WindowMs != b.WindowMs {
		return false
	}
	ra, rb := expand(a.Requests), expand(b.Requests)
	if len(ra) > len(rb) {
		ra, rb = rb, ra
	}
	return len(ra) > 0 && slices.Equal(ra, rb[:len(ra)])
}

// expand lists a scenario's requests one by one, as (instant, cost): the
// key's name does not change a decision of a one-client scenario.
func expand(rs []scenario.Request) [][2]int64 {
	var out [][2]int64
	for _, r := range rs {
		for range max(r.Count, 1) {
			out = append(out, [2]int64{r.At, max(r.Cost, 1)})
		}
	}
	return out
}

func TestSameTrafficCatchesTheStartOfAPredictionsTraffic(t *testing.T) {
	lib, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	sc := func(name string) scenario.Scenario {
		s, err := lib.Scenario(name)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"boundary-two-steps", "boundary-burst", true}, // the revert of bf2383e
		{"boundary-burst", "boundary-burst", true},
		{"boundary-burst", "boundary-two-steps", true},
		{"quiet-then-burst", "car-park", false},
		{"try-it", "try-it-front", false},
	} {
		if got := sameTraffic(sc(tc.a), sc(tc.b)); got != tc.want {
			t.Errorf("sameTraffic(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

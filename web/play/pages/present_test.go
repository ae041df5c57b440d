package pages

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"

	"github.com/windowlab/playground/lane"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web/templates"
)

// render renders c and parses the result for goquery.
func render(t *testing.T, c templ.Component) *goquery.Document {
	t.Helper()
	r, w := io.Pipe()
	go func() {
		_ = w.CloseWithError(c.Render(context.Background(), w))
	}()
	doc, err := goquery.NewDocumentFromReader(r)
	if err != nil {
		t.Fatalf("rendering: %v", err)
	}
	return doc
}

// carParkView is the playground's four lanes after the car park, with
// its last request selected.
func carParkView(t *testing.T) play.View {
	t.Helper()
	sess, err := play.NewStore(nil).New(scenario.Scenario{})
	if err != nil {
		t.Fatal(err)
	}
	sc := play.DefaultScenario()
	for _, a := range []struct{ at, cars int64 }{{0, 1}, {5000, 2}, {15000, 2}, {25000, 1}, {35000, 1}, {40000, 3}} {
		sc.Requests = append(sc.Requests, scenario.Request{At: a.at, Cost: 1, Count: a.cars})
	}
	if err := sess.Load(sc); err != nil {
		t.Fatal(err)
	}
	if err := sess.Select(9); err != nil {
		t.Fatal(err)
	}
	return sess.View()
}

// TestPlayPagePresentation: the presentation view links its stylesheet,
// opens its stream with ?present=1 and draws its lanes at the
// presentation's size; the normal view does none of these.
func TestPlayPagePresentation(t *testing.T) {
	v := carParkView(t)
	o := templates.PresentLaneOptions(len(v.Lanes), lane.Options{})
	presented := fmt.Sprintf("0 0 %d %d", o.Width, o.Height)
	normal := fmt.Sprintf("0 0 %d %d", lane.DefaultWidth, lane.DefaultHeight)
	for _, c := range []struct {
		present          bool
		stream, viewBox  string
		css, explanation int
	}{
		// The page's stream asks for a phone's lanes on a phone's screen.
		{false, `@get('/play/x/stream' + (matchMedia('(max-width: 40rem)').matches ? '?narrow=1' : ''), {retryMaxCount: 0})`, normal, 0, 0},
		{true, templates.StreamOnLoad("/play/x/stream?present=1"), presented, 1, 1},
	} {
		doc := render(t, PlayPageView(PlayPage{Page: templates.Page{Path: "/play", Presentation: c.present}, View: v, Base: "/play/x"}))
		if got := doc.Find("#play-stream").AttrOr("data-on-load", ""); got != c.stream {
			t.Errorf("present %v: the stream opens with %q, want %q", c.present, got, c.stream)
		}
		doc.Find(".lane-svg").Each(func(i int, s *goquery.Selection) {
			if got := s.AttrOr("viewBox", ""); got != c.viewBox {
				t.Errorf("present %v: lane %d viewBox %q, want %q", c.present, i, got, c.viewBox)
			}
		})
		if got := doc.Find(`link[href="/static/present.css"]`).Length(); got != c.css {
			t.Errorf("present %v: present.css linked %d times, want %d", c.present, got, c.css)
		}
		if got := doc.Find("#play-explain.present-explain").Length(); got != c.explanation {
			t.Errorf("present %v: %d one-line explanations, want %d", c.present, got, c.explanation)
		}
		if got := doc.Find("#play-explain").Length(); got != 1 {
			t.Errorf("present %v: %d explanation regions, want 1", c.present, got)
		}
	}
}

package templates

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"

	"github.com/windowlab/playground/explain"
	"github.com/windowlab/playground/lane"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
)

// TestPresentLaneOptions: more lanes share the height, so each is drawn
// wider for its height, never narrower than a normal lane, always at the
// presentation's height, and keeping the options it was given.
func TestPresentLaneOptions(t *testing.T) {
	prev := 0
	for n := 1; n <= scenario.MaxPolicies; n++ {
		o := PresentLaneOptions(n, lane.Options{SelectURL: "/play/x/select"})
		if o.Height != PresentLaneHeight || o.SelectURL != "/play/x/select" {
			t.Errorf("%d lanes: options %+v, want height %d and the select URL kept", n, o, PresentLaneHeight)
		}
		if o.Width*lane.DefaultHeight < lane.DefaultWidth*o.Height {
			t.Errorf("%d lanes: %d × %d is narrower for its height than a normal lane", n, o.Width, o.Height)
		}
		if o.Width < prev {
			t.Errorf("%d lanes: width %d, narrower than for %d lanes (%d)", n, o.Width, n-1, prev)
		}
		prev = o.Width
	}
	if four, seven := PresentLaneOptions(4, lane.Options{}), PresentLaneOptions(7, lane.Options{}); seven.Width <= four.Width {
		t.Errorf("seven lanes are drawn %d wide, four %d: seven lower slots need wider drawings", seven.Width, four.Width)
	}
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

// TestPresentExplainOneLinePerLane: each lane's line names the lane, its
// outcome in words and a shape (● or ✕, not colour alone) and its working.
func TestPresentExplainOneLinePerLane(t *testing.T) {
	v := carParkView(t)
	doc := render(t, PresentExplain(v))
	lines := doc.Find(`[data-testid="explain-lane"]`)
	if lines.Length() != len(v.Lanes) {
		t.Fatalf("%d lines for %d lanes", lines.Length(), len(v.Lanes))
	}
	for i, e := range v.Selected.Lanes {
		text := strings.Join(strings.Fields(lines.Eq(i).Text()), " ")
		shape := "✕ "
		if e.Decision.Allowed {
			shape = "● "
		}
		for _, want := range []string{e.Lane, shape + explain.Outcome(e.Decision), PresentWorking(v, i)} {
			if want == "" || !strings.Contains(text, want) {
				t.Errorf("lane %d: %q lacks %q", i, text, want)
			}
		}
	}
	v.Selected = nil
	if got := render(t, PresentExplain(v)).Find("#play-explain .hint").Length(); got != 1 {
		t.Errorf("with nothing selected the explanation shows %d hints, want 1", got)
	}
}

// TestPresentLayoutOptionalParts: a page may leave out its panel, the
// explanation and the notes; the lanes and the clock are always drawn.
func TestPresentLayoutOptionalParts(t *testing.T) {
	part := func(id string) templ.Component { return templ.Raw(`<p id="` + id + `">` + id + `</p>`) }
	doc := render(t, PresentLayout(PresentScreen{Lanes: part("lanes"), Clock: part("clock")}))
	if doc.Find(".present-lanes #lanes").Length() != 1 || doc.Find(".present-side #clock").Length() != 1 {
		t.Error("the lanes or the clock are missing from their columns")
	}
	if n := doc.Find(".present-notes").Length(); n != 0 {
		t.Errorf("%d notes boxes without notes", n)
	}
	doc = render(t, PresentLayout(PresentScreen{Lanes: part("lanes"), Clock: part("clock"), Side: part("side"), Explain: part("explain"), Notes: part("notes")}))
	var order []string
	doc.Find(".present-side p").Each(func(_ int, s *goquery.Selection) { order = append(order, s.AttrOr("id", "")) })
	if got := strings.Join(order, " "); got != "clock side explain notes" {
		t.Errorf("the side column holds %q, want clock, side, explain, notes", got)
	}
}

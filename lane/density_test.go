package lane

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// TestDensityStripCountsEveryRequest: with more requests in view than a
// lane draws (400 over 4 s, limit 100 per 10 s), the lane draws a density
// strip whose bars' titles count every request in view, and its label
// says how many were refused; with few requests there is no strip. The
// bars are drawn as two paths, a rectangle a bar.
func TestDensityStripCountsEveryRequest(t *testing.T) {
	sc := scenario.Scenario{Limit: 100, WindowMs: 10_000, Policies: []scenario.PolicySpec{{Name: policies.FixedWindow}}}
	for i := range 400 {
		sc.Requests = append(sc.Requests, scenario.Request{At: int64(i) * 10, Key: "default", Cost: 1, Count: 1})
	}
	sess, err := play.NewSession("density", sc)
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Jump(4000); err != nil {
		t.Fatal(err)
	}
	v := sess.View()
	doc := render(t, FromView(v, v.Lanes[0]), Options{})
	if doc.Find(`[data-testid="density"]`).Length() != 1 {
		t.Fatal("no density strip with 400 requests in view")
	}
	re := regexp.MustCompile(`^(\d+) requests from .*: (\d+) admitted, (\d+) refused$`)
	total, refused := 0, 0
	doc.Find(`[data-testid="density"] rect > title`).Each(func(_ int, s *goquery.Selection) {
		m := re.FindStringSubmatch(s.Text())
		if m == nil {
			t.Fatalf("bar title %q", s.Text())
		}
		n, _ := strconv.Atoi(m[1])
		r, _ := strconv.Atoi(m[3])
		total, refused = total+n, refused+r
	})
	if total != 400 || refused != 300 {
		t.Errorf("the strip counts %d requests, %d refused; want 400, 300 (limit 100 per window)", total, refused)
	}
	// Drawn as two paths, a rectangle a bar in each that has requests of
	// its kind (all 400 were in the first 4 s, so each bar has admitted
	// requests or refused ones).
	bars := doc.Find(`[data-testid="density"] rect.density-bar`).Length()
	admitted := strings.Count(doc.Find("path.density-admitted").AttrOr("d", ""), "z")
	refusedBars := strings.Count(doc.Find("path.density-refused").AttrOr("d", ""), "z")
	if bars == 0 || admitted+refusedBars < bars || admitted > bars || refusedBars > bars {
		t.Errorf("%d bars drawn as %d admitted and %d refused rectangles", bars, admitted, refusedBars)
	}
	if got := doc.Find("text.density-label").Text(); got != "400 in view, 300 refused" {
		t.Errorf("the strip's label reads %q", got)
	}
	few := render(t, FromView(carPark(t), carPark(t).Lanes[0]), Options{})
	if few.Find(`[data-testid="density"]`).Length() != 0 {
		t.Error("a density strip for eight requests")
	}
}

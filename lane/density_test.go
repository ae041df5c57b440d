package lane

import (
	"math"
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

// TestDensityStripStaysPutAcrossASpanStep: as the clock plays past the last
// of 2,000 requests (one every 5 ms), the fitted span steps from 12 s to
// 15 s wide, a step that keeps the strip's slices (play.DensityBinWidth:
// 500 ms for both). The strip's bars, paths and titles are the same before
// and after, only its transform changes, so a frame of the step does not
// redraw them; and through each transform every bar starts where the
// lane's axis puts its slice's start.
func TestDensityStripStaysPutAcrossASpanStep(t *testing.T) {
	sc := scenario.Scenario{Limit: 100, WindowMs: 12_000, Policies: []scenario.PolicySpec{{Name: policies.FixedWindow}}}
	for i := range 2000 {
		sc.Requests = append(sc.Requests, scenario.Request{At: int64(i) * 5, Key: "default", Cost: 1, Count: 1})
	}
	sess, err := play.NewSession("step", sc)
	if err != nil {
		t.Fatal(err)
	}
	type strip struct {
		from, to  int64
		transform string
		inner     string
	}
	at := func(now int64) strip {
		t.Helper()
		if err := sess.Jump(now); err != nil {
			t.Fatal(err)
		}
		v := sess.View()
		doc := render(t, FromView(v, v.Lanes[0]), Options{})
		svg, g := doc.Find("svg.lane-svg"), doc.Find(`g[data-testid="density"]`)
		inner, err := g.Html()
		if err != nil || g.Length() != 1 {
			t.Fatalf("at %d ms: no density strip (%v)", now, err)
		}
		// Where the axis puts an instant: data-x0 at data-from, data-x1
		// at data-to.
		num := func(s *goquery.Selection, attr string) float64 {
			f, err := strconv.ParseFloat(s.AttrOr(attr, ""), 64)
			if err != nil {
				t.Fatalf("at %d ms: %s=%q", now, attr, s.AttrOr(attr, ""))
			}
			return f
		}
		from, to, x0, x1 := num(svg, "data-from"), num(svg, "data-to"), num(svg, "data-x0"), num(svg, "data-x1")
		m := regexp.MustCompile(`^translate\(([-0-9.]+) 0\) scale\(([0-9.]+) 1\)$`).FindStringSubmatch(g.AttrOr("transform", ""))
		if m == nil {
			t.Fatalf("at %d ms: the strip's transform is %q", now, g.AttrOr("transform", ""))
		}
		dx, _ := strconv.ParseFloat(m[1], 64)
		k, _ := strconv.ParseFloat(m[2], 64)
		g.Find("rect.density-bar").Each(func(i int, r *goquery.Selection) {
			start, err := strconv.ParseFloat(strings.TrimPrefix(r.AttrOr("id", ""), "lane-0-d"), 64)
			if err != nil {
				t.Fatalf("at %d ms: bar %d's id %q", now, i, r.AttrOr("id", ""))
			}
			want := x0 + (max(start, from)-from)/(to-from)*(x1-x0)
			if got := dx + k*num(r, "x"); math.Abs(got-want) > 0.5 {
				t.Errorf("at %d ms: the bar from %g ms starts at %.2f across the lane, want %.2f", now, start, got, want)
			}
		})
		return strip{int64(from), int64(to), g.AttrOr("transform", ""), inner}
	}
	before, after := at(10_600), at(10_800)
	if before.to-before.from != 12_000 || after.to-after.from != 15_000 {
		t.Fatalf("spans %d–%d and %d–%d ms: want the span to step from 12 s to 15 s wide", before.from, before.to, after.from, after.to)
	}
	if before.transform == after.transform {
		t.Errorf("the strip's transform stayed %q across the step", before.transform)
	}
	if before.inner != after.inner {
		t.Errorf("the strip's bars changed across the step:\n%s\n%s", before.inner, after.inner)
	}
}

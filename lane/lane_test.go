package lane

import (
	"context"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/windowlab/playground/explain"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// carPark is the car park of the lessons in every policy: five cars per
// 30 s, eight arrivals, the clock at 40 s; extra policies are added after
// the six every test draws.
func carPark(t *testing.T, extra ...scenario.PolicySpec) play.View {
	t.Helper()
	sc := scenario.Scenario{Limit: 5, WindowMs: 30_000, Policies: append([]scenario.PolicySpec{
		{Name: policies.FixedWindow}, {Name: policies.SlidingLog},
		{Name: policies.SlidingCounter}, {Name: policies.SlidingBuckets, Buckets: 6},
		{Name: policies.TokenBucket}, {Name: policies.GCRA},
	}, extra...)}
	for _, at := range []int64{5_000, 12_000, 20_000, 25_000, 28_000, 31_000, 35_000, 36_000} {
		sc.Requests = append(sc.Requests, scenario.Request{At: at, Key: "default", Cost: 1, Count: 1})
	}
	sess, err := play.NewStore(nil).New(scenario.Scenario{})
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Load(sc); err != nil {
		t.Fatal(err)
	}
	if err := sess.Jump(40_000); err != nil {
		t.Fatal(err)
	}
	// Three windows from 0 s, as the tests below measure them.
	if err := sess.ShowSpan(0, 90_000); err != nil {
		t.Fatal(err)
	}
	return sess.View()
}

func render(t *testing.T, in Input, o Options) *goquery.Document {
	t.Helper()
	var b strings.Builder
	if err := Figure(in, o).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func laneOf(t *testing.T, v play.View, policy string) Input {
	t.Helper()
	for _, l := range v.Lanes {
		if l.Policy == policy {
			return FromView(v, l)
		}
	}
	t.Fatalf("no %s lane", policy)
	return Input{}
}

func TestStaticAndInteractive(t *testing.T) {
	in := laneOf(t, carPark(t), policies.FixedWindow)
	static := render(t, in, Options{})
	if _, ok := static.Find("svg").Attr("data-on-click"); ok {
		t.Error("a static lane carries a Datastar action")
	}
	if n := static.Find("[data-index]").Length(); n != 8 {
		t.Errorf("a static lane draws %d marks, want 8", n)
	}
	live := render(t, in, Options{SelectURL: "/play/abc/select"})
	click, _ := live.Find("svg").Attr("data-on-click")
	if !strings.Contains(click, "@post('/play/abc/select?i=' + ") {
		t.Errorf("an interactive lane's click is %q, want a post to /play/abc/select?i=", click)
	}
}

func TestSize(t *testing.T) {
	in := laneOf(t, carPark(t), policies.FixedWindow)
	for _, c := range []struct {
		name             string
		o                Options
		viewBox, axisEnd string
		axisY            string
	}{
		{"default", Options{}, "0 0 720 150", "712", "124"},
		{"smaller", Options{Width: 480, Height: 120}, "0 0 480 120", "472", "94"},
		{"below the minimum", Options{Width: 10, Height: 10}, "0 0 200 80", "192", "54"},
	} {
		doc := render(t, in, c.o)
		if got := doc.Find("svg").AttrOr("viewBox", ""); got != c.viewBox {
			t.Errorf("%s: viewBox = %q, want %q", c.name, got, c.viewBox)
		}
		axis := doc.Find("line.axis")
		if got := axis.AttrOr("x2", ""); got != c.axisEnd {
			t.Errorf("%s: the axis ends at x = %s, want %s", c.name, got, c.axisEnd)
		}
		if got := axis.AttrOr("y1", ""); got != c.axisY {
			t.Errorf("%s: the axis is at y = %s, want %s", c.name, got, c.axisY)
		}
	}
}

func TestTimeRange(t *testing.T) {
	in := laneOf(t, carPark(t), policies.FixedWindow)
	labels := func(o Options) []string {
		var out []string
		render(t, in, o).Find("text.tick-label").Each(func(_ int, s *goquery.Selection) { out = append(out, s.Text()) })
		return out
	}
	for _, c := range []struct {
		o    Options
		want string
	}{
		// 90 s across: 15 s a sixth, so steps of 20 s.
		{Options{}, "0 s, 20 s, 40 s, 60 s, 80 s"},
		// 30 s across: 5 s a sixth.
		{Options{From: 30_000, To: 60_000}, "30 s, 35 s, 40 s, 45 s, 50 s, 55 s, 60 s"},
		// 20 s across (a lesson's attack): not 3.333 s, 6.666 s.
		{Options{From: 0, To: 20_000}, "0 s, 5 s, 10 s, 15 s, 20 s"},
		// A span that starts off a step: its first label is the step after.
		{Options{From: 2_500, To: 9_500}, "4 s, 6 s, 8 s"},
		// Seconds for all labels once the span leaves the first second...
		{Options{From: 0, To: 1_500}, "0 s, 0.5 s, 1 s, 1.5 s"},
		// ...and ms within it.
		{Options{From: 0, To: 1_000}, "0 ms, 200 ms, 400 ms, 600 ms, 800 ms, 1000 ms"},
	} {
		if got := strings.Join(labels(c.o), ", "); got != c.want {
			t.Errorf("%d–%d ms is labelled %q, want %q", c.o.From, c.o.To, got, c.want)
		}
	}
	// Marks outside the range are placed off the plot, not squeezed in:
	// the request at 5 s sits left of the plot's edge.
	x := render(t, in, Options{From: 30_000, To: 60_000}).Find(`[data-index="0"]`).AttrOr("transform", "")
	if !strings.HasPrefix(x, "translate(-") {
		t.Errorf("the request at 5 s is drawn at %q, want left of the plot", x)
	}
}

// TestEachPolicyDrawsItsState: each policy's lane draws its own state, and
// no other lane draws it.
func TestEachPolicyDrawsItsState(t *testing.T) {
	v := carPark(t)
	draws := map[string]string{
		policies.FixedWindow:    "rect.band",
		policies.SlidingLog:     "rect.lookback, path.log-entry",
		policies.SlidingCounter: "rect.band",
		policies.SlidingBuckets: "rect.slot",
		policies.GCRA:           "line.tat",
		policies.TokenBucket:    "rect.level",
	}
	for _, l := range v.Lanes {
		doc := render(t, FromView(v, l), Options{})
		for policy, sel := range draws {
			n := doc.Find(sel).Length()
			switch {
			case policy == l.Policy && n == 0:
				t.Errorf("%s draws no %s", l.Policy, sel)
			case policy != l.Policy && draws[l.Policy] != sel && n > 0:
				t.Errorf("%s draws %s, which belongs to %s", l.Policy, sel, policy)
			}
		}
	}
}

// TestAskedLaneStatesNothingThePolicyHolds: while a room's question is
// open a lane draws the requests but no state at the cut: the car park's
// clock at 40 s, the question at 40 s, so the window [30 s, 60 s) is open.
func TestAskedLaneStatesNothingThePolicyHolds(t *testing.T) {
	v := carPark(t)
	for _, l := range v.Lanes {
		doc := render(t, FromView(v, l), Options{Asked: true, Cut: 40_000})
		status := doc.Find(`[data-testid="lane-status"]`).Text()
		for _, word := range []string{"left", "count", "estimate", "tokens", "TAT", "next request"} {
			if strings.Contains(status, word) {
				t.Errorf("%s: the status says %q: %q", l.Label, word, status)
			}
		}
		if pts, _ := doc.Find("polyline.curve").Attr("points"); pts != "" {
			t.Errorf("%s: draws its curve: %q", l.Label, pts)
		}
		// The legend names only what is drawn: no line, bars, ticks or TAT.
		legend := doc.Find(".lane-legend").Text()
		for _, word := range []string{"Line", "estimate", "Bars", "Ticks", "TAT", "tokens", "weight"} {
			if strings.Contains(legend, word) {
				t.Errorf("%s: the legend mentions %q, which the asked lane does not draw: %q", l.Label, word, legend)
			}
		}
		for _, drawn := range []string{"rect.slot", "rect.prev-weight", "path.log-entry", "line.tat"} {
			if doc.Find(drawn).Length() > 0 {
				t.Errorf("%s: draws %s", l.Label, drawn)
			}
		}
		var labels []string
		doc.Find("text.band-label").Each(func(_ int, s *goquery.Selection) { labels = append(labels, s.Text()) })
		// Windows from 0 s: [0, 30) ended before the question and holds its
		// five admitted cars; the windows from 30 s are still open at 40 s.
		if explain.DrawsWindows(l.Policy) && strings.Join(labels, " ") != "5/5 ?/5 ?/5" {
			t.Errorf("%s: window labels %q, want the ended window's count and ? for the open ones", l.Label, labels)
		}
		if got := doc.Find("g.mark").Length(); got != len(l.Marks) {
			t.Errorf("%s: %d marks drawn, want all %d", l.Label, got, len(l.Marks))
		}
	}
}

// viewOf replays a lesson's scenario file, changed by the edits, in a
// playground session with the clock at now.
func viewOf(t *testing.T, file string, now int64, edits ...func(*scenario.Scenario)) play.View {
	t.Helper()
	data, err := os.ReadFile("../lessons/scenarios/" + file)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, edit := range edits {
		edit(&sc)
	}
	sess, err := play.NewSession("lane-test", sc)
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Jump(now); err != nil {
		t.Fatal(err)
	}
	if err := sess.ShowSpan(0, max(3*sc.WindowMs, now+sc.WindowMs/2)); err != nil {
		t.Fatal(err)
	}
	return sess.View()
}

// TestPreviousWeightIsExact: lesson 3's floor vector, five admitted in the
// second from 0 s and the clock 1 ms into the next. The previous window
// counts at 999/1000, which floors to 4: a label rounded to "5 × 1.00"
// reads as a carried 5, the opposite of the example's point.
func TestPreviousWeightIsExact(t *testing.T) {
	v := viewOf(t, "floor-vector.json", 1001)
	for _, l := range v.Lanes {
		got := render(t, FromView(v, l), Options{}).Find("text.prev-weight-label").Text()
		if got != "5 × 999/1000" {
			t.Errorf("%s: the previous window is labelled %q, want 5 × 999/1000", l.Label, got)
		}
	}
}

// The widths, in viewBox units, lanes are drawn at: the smallest, a
// room's phone, a presentation lane (110 high), a lesson's, the default,
// and a wide presentation of seven lanes.
var laneWidths = []int{MinWidth, 360, 528, 560, DefaultWidth, 847}

// labelBox is the x-range a band label's text takes at the projector's
// 16 px, measured from the font rather than the renderer's estimate:
// DejaVu Sans Bold (the widest bold sans-serif app.css can fall back to)
// draws a digit 0.696 em wide, "/" 0.365 em and "?" 0.580 em.
func labelBox(s *goquery.Selection) (lo, hi float64, err error) {
	x, err := strconv.ParseFloat(s.AttrOr("x", ""), 64)
	ems := 0.0
	for _, r := range s.Text() {
		switch r {
		case '/':
			ems += 0.365
		case '?':
			ems += 0.580
		default:
			ems += 0.696
		}
	}
	return x - ems*16/2, x + ems*16/2, err
}

// TestWindowLabelsDoNotOverlap: lesson 4's per-second counter over the
// 18 s of the stacking attack, thirteen one-second windows in about 500
// units, ran its labels together ("10/1010/1010/10…"). At every width the
// labels keep apart, some are still drawn, and every window's count stays
// available as its block's title.
func TestWindowLabelsDoNotOverlap(t *testing.T) {
	// As lesson 4 draws the stack's first lane: alone, replayed with the
	// longest window as the scenario's, so that the span starts at 0 s.
	v := viewOf(t, "stacking.json", 12_500, func(s *scenario.Scenario) {
		s.Policies = s.Policies[:1]
		s.Policies[0].Limit, s.Policies[0].WindowMs = s.Limit, s.WindowMs
		s.WindowMs = 60_000
	})
	in := FromView(v, v.Lanes[0])
	for _, width := range laneWidths {
		doc := render(t, in, Options{Width: width, From: 0, To: 18_000})
		labels := doc.Find("text.band-label")
		if labels.Length() == 0 {
			t.Errorf("width %d: no window is labelled", width)
		}
		prevHi, prev := math.Inf(-1), ""
		labels.Each(func(_ int, s *goquery.Selection) {
			lo, hi, err := labelBox(s)
			if err != nil {
				t.Fatalf("width %d: label %q: %v", width, s.Text(), err)
			}
			if lo < prevHi {
				t.Errorf("width %d: label %q at %.1f–%.1f overlaps %q, which ends at %.1f", width, s.Text(), lo, hi, prev, prevHi)
			}
			prevHi, prev = hi, s.Text()
		})
		// The windows overlapping the span drawn.
		var shown []play.Band
		for _, w := range in.Windows {
			if w.Start < 18_000 && w.End > 0 {
				shown = append(shown, w)
			}
		}
		bands := doc.Find("rect.band")
		if bands.Length() != len(shown) {
			t.Fatalf("width %d: %d windows drawn, want %d", width, bands.Length(), len(shown))
		}
		bands.Each(func(i int, s *goquery.Selection) {
			w := shown[i]
			want := explain.WindowCount(w.Start, w.End, w.Admitted, in.Params.Limit)
			if got := s.Find("title").Text(); got != want {
				t.Errorf("width %d: window %d's title is %q, want %q", width, i, got, want)
			}
		})
	}
}

// TestTickStep: the step between time labels is 1, 2 or 5 × 10ⁿ ms, the
// smallest leaving at most six steps across the span.
func TestTickStep(t *testing.T) {
	for _, c := range []struct{ span, want int64 }{
		{0, 1}, {6, 1}, {7, 2}, {12, 2}, {13, 5}, {30, 5}, {31, 10},
		{1_000, 200}, {1_500, 500}, {6_000, 1_000}, {20_000, 5_000},
		{30_000, 5_000}, {60_000, 10_000}, {90_000, 20_000}, {120_000, 20_000}, {121_000, 50_000},
	} {
		if got := TickStep(c.span); got != c.want {
			t.Errorf("TickStep(%d) = %d, want %d", c.span, got, c.want)
		}
	}
}

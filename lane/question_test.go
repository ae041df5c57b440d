package lane

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/windowlab/playground/scenario"
)

func renderQuestion(t *testing.T, d QuestionDrawing, value string) *goquery.Document {
	t.Helper()
	var b strings.Builder
	if err := QuestionStrip(d, value).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	if err := QuestionAxis(d).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestQuestionDrawsTheTrafficAndNoDecision: the question mode draws a mark
// a request on the lane's own time axis (the lane's ticks, at the lane's
// x of each instant), one neutral shape for all, stacked at an instant,
// and nothing a decision or a policy's state could be read from: no
// admitted or refused mark, no limit, no count, no window's edges.
func TestQuestionDrawsTheTrafficAndNoDecision(t *testing.T) {
	reqs := []scenario.Request{{At: 0}, {At: 5000, Count: 2}, {At: 15000, Count: 2}, {At: 25000}, {At: 35000}, {At: 40000, Count: 3}}
	q := Question{From: 0, To: 45000, Requests: reqs, Window: 30000, WindowLabel: "one window: 30 s"}
	d := LayOutQuestion(q)
	if d.Total != 10 || d.Tallest != 3 || len(d.Marks) != 10 {
		t.Fatalf("%d requests, tallest column %d, %d marks; want 10, 3, 10", d.Total, d.Tallest, len(d.Marks))
	}
	lanePlot := newPlot(Input{From: 0, To: 45000}, Options{Width: QuestionWidth})
	if got, want := d.Marks[1].X, qnum(lanePlot.X(5000)); got != want || d.Marks[2].X != want || d.Marks[1].Y == d.Marks[2].Y {
		t.Errorf("the two at 5 s are at (%s, %s) and (%s, %s), want both at the lane's x %s, one above the other", d.Marks[1].X, d.Marks[1].Y, d.Marks[2].X, d.Marks[2].Y, want)
	}
	if len(d.Ticks) != len(lanePlot.Ticks()) || d.Ticks[0].Label != lanePlot.Ticks()[0].Label {
		t.Errorf("ticks %v, want the lane's %v", d.Ticks, lanePlot.Ticks())
	}
	doc := renderQuestion(t, d, "")
	if n := doc.Find(".ask-mark[data-mark]").Length(); n != 10 {
		t.Errorf("%d marks drawn, want 10", n)
	}
	if n := doc.Find(`.ask-mark[data-mark="3"][data-name="Request 3, at 5 s"]`).Length(); n != 1 {
		t.Errorf("request 3 is not named “Request 3, at 5 s”")
	}
	for _, sel := range []string{".admitted", ".refused", ".limit", ".limit-label", ".band", ".band-label", ".curve", ".now", ".lookback", "[data-asked]", ".ask-at"} {
		if n := doc.Find(sel).Length(); n > 0 {
			t.Errorf("the question draws %d of %s", n, sel)
		}
	}
	if got := doc.Find(".ask-scale text").Text(); got != "one window: 30 s" {
		t.Errorf("the window's scale says %q", got)
	}
}

// TestQuestionAboutAMomentLabelsOnlyItsStart: a question about a moment
// draws its instant's line labelled with where the learner starts, and no
// other time label, any of which could read as the moment asked for; a
// question about one request draws it as "?" on top of its instant's
// column.
func TestQuestionAboutAMomentLabelsOnlyItsStart(t *testing.T) {
	reqs := []scenario.Request{{At: 0}, {At: 5000, Count: 2}, {At: 15000, Count: 2}}
	d := LayOutQuestion(Question{From: 0, To: 90000, Requests: reqs, Window: 30000, WindowLabel: "one window",
		Asked: true, AskAt: 25000, AskLabel: "from 25 s", Unlabelled: true, MinStack: 2})
	doc := renderQuestion(t, d, "")
	if n := doc.Find(".ask-tick-label").Length(); n != 0 {
		t.Errorf("%d tick labels, want none", n)
	}
	if got := doc.Find(".ask-at-label").Text(); got != "from 25 s" {
		t.Errorf("the asked instant is labelled %q, want “from 25 s”", got)
	}
	if doc.Find("[data-asked]").Length() != 0 || doc.Find(".ask-at").Length() != 1 {
		t.Errorf("a moment's question draws a request asked about, or no line at its start")
	}
	d = LayOutQuestion(Question{From: 0, To: 45000, Requests: reqs, Window: 30000, Asked: true, AskMark: true, AskAt: 15000, AskLabel: "15 s", MinStack: 2})
	doc = renderQuestion(t, d, "sliding-log")
	asked := doc.Find(`[data-asked][data-value="sliding-log"]`)
	y := func(s string) float64 { f, _ := strconv.ParseFloat(s, 64); return f }
	if asked.Length() != 1 || y(d.Ask.Y) >= y(d.Marks[len(d.Marks)-1].Y) {
		t.Errorf("the asked request is not drawn on top of its column (%v, top mark at %s)", d.Ask, d.Marks[len(d.Marks)-1].Y)
	}
}

// A column taller than the drawing stacks is drawn that high, its top
// mark carrying the column's count, and a row no taller than it needs.
func TestQuestionColumnTallerThanItsStack(t *testing.T) {
	reqs := []scenario.Request{{At: 999, Count: 100}, {At: 1000, Count: 100}, {At: 1001, Count: 100}}
	for _, tc := range []struct{ max, want int64 }{{0, QuestionMaxStack}, {5, 5}} {
		d := LayOutQuestion(Question{From: 0, To: 2000, Requests: reqs, Window: 1000, MaxStack: tc.max})
		if int64(len(d.Marks)) != tc.want || d.Marks[len(d.Marks)-1].More != "×300" || d.Total != 300 || d.Tallest != 300 {
			t.Errorf("stack of at most %d: %d marks, the top one saying %q (total %d, tallest %d); want %d, “×300”", tc.max, len(d.Marks), d.Marks[len(d.Marks)-1].More, d.Total, d.Tallest, tc.want)
		}
	}
	short := LayOutQuestion(Question{From: 0, To: 2000, Requests: reqs, Window: 1000, MaxStack: 5})
	tall := LayOutQuestion(Question{From: 0, To: 2000, Requests: reqs, Window: 1000})
	if short.RowH >= tall.RowH {
		t.Errorf("a row of 5 marks is %d high, one of 15 %d", short.RowH, tall.RowH)
	}
}

package lane

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/policies"
)

// renderRedisRow draws a Redis row of redis on a five-a-window lane over
// [0, 60 s].
func renderRedisRow(t *testing.T, redis Redis) *goquery.Document {
	t.Helper()
	in := Input{Lane: play.Lane{ID: "lane-0", Policy: policies.FixedWindow, Label: "fixed-window", Capacity: 5}, To: 60_000}
	for _, m := range redis.Marks {
		in.Marks = append(in.Marks, play.Mark{Index: m.Index, At: m.At, Level: m.Level, Stack: m.Stack, Allowed: m.Allowed})
	}
	var buf bytes.Buffer
	if err := RedisRow(in, Options{}, redis).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// markY reads the height a mark's transform gives it.
func markY(t *testing.T, s *goquery.Selection) float64 {
	t.Helper()
	tr := strings.TrimSuffix(strings.TrimPrefix(s.AttrOr("transform", ""), "translate("), ")")
	_, y, _ := strings.Cut(tr, " ")
	f, err := strconv.ParseFloat(y, 64)
	if err != nil {
		t.Fatalf("transform %q: %v", s.AttrOr("transform", ""), err)
	}
	return f
}

// Few marks are drawn one by one at their level (higher is nearer the
// top), the ≠ over a difference alone; many are two paths, a difference
// still drawn on its own with its words.
func TestRedisRowDrawsMarksAndDifferences(t *testing.T) {
	few := Redis{Status: "Redis: 1 of 2 decisions differ from Go's.", Marks: []RedisMark{
		{Index: 0, At: 1000, Allowed: true, Level: 1, Text: "request 1"},
		{Index: 1, At: 2000, Allowed: true, Level: 6, Differs: true, Text: "Redis and Go differ on request 2"},
	}}
	doc := renderRedisRow(t, few)
	marks := doc.Find("g.redis-mark")
	if marks.Length() != 2 {
		t.Fatalf("%d marks, want 2", marks.Length())
	}
	if low, high := markY(t, marks.Eq(0)), markY(t, marks.Eq(1)); !(high < low) {
		t.Errorf("level 6 drawn at y %v, level 1 at %v: want level 6 higher", high, low)
	}
	if n := doc.Find(".redis-differs-mark").Length(); n != 1 || !marks.Eq(1).HasClass("redis-differs") {
		t.Errorf("%d ≠ drawn, want one, on request 2", n)
	}
	if got := doc.Find("desc").Text(); !strings.Contains(got, "Drawn here: 2 requests, 1 decided otherwise than in Go.") {
		t.Errorf("text alternative %q", got)
	}

	var many Redis
	for i := range IndividualMarks + 10 {
		many.Marks = append(many.Marks, RedisMark{Index: i, At: int64(i) * 500, Allowed: i%2 == 0, Level: 1})
	}
	many.Marks[7].Differs, many.Marks[7].Text = true, "Redis and Go differ on request 8"
	doc = renderRedisRow(t, many)
	if doc.Find("[data-testid=redis-dense-marks] path.dense-admitted").AttrOr("d", "") == "" || doc.Find("path.dense-refused").AttrOr("d", "") == "" {
		t.Error("many marks: the dense paths are empty")
	}
	if got := doc.Find("g.redis-mark"); got.Length() != 1 || got.Find("title").Text() != "Redis and Go differ on request 8" {
		t.Errorf("many marks: %d drawn one by one, want the difference alone", got.Length())
	}

	down := renderRedisRow(t, Redis{Status: "Redis unavailable: the server cannot reach Redis.", Undecided: true})
	if down.Find("svg").Length() != 0 || down.Find("[data-testid=redis-status]").Text() != "Redis unavailable: the server cannot reach Redis." {
		t.Errorf("undecided: %d drawings, line %q", down.Find("svg").Length(), down.Find("[data-testid=redis-status]").Text())
	}
}

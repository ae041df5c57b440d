package lessons

import (
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// TestEveryLessonHasALiveLane reads every lesson page as a visitor gets it:
// each has at least one block of live lanes drawn by the lane renderer, with
// step controls that work without JavaScript and the table beside it.
func TestEveryLessonHasALiveLane(t *testing.T) {
	base := lessonsSite(t)
	lib, _, err := LoadLessons()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lib.Lessons {
		res := get(t, base+"/lessons/"+l.Slug)
		if res.status != 200 {
			t.Fatalf("%s: status %d", l.Slug, res.status)
		}
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(res.body))
		if err != nil {
			t.Fatal(err)
		}
		blocks := doc.Find(`[data-testid="live-lanes"]`)
		if blocks.Length() == 0 {
			t.Errorf("%s: no live lanes", l.Slug)
			continue
		}
		ids := map[string]bool{}
		doc.Find("[id]").Each(func(_ int, s *goquery.Selection) {
			id, _ := s.Attr("id")
			if ids[id] {
				t.Errorf("%s: id %q is used twice", l.Slug, id)
			}
			ids[id] = true
		})
		blocks.Each(func(i int, b *goquery.Selection) {
			id, _ := b.Attr("id")
			if n := b.Find(`figure[data-testid="lane"] svg.lane-svg`).Length(); n == 0 {
				t.Errorf("%s %s: no lane drawn", l.Slug, id)
			}
			if b.Find(`svg [data-on-click]`).Length()+b.Find(`svg[data-on-click]`).Length() > 0 {
				t.Errorf("%s %s: a lesson's lane is interactive (it has no session to post to)", l.Slug, id)
			}
			prev, ok := b.Find(`a[data-testid="lane-prev"]`).Attr("href")
			if !ok || !strings.Contains(prev, id+"=") {
				t.Errorf("%s %s: previous-step link %q does not name the block's step", l.Slug, id, prev)
			}
			if b.Find(`details[data-testid="lanes-table"] table`).Length() != 1 {
				t.Errorf("%s %s: no table as the text alternative", l.Slug, id)
			}
		})
	}
}

// TestLessonLanesSteps follows a step link without JavaScript and fetches
// the same step as Datastar does: both show the lanes at that step.
func TestLessonLanesSteps(t *testing.T) {
	base := lessonsSite(t)
	for _, tt := range []struct {
		path   string
		status int
		want   string
	}{
		{"/lessons/fixed-window?lanes-1=0", 200, "Step 0 of 10: no request yet."},
		{"/lessons/fixed-window?lanes-1=7", 200, "Step 7 of 10: the request at 35 s is admitted by fixed-window."},
		{"/lessons/fixed-window?lanes-1=11", 400, "step “11” is not a step of these lanes (0 to 10)"},
		{"/lessons/fixed-window?lanes-1=x", 400, "is not a step of these lanes"},
		{"/lessons/fixed-window/lanes/lanes-1/6", 200, "Step 6 of 10: the request at 25 s is refused by fixed-window."},
		{"/lessons/fixed-window/lanes/lanes-1/11", 400, "step 11: these lanes have steps 0 to 10"},
		{"/lessons/fixed-window/lanes/lanes-1/-1", 400, "is not a step"},
		{"/lessons/fixed-window/lanes/lanes-9/1", 404, "Page not found"},
		{"/lessons/nope/lanes/lanes-1/1", 404, "Page not found"},
	} {
		res := get(t, base+tt.path)
		if res.status != tt.status || !strings.Contains(res.body, tt.want) {
			t.Errorf("GET %s: status %d, want %d with %q\n%.300s", tt.path, res.status, tt.status, tt.want, res.body)
		}
	}
	// A step shows nothing of the requests after it: no mark, no table row.
	res := get(t, base+"/lessons/fixed-window/lanes/lanes-1/2")
	if !strings.HasPrefix(res.body, "event: datastar-merge-fragments") {
		t.Fatalf("the fragment is not a Datastar event: %.100s", res.body)
	}
	html := strings.ReplaceAll(res.body, "data: fragments ", "")
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(html))
	if err != nil {
		t.Fatal(err)
	}
	if n := doc.Find(`svg .mark`).Length(); n != 2 {
		t.Errorf("step 2 draws %d marks, want 2", n)
	}
	if n := doc.Find(`details tbody tr`).Length(); n != 2 {
		t.Errorf("step 2's table has %d rows, want 2", n)
	}
}

// TestStackedLanesFeedEachLaneWhatPassed checks the stack drawn as lanes:
// the per-minute lane decides only the requests the per-second lane
// admitted, not all 240 again.
func TestStackedLanesFeedEachLaneWhatPassed(t *testing.T) {
	base := lessonsSite(t)
	res := get(t, base+"/lessons/where-they-disagree/lanes/lanes-4/240")
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(strings.ReplaceAll(res.body, "data: fragments ", "")))
	if err != nil {
		t.Fatal(err)
	}
	// The lane's text alternative counts what it decided.
	if got := doc.Find(`#lanes-4-1 desc`).Text(); !strings.Contains(got, "60 admitted, 65 refused in all") {
		t.Errorf("the per-minute lane says %q, want 60 admitted and 65 refused (of the 125 the first lane passed)", got)
	}
	if got := doc.Find(`[data-testid="lanes-summary"]`).Text(); !strings.Contains(got, "The stack admits 60 of 240") {
		t.Errorf("summary %q", got)
	}
	if got := doc.Find(`[data-testid="lane-now"]`).Text(); !strings.Contains(got, "refused by lane 1") {
		t.Errorf("step text %q", got)
	}
}

// TestLessonLanesStepFormKeepsThePage submits a lanes block's no-JavaScript
// step form as a browser would (its inputs, in order, as the query): the
// ring lesson's ?k= and the other block's step survive, and the block's own
// step is the slider's alone; the example the form sits in (and only that
// one) is open on the page it leads to.
func TestLessonLanesStepFormKeepsThePage(t *testing.T) {
	base := lessonsSite(t)
	for _, tt := range []struct {
		page, id, slider string
		want             url.Values
	}{
		{"/lessons/ring-of-buckets?k=10&lanes-1=3", "lanes-1", "5", url.Values{"k": {"10"}, "lanes-1": {"5"}, "open": {"ring-k10"}}},
		{"/lessons/where-they-disagree?lanes-1=2&lanes-2=4", "lanes-2", "1", url.Values{"lanes-1": {"2"}, "lanes-2": {"1"}, "open": {"end-loaded"}}},
	} {
		res := get(t, base+tt.page)
		if res.status != 200 {
			t.Fatalf("GET %s: status %d", tt.page, res.status)
		}
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(res.body))
		if err != nil {
			t.Fatal(err)
		}
		form := doc.Find("#" + tt.id + ` form[data-testid="lane-steps"]`)
		sent := url.Values{}
		form.Find("input[name]").Each(func(_ int, s *goquery.Selection) {
			v := s.AttrOr("value", "")
			if s.AttrOr("type", "") == "range" {
				v = tt.slider
			}
			sent.Add(s.AttrOr("name", ""), v)
		})
		if sent.Encode() != tt.want.Encode() {
			t.Errorf("%s %s: the step form sends %q, want %q", tt.page, tt.id, sent.Encode(), tt.want.Encode())
		}
		next := get(t, base+"/lessons/"+strings.TrimPrefix(strings.SplitN(tt.page, "?", 2)[0], "/lessons/")+"?"+sent.Encode())
		if next.status != 200 || !strings.Contains(next.body, "Step "+tt.slider+" of") {
			t.Errorf("submitting %s's form: status %d, no step %s", tt.id, next.status, tt.slider)
		}
		open := regexp.MustCompile(`data-predict-reveal="([a-z0-9-]+)" data-testid="predict-reveal" open>`).FindAllStringSubmatch(next.body, -1)
		if len(open) != 1 || open[0][1] != tt.want.Get("open") {
			t.Errorf("submitting %s's form: examples open %v, want only %s", tt.id, open, tt.want.Get("open"))
		}
	}
}

// TestLessonLanesWholeTable reaches the whole scenario as a table without
// JavaScript, from the link inside "As a table", and as the fragment the
// same link fetches with it; stepping with the table open keeps it open.
func TestLessonLanesWholeTable(t *testing.T) {
	base := lessonsSite(t)
	res := get(t, base+"/lessons/fixed-window")
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(res.body))
	if err != nil {
		t.Fatal(err)
	}
	table := doc.Find(`#lanes-1 details[data-testid="lanes-table"]`)
	if got := table.Find("summary").Text(); got != "As a table (requests 1–6 of 10)" {
		t.Errorf("summary %q", got)
	}
	href, ok := table.Find(`a[data-testid="lanes-table-whole"]`).Attr("href")
	if !ok {
		t.Fatal("no link to the whole scenario as a table")
	}
	for _, path := range []string{"/lessons/fixed-window" + href, "/lessons/fixed-window/lanes/lanes-1/6?lanes-1-table=open"} {
		res := get(t, base+strings.Split(path, "#")[0])
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(strings.ReplaceAll(res.body, "data: fragments ", "")))
		if err != nil {
			t.Fatal(err)
		}
		d := doc.Find(`#lanes-1-as-table`)
		if _, open := d.Attr("open"); res.status != 200 || !open {
			t.Errorf("GET %s: status %d, table open = %v", path, res.status, open)
		}
		if want := map[bool]int{true: 10, false: 6}[strings.Contains(path, "lanes-1=10")]; d.Find("tbody tr").Length() != want {
			t.Errorf("GET %s: %d rows, want %d", path, d.Find("tbody tr").Length(), want)
		}
	}
	// Datastar's signals come as ?datastar=; the block's links and step form
	// rebuild the page's address, which never had them.
	if res := get(t, base+"/lessons/fixed-window/lanes/lanes-1/6?lanes-1-table=open&datastar=%7B%7D"); res.status != 200 || strings.Contains(res.body, "datastar=") || strings.Contains(res.body, `name="datastar"`) {
		t.Errorf("a fetch's signals leak into the block's links: status %d, %.300s", res.status, res.body)
	}
	if res := get(t, base+"/lessons/fixed-window/lanes/lanes-1/6?lanes-1-table=shut"); res.status != 400 || !strings.Contains(res.body, `As a table: “shut” is neither open nor closed`) {
		t.Errorf("a table state it cannot read: status %d, %.200s", res.status, res.body)
	}
	if res := get(t, base+"/lessons/fixed-window?lanes-1-table=shut"); res.status != 400 {
		t.Errorf("a table state it cannot read in the page's address: status %d", res.status)
	}
}

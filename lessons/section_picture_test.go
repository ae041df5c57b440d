package lessons

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/windowlab/playground/scenario"
)

// A section's picture and the words after it are one group: paragraphs,
// lists and plain code join it; a table's caption, a block the lesson
// computes and the next heading end it. A picture whose words would leave
// blank space beside it is drawn above them.
func TestSectionOpeningGroupsItsWords(t *testing.T) {
	lib, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	const pic = "```picture\n" + `{"caption": "%s", "scenario": {"limit": 2, "windowMs": 10000, "policies": ["fixed-window", "sliding-log"], "requests": [{"at": 0, "count": 3}, {"at": 5000}]}, "policies": ["fixed-window"%s]}` + "\n```\n\n"
	long := strings.Repeat("A sentence of words about the picture beside them. ", 20)
	body := "## One\n\n" + strings.Replace(strings.Replace(pic, "%s", "one", 1), "%s", "", 1) + "Short words.\n\n- a list\n- of two\n\n```text\ncode\n```\n\nTable: a table\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n" +
		"## Two\n\n" + strings.Replace(strings.Replace(pic, "%s", "two", 1), "%s", `, "sliding-log"`, 1) + long + "\n\n" + long + "\n\n" + long + "\n\n## Three\n\n" +
		strings.Replace(strings.Replace(pic, "%s", "three", 1), "%s", `, "sliding-log"`, 1) + "Short words again.\n\n## Four\n"
	r, err := lib.Render(&Lesson{Slug: "test", File: "test.md", Body: body}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Problems) > 0 {
		t.Fatalf("problems: %v", r.Problems)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(r.HTML)))
	if err != nil {
		t.Fatal(err)
	}
	opens := doc.Find("body > .section-open")
	if opens.Length() != 3 {
		t.Fatalf("%d section openings, want 3", opens.Length())
	}
	for i, tt := range []struct {
		words  []string // the words' elements, in order
		beside bool
	}{
		{[]string{"p", "ul", "pre"}, false},
		{[]string{"p", "p", "p"}, true},
		{[]string{"p"}, false},
	} {
		o := opens.Eq(i)
		if !o.Children().First().Is(`figure.section-picture`) {
			t.Errorf("opening %d does not start with its picture", i+1)
		}
		var got []string
		o.Find(".section-words").Children().Each(func(_ int, s *goquery.Selection) { got = append(got, goquery.NodeName(s)) })
		if strings.Join(got, " ") != strings.Join(tt.words, " ") {
			t.Errorf("opening %d: words %v, want %v", i+1, got, tt.words)
		}
		if beside := o.Find(".section-picture-beside").Length() == 1; beside != tt.beside {
			t.Errorf("opening %d: drawn beside its words = %t, want %t", i+1, beside, tt.beside)
		}
	}
	if next := opens.Eq(0).Next(); !next.Is("table.prose-table") || next.Find("caption").Text() != "a table" {
		t.Errorf("the first opening is followed by <%s class=%q>, want the table with its caption, outside it", goquery.NodeName(next), next.AttrOr("class", ""))
	}
}

// What the reader reads pointing at an instant: every lane's decisions
// there, as the policies made them.
func TestPictureInstantsSayEachLanesDecisions(t *testing.T) {
	s, err := scenario.Parse([]byte(`{"limit": 2, "windowMs": 10000, "policies": ["fixed-window", "sliding-log"], "requests": [{"at": 1000}, {"at": 4000, "count": 3}, {"at": 10000}]}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := scenario.Run(s)
	if err != nil {
		t.Fatal(err)
	}
	want := []pictureInstant{
		{At: 1000, First: 0, Last: 0, Text: "At 1 s, the request: fixed-window admits it; sliding-log admits it."},
		{At: 4000, First: 1, Last: 3, Text: "At 4 s, 3 requests: fixed-window admits 1, refuses 2; sliding-log admits 1, refuses 2."},
		{At: 10000, First: 4, Last: 4, Text: "At 10 s, the request: fixed-window admits it; sliding-log refuses it."},
	}
	got := pictureInstants(res)
	if len(got) != len(want) {
		t.Fatalf("%d instants, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("instant %d: %+v, want %+v", i+1, got[i], want[i])
		}
	}
}

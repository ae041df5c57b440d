package lessons

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/PuerkitoBio/goquery"
)

// predictLib is a library of one lesson with the body given, and the car
// park as its shared scenario.
func predictLib(t *testing.T, body string) (*Library, *Lesson) {
	t.Helper()
	lib, err := LoadFS(fstest.MapFS{
		"01-test.md":              {Data: []byte("---\ntitle: Test\nsummary: s\n---\n" + body)},
		"scenarios/car-park.json": {Data: []byte(`{"limit": 5, "windowMs": 30000, "requests": [{"at": 0}, {"at": 5000, "count": 2}, {"at": 15000, "count": 2}, {"at": 25000}, {"at": 35000}, {"at": 40000, "count": 3}]}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return lib, lib.Lessons[0]
}

const carPark35 = "```predict\n" + `{"id": "car-35", "scenario": "car-park", "policy": "sliding-counter/exact", "ask": "outcome", "at": "35 s", "question": "Is the car at 35 s admitted?"}` + "\n```\n"

func TestPredictBlockGuardsTheExampleBelowIt(t *testing.T) {
	lib, l := predictLib(t, "Before.\n\n"+carPark35+"\n```scenario-table\n"+`{"caption": "the car park", "scenario": "car-park", "policies": ["sliding-counter/exact"]}`+"\n```\n\nAfter the table.\n\n```predict-end\n```\n\nOutside.\n")
	r, err := lib.Render(l, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Problems {
		t.Error(p)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(r.HTML)))
	if err != nil {
		t.Fatal(err)
	}
	block := doc.Find(`[data-testid="predict"]`)
	if got := block.Find("form").AttrOr("action", ""); got != "/lessons/test/predictions/car-35" {
		t.Errorf("the form posts to %q", got)
	}
	if got := block.Find("legend").Text(); got != "Is the car at 35 s admitted?" {
		t.Errorf("question %q", got)
	}
	if n := block.Find(`input[type="radio"]`).Length(); n != 2 {
		t.Errorf("%d radio buttons for admitted or refused, want 2", n)
	}
	// The block holds no answer: "refused" is one of the two choices, so
	// look for it anywhere but in the choices' labels.
	block.Find("label").Remove()
	if text := block.Text(); strings.Contains(text, "refused") || strings.Contains(text, "4.17") {
		t.Errorf("the block gives the answer away: %q", text)
	}
	reveal := block.Next()
	if !reveal.Is(`details[data-predict-reveal="car-35"]`) {
		t.Fatalf("the block is followed by %s, want its closed example", goquery.NodeName(reveal))
	}
	if _, open := reveal.Attr("open"); open {
		t.Error("the example is open before any prediction")
	}
	if reveal.Find(`[data-testid="live-table"]`).Length() != 1 || !strings.Contains(reveal.Text(), "After the table.") {
		t.Errorf("the example should hold the table and the prose up to predict-end: %q", reveal.Text())
	}
	if strings.Contains(reveal.Text(), "Outside.") {
		t.Error("the example runs past its predict-end")
	}
	if len(r.Predictions) != 1 || r.Predictions[0].ID != "car-35" {
		t.Fatalf("Predictions = %v", r.Predictions)
	}
	ps, err := lib.Predictions(l)
	if err != nil || len(ps) != 1 || ps[0].ID != "car-35" {
		t.Fatalf("Predictions(l) = %v, %v; want the one Render found", ps, err)
	}
	fb, err := ps[0].Exercise.Instance(0).Check("admitted", nil)
	if err != nil || !fb.Readable || fb.Correct || fb.Right != "refused" {
		t.Errorf("checking \"admitted\": %+v, %v; want a readable wrong answer, refused", fb, err)
	}
}

func TestPredictBlockProblems(t *testing.T) {
	for _, tt := range []struct {
		name string
		body string
		want string
	}{
		{"never closed", carPark35 + "\ntext\n", "never closed"},
		{"end without start", "```predict-end\n```\n", "no ```predict block above it"},
		{"nested", carPark35 + "\n" + strings.Replace(carPark35, "car-35", "car-36", 1) + "\n```predict-end\n```\n", "inside the example"},
		{"unknown exercise", "```predict\n{\"exercise\": \"nope\"}\n```\n\n```predict-end\n```\n", "exercise \"nope\""},
		{"exercise and more", "```predict\n{\"exercise\": \"x\", \"ask\": \"count\"}\n```\n\n```predict-end\n```\n", "takes nothing else"},
		{"a title", "```predict\n{\"title\": \"t\", \"question\": \"q\", \"scenario\": \"car-park\", \"policy\": \"fixed-window\", \"ask\": \"count\"}\n```\n\n```predict-end\n```\n", "title: a prediction takes its question"},
		{"bad kind", "```predict\n{\"question\": \"q\", \"scenario\": \"car-park\", \"policy\": \"fixed-window\", \"ask\": \"guess\"}\n```\n\n```predict-end\n```\n", "ask: \"guess\""},
		{"unknown scenario", "```predict\n{\"question\": \"q\", \"scenario\": \"nope\", \"policy\": \"fixed-window\", \"ask\": \"count\"}\n```\n\n```predict-end\n```\n", "no scenario named \"nope\""},
		{"not JSON", "```predict\n{\n```\n\n```predict-end\n```\n", "reading the block's JSON"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lib, l := predictLib(t, tt.body)
			r, err := lib.Render(l, nil)
			if err != nil {
				t.Fatal(err)
			}
			var all []string
			for _, p := range r.Problems {
				all = append(all, p.What)
			}
			if !strings.Contains(strings.Join(all, "\n"), tt.want) {
				t.Errorf("problems %q, want one saying %q", all, tt.want)
			}
			if opened, closed := strings.Count(string(r.HTML), "<details"), strings.Count(string(r.HTML), "</details>"); opened != closed {
				t.Errorf("%d <details> opened and %d closed: the page's HTML is unbalanced", opened, closed)
			}
		})
	}
}

func TestTwoPredictionsWithOneID(t *testing.T) {
	lib, l := predictLib(t, carPark35+"\n```predict-end\n```\n\n"+carPark35+"\n```predict-end\n```\n")
	if _, err := lib.Predictions(l); err == nil || !strings.Contains(err.Error(), "a second prediction with id \"car-35\"") {
		t.Errorf("Predictions: %v, want an error naming the repeated id", err)
	}
}

func TestPredictionHintNeverUsesTheAnswer(t *testing.T) {
	for _, at := range []string{"12 s", "17 s", "40 s"} {
		body := "```predict\n" + `{"scenario": "car-park", "policy": "fixed-window", "ask": "first-admit", "at": "` + at + `", "question": "When?"}` + "\n```\n\n```predict-end\n```\n"
		lib, l := predictLib(t, body)
		ps, err := lib.Predictions(l)
		if err != nil {
			t.Fatal(err)
		}
		in := ps[0].Exercise.Instance(0)
		sol, err := in.Solve()
		if err != nil {
			t.Fatal(err)
		}
		answer := sol.Text() // "30 s"
		if hint := PredictionHint(in, sol); strings.Contains(hint, answer) || strings.Contains(hint, strings.TrimSuffix(answer, " s")+"000 ms") {
			t.Errorf("at %s: the hint %q uses the answer %s", at, hint, answer)
		}
	}
}

// TestOnlyTheExampleAVisitorWasInStaysOpen: a link or form inside an
// example names its prediction in ?open=, so the page it leads to opens
// that example and no other: stepping through one example's lanes, or
// changing a widget in it, must not show the next example's answer.
func TestOnlyTheExampleAVisitorWasInStaysOpen(t *testing.T) {
	second := "```predict\n" + `{"id": "car-40", "scenario": "car-park", "policy": "sliding-counter/exact", "ask": "outcome", "at": "40 s", "question": "Is the first car at 40 s admitted?"}` + "\n```\n"
	lib, l := predictLib(t, carPark35+
		"\n```lanes\n"+`{"caption": "first", "scenario": "car-park", "policies": ["sliding-counter/exact"], "step": 3}`+"\n```\n"+
		"\n```memory-calculator\n{\"limit\": 100, \"keys\": 10, \"policies\": [\"fixed-window\"]}\n```\n\n```predict-end\n```\n\n"+
		second+"\n```lanes\n"+`{"caption": "second", "scenario": "car-park", "policies": ["sliding-counter/exact"]}`+"\n```\n\n```predict-end\n```\n")
	opened := func(t *testing.T, in url.Values) (first, second bool, html string) {
		t.Helper()
		r, err := lib.Render(l, in)
		if err != nil {
			t.Fatal(err)
		}
		html = string(r.HTML)
		return strings.Contains(html, `data-predict-reveal="car-35" data-testid="predict-reveal" open>`),
			strings.Contains(html, `data-predict-reveal="car-40" data-testid="predict-reveal" open>`), html
	}
	for _, tt := range []struct {
		name          string
		in            url.Values
		first, second bool
	}{
		{"no query", nil, false, false},
		{"a lanes step alone", url.Values{"lanes-1": {"4"}}, false, false},
		{"a widget's input alone", url.Values{"limit": {"7"}}, false, false},
		{"the first example named", url.Values{"lanes-1": {"4"}, "open": {"car-35"}}, true, false},
		{"both named", url.Values{"open": {"car-35", "car-40"}}, true, true},
	} {
		first, second, _ := opened(t, tt.in)
		if first != tt.first || second != tt.second {
			t.Errorf("%s (%v): first example open %v, second %v; want %v, %v", tt.name, tt.in, first, second, tt.first, tt.second)
		}
	}
	// What the first example's controls carry: its own prediction only.
	_, _, html := opened(t, nil)
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(html))
	if err != nil {
		t.Fatal(err)
	}
	next, _ := doc.Find("#lanes-1-next").Attr("href")
	if q, err := url.ParseQuery(strings.TrimPrefix(strings.SplitN(next, "#", 2)[0], "?")); err != nil || !slices.Equal(q["open"], []string{"car-35"}) {
		t.Errorf("the first lanes' Next link %q carries open=%v, want [car-35]", next, q["open"])
	}
	if v, ok := doc.Find(`#memory input[type=hidden][name=open]`).Attr("value"); !ok || v != "car-35" {
		t.Errorf("the memory calculator's form keeps open=%q (present %v), want car-35", v, ok)
	}
	next2, _ := doc.Find("#lanes-2-first").Attr("href")
	if q, _ := url.ParseQuery(strings.TrimPrefix(strings.SplitN(next2, "#", 2)[0], "?")); !slices.Equal(q["open"], []string{"car-40"}) {
		t.Errorf("the second lanes' Start link %q carries open=%v, want [car-40]", next2, q["open"])
	}
}

// A crafted link naming the same example hundreds of times, or hundreds of
// examples, does not make every step link on the page carry them all: the
// page's links hold its open values each once, at most maxOpen.
func TestLinksCarryAtMostMaxOpenExamples(t *testing.T) {
	lib, l := predictLib(t, carPark35+
		"\n```lanes\n"+`{"caption": "first", "scenario": "car-park", "policies": ["sliding-counter/exact"], "step": 3}`+"\n```\n\n```predict-end\n```\n")
	in := url.Values{"open": {"car-35"}}
	for i := range 200 {
		in.Add("open", fmt.Sprintf("made-up-%d", i))
		in.Add("open", "car-35")
	}
	r, err := lib.Render(l, in)
	if err != nil {
		t.Fatal(err)
	}
	html := string(r.HTML)
	if n := strings.Count(html, "made-up-199"); n != 0 {
		t.Errorf("the 200th made-up id appears %d times; only the first %d open values are kept", n, maxOpen)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(html))
	if err != nil {
		t.Fatal(err)
	}
	links := 0
	doc.Find(`a[href*="open="]`).Each(func(_ int, a *goquery.Selection) {
		links++
		href, _ := a.Attr("href")
		u, err := url.Parse(href)
		if err != nil {
			t.Fatal(err)
		}
		open := u.Query()["open"]
		if len(open) > maxOpen {
			t.Errorf("link %.60s… carries %d open values, want at most %d", href, len(open), maxOpen)
		}
		if n := strings.Count(strings.Join(open, " "), "car-35"); n != 1 {
			t.Errorf("link %.60s… names car-35 %d times, want once", href, n)
		}
	})
	if links == 0 {
		t.Fatal("no link with open= on the page: nothing was checked")
	}
}

// A carried claim asks the policy what part of an older window it still
// counts, so a ring's oldest bucket answers too, and a policy that counts
// none says so by its name rather than by a list of the ones that do.
// By hand, at 35 s on the car park: the counter's previous window (0 to
// 30 s) admitted 5 and the window still covers 25 of its 30 s, 5 × 25/30
// = 25/6, written 4.17; the ring's buckets are 5 s wide, and 35 s opens a bucket, so the
// oldest one (5 to 10 s, the 2 cars at 5 s) is still wholly inside: 2.
func TestCarriedAsksThePolicy(t *testing.T) {
	for _, tt := range []struct {
		claim, want string
	}{
		{"carried sliding-counter/exact car-park at 35s", "4.17"},
		{"carried sliding-buckets/6 car-park at 35s", "2"},
		{"carried fixed-window car-park at 35s", "carried: the fixed window counts no part of an older window"},
	} {
		if got := computedClaim(t, tt.claim); got != tt.want {
			t.Errorf("{{%s}} = %q, want %q", tt.claim, got, tt.want)
		}
	}
}

package templates

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"

	"github.com/windowlab/playground/play"
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

type fakeAssets map[string]string

func (f fakeAssets) URL(name string) string { return f[name] }

func TestLayout(t *testing.T) {
	body := templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		_, err := io.WriteString(w, `<p data-testid="child">hello</p>`)
		return err
	})
	p := Page{
		Title:   "Playground",
		Section: SectionPlay,
		Assets:  fakeAssets{"app.css": "/static/app.1234abcd.css", "datastar.js": "/static/datastar.5678ef90.js"},
		Version: "v1.2.3",
		Path:    "/play",
	}
	doc := render(t, templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		return Layout(p).Render(templ.WithChildren(ctx, body), w)
	}))

	if got := doc.Find("html").AttrOr("lang", ""); got != "en" {
		t.Errorf(`<html lang> = %q, want "en"`, got)
	}
	if got := doc.Find(`meta[name="viewport"]`).Length(); got != 1 {
		t.Errorf("%d viewport meta elements, want 1", got)
	}
	if got := doc.Find("title").Text(); got != "Playground · "+SiteName {
		t.Errorf("title = %q", got)
	}
	if got := doc.Find(`link[rel="stylesheet"]`).AttrOr("href", ""); got != "/static/app.1234abcd.css" {
		t.Errorf("stylesheet href = %q", got)
	}
	script := doc.Find(`script[src*="datastar"]`)
	if got := script.AttrOr("src", ""); got != "/static/datastar.5678ef90.js" || script.AttrOr("type", "") != "module" {
		t.Errorf("script = src %q type %q, want the hashed bundle as a module", got, script.AttrOr("type", ""))
	}
	if got := doc.Find("a.skip-link").AttrOr("href", ""); got != "#main" {
		t.Errorf("skip link href = %q", got)
	}
	if doc.Find("main#main").Find(`[data-testid="child"]`).Length() != 1 {
		t.Error("children are not inside <main id=main>")
	}
	nav := map[string]string{"nav-lessons": "/lessons", "nav-play": "/play", "nav-exercises": "/exercises"}
	for id, href := range nav {
		a := doc.Find(`[data-testid="` + id + `"]`)
		if got := a.AttrOr("href", ""); got != href {
			t.Errorf("%s href = %q, want %q", id, got, href)
		}
		current, has := a.Attr("aria-current")
		if wantCurrent := href == "/play"; has != wantCurrent || (has && current != "page") {
			t.Errorf("%s aria-current = %q (present %v), want present only on the current section", id, current, has)
		}
	}
	if got := doc.Find(`[data-testid="version"]`).Text(); got != "v1.2.3" {
		t.Errorf("footer version = %q", got)
	}
	live := doc.Find(`[data-testid="live-status"]`)
	if !strings.HasPrefix(live.Text(), "Not live: ") || !strings.HasPrefix(live.AttrOr("data-text", ""), "'Live: ") {
		t.Errorf("live status = %q, data-text %q: want 'Not live: ' in HTML and 'Live: ' in a data-text for Datastar", live.Text(), live.AttrOr("data-text", ""))
	}
	if got := doc.Find(`[data-testid="presentation-toggle"]`).AttrOr("href", ""); got != "/play?present=1" {
		t.Errorf("presentation toggle href = %q", got)
	}
	if doc.Find("body").HasClass("presentation") {
		t.Error("presentation class without Presentation")
	}
}

func TestLayoutPresentation(t *testing.T) {
	doc := render(t, Home(Page{Presentation: true, Path: "/"}, HomePicture{}))
	if !doc.Find("body").HasClass("presentation") {
		t.Error("no presentation class on <body>")
	}
	if got := doc.Find(`[data-testid="presentation-toggle"]`).AttrOr("href", ""); got != "/" {
		t.Errorf("toggle href = %q, want the page without ?present", got)
	}
	// Without Assets the layout still links the files by plain name.
	if got := doc.Find(`link[rel="stylesheet"]`).AttrOr("href", ""); got != "/static/app.css" {
		t.Errorf("stylesheet href = %q", got)
	}
}

func TestHomeLinksToTheThreeParts(t *testing.T) {
	pic, err := Picture()
	if err != nil {
		t.Fatal(err)
	}
	doc := render(t, Home(Page{}, pic))
	for id, href := range map[string]string{"home-lessons": "/lessons", "home-present": "/play#start-room", "home-play": "/play", "home-exercises": "/exercises"} {
		if got := doc.Find(`[data-testid="`+id+`"]`).AttrOr("href", ""); got != href {
			t.Errorf("%s href = %q, want %q", id, got, href)
		}
	}
	// The picture is the policies' own replay: frame 0 before any request,
	// one frame a request, only the last (every decision) shown without
	// scripts, and a caption with the counts the policies computed.
	frames := doc.Find(`[data-testid="home-frame"]`)
	if frames.Length() != len(homeBurst.Requests)+1 {
		t.Errorf("%d frames, want one before the first request and one a request (%d)", frames.Length(), len(homeBurst.Requests)+1)
	}
	if n := frames.Not("[hidden]").Length(); n != 1 || frames.Last().AttrOr("hidden", "x") != "x" {
		t.Errorf("%d frames shown without scripts, want only the last", n)
	}
	if n := frames.Last().Find(`[data-testid="lane"]`).Length(); n != 2 {
		t.Errorf("the last frame draws %d lanes, want the fixed window and the sliding log", n)
	}
	if got := doc.Find(`#home-picture-caption`).Text(); !strings.Contains(got, "fixed window lets 10 through") || !strings.Contains(got, "sliding log lets 5") {
		t.Errorf("caption %q, want the fixed window's 10 and the sliding log's 5", got)
	}
	// The lede counts the lanes a new playground opens with (it once typed
	// "seven" while the registry grew).
	want := NumberWord(len(play.DefaultScenario().Policies)) + " policies answering it"
	if got := strings.Join(strings.Fields(doc.Find(".lede").Text()), " "); !strings.Contains(got, want) {
		t.Errorf("lede %q, want it to say %q", got, want)
	}
}

func TestPresentationToggle(t *testing.T) {
	tests := []struct {
		path    string
		present bool
		want    string
	}{
		{"/play?s=abc", false, "/play?present=1&s=abc"},
		{"/play?present=1&s=abc", true, "/play?s=abc"},
		{"/lessons/fixed-window", false, "/lessons/fixed-window?present=1"},
		// Anything but a local path stays on the site.
		{"", false, "/?present=1"},
		{"//evil.example", false, "/?present=1"},
		{"javascript:alert(1)", false, "/?present=1"},
		// A value repeated is carried once.
		{"/lessons/fixed-window?open=a&open=b&open=a", false, "/lessons/fixed-window?open=a&open=b&present=1"},
	}
	for _, tt := range tests {
		if got := (Page{Path: tt.path, Presentation: tt.present}).PresentationToggle(); got != tt.want {
			t.Errorf("Page{Path: %q, Presentation: %v}.PresentationToggle() = %q, want %q", tt.path, tt.present, got, tt.want)
		}
	}
}

// A crafted query of thousands of values is not printed back in the
// footer of the page: the toggle carries at most maxToggleValues of a name.
func TestPresentationToggleIsBounded(t *testing.T) {
	q := url.Values{}
	for i := range 3000 {
		q.Add("open", fmt.Sprintf("x%d", i))
	}
	got := (Page{Path: "/lessons/fixed-window?" + q.Encode()}).PresentationToggle()
	u, err := url.Parse(got)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(u.Query()["open"]); n != maxToggleValues {
		t.Errorf("the toggle carries %d open values, want %d (%d bytes)", n, maxToggleValues, len(got))
	}
}

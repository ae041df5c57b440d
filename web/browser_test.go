package web

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/a-h/templ"
	"github.com/chromedp/chromedp"
	"github.com/go-chi/chi/v5"
	"github.com/starfederation/datastar-go/datastar"

	"github.com/windowlab/playground/internal/browsertest"
	"github.com/windowlab/playground/web/templates"
)

// TestBrowserHomeIsLiveUnderCSP opens the home page in Chromium: Datastar must
// load and evaluate the footer's data-text under the site's
// Content-Security-Policy, and the header navigation must lead to a page in
// the same layout. (Until the lessons feature is added, /lessons is the 404
// page: the console's report of that one status is expected.)
func TestBrowserHomeIsLiveUnderCSP(t *testing.T) {
	_, url, _ := newTestServer(t)
	tab := browsertest.NewTab(t)

	tab.Do(chromedp.Navigate(url + "/"))
	tab.WaitText(`[data-testid="live-status"]`, "Live: buttons and pictures answer in place")
	if got := tab.Text("h1"); got != "See how rate limiters decide" {
		t.Errorf("h1 = %q", got)
	}

	tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="nav-lessons"]`)))
	tab.WaitText(`[data-testid="site-footer"]`, "version test-version")
	if loc := browsertest.Run(tab, chromedp.Location()); loc != url+"/lessons" {
		t.Errorf("after clicking Lessons the tab is at %q", loc)
	}
	tab.WaitText(`[data-testid="live-status"]`, "Live: buttons and pictures answer in place")
	for _, m := range tab.Console() {
		if (m.Type == chromedp.ConsoleError || m.IsException()) && m.URL != url+"/lessons" {
			t.Errorf("browser console: %s (%s)", m, m.URL)
		}
	}
}

// TestBrowserPhoneWidth checks that the home page fits a 360 px wide phone
// without sideways scrolling.
func TestBrowserPhoneWidth(t *testing.T) {
	_, url, _ := newTestServer(t)
	tab := browsertest.NewTab(t)
	tab.Do(
		chromedp.EmulateViewport(360, 740),
		chromedp.Navigate(url+"/"),
	)
	tab.WaitText(`[data-testid="live-status"]`, "on")
	width := browsertest.Run(tab, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
	if width > 360 {
		t.Errorf("page is %d px wide on a 360 px screen", width)
	}
	tab.NoProblems()
}

// sseDemo is a test feature: a page whose button asks for a stream that uses
// every part of the SSE adapter that works under the site's CSP.
var sseDemo = FeatureFunc(func(s *Server, r chi.Router) error {
	r.Get("/test/sse", func(w http.ResponseWriter, r *http.Request) {
		body := templ.Raw(`<div data-signals="{count: 0, note: ''}">
  <button id="go" data-on-click="@post('/test/sse')">Go</button>
  <p id="count" data-text="'count ' + $count">count ?</p>
  <p id="note" data-text="$note"></p>
  <ul id="list"><li>first</li></ul>
  <p id="doomed">remove me</p>
  <div id="target">old</div>
</div>`)
		page := templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
			return templates.Layout(s.Page(r, "SSE test", templates.SectionNone)).Render(templ.WithChildren(ctx, body), w)
		})
		s.Render(w, r, http.StatusOK, page)
	})
	r.Post("/test/sse", func(w http.ResponseWriter, r *http.Request) {
		var signals struct {
			Count int `json:"count"`
		}
		if err := datastar.ReadSignals(r, &signals); err != nil { // before NewSSE
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		sse, done := s.NewSSE(w, r)
		defer done()
		_ = MergeFragments(sse, "<div id=\"target\">\n  <strong>new</strong>\n  <em>lines</em>\n</div>")
		_ = MergeFragments(sse, "<li>second</li>", WithSelector("#list"), WithMergeMode(MergeAppend))
		_ = RemoveFragments(sse, "#doomed")
		_ = MergeSignals(sse, []byte(`{"count": `+strconv.Itoa(signals.Count+1)+`, "note": "from server"}`), false)
	})
	return nil
})

// TestBrowserSSEAdapter sends each kind of beta.11 event to the real bundle
// and checks what the page shows.
func TestBrowserSSEAdapter(t *testing.T) {
	_, url, _ := newTestServer(t, sseDemo)
	tab := browsertest.NewTab(t)
	tab.Do(chromedp.Navigate(url + "/test/sse"))
	tab.WaitText("#count", "count 0")

	tab.Do(chromedp.Click(chromedp.CSS("#go")))
	tab.WaitText("#count", "count 1")
	tab.WaitText("#note", "from server")
	if got := tab.Text("#target"); got != "new lines" {
		t.Errorf("#target = %q, want the multi-line fragment's text", got)
	}
	if got := tab.Text("#list"); got != "first second" {
		t.Errorf("#list = %q, want the appended item after the first", got)
	}
	gone := browsertest.Run(tab, chromedp.Evaluate[bool](`document.querySelector("#doomed") === null`))
	if !gone {
		t.Error("#doomed is still there")
	}

	// The signals sent with the second click are those the server merged.
	tab.Do(chromedp.Click(chromedp.CSS("#go")))
	tab.WaitText("#count", "count 2")
	tab.NoProblems()
}

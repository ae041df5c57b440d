package play

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/windowlab/playground/internal/browsertest"
	"github.com/windowlab/playground/internal/webtest"
	"github.com/windowlab/playground/play"
)

// A second browser holding every link the first page shows, and every
// address its buttons post to, cannot change the first page's session:
// each of its posts gets 403 and the first page's lanes stay as they were.
func TestBrowserASecondBrowserCannotDriveTheFirstsSession(t *testing.T) {
	store := play.NewStore(nil)
	_, url, _ := newTestServer(t, Playground(store))
	first := openPlay(t, url+"/play")
	first.Do(chromedp.Click(chromedp.CSS(`[data-testid="fire"]`)))
	waitCount(t, first, 1)
	first.Do(chromedp.Click(chromedp.CSS(`[data-testid="fire"]`)))
	waitCount(t, first, 2)

	id := browsertest.Run(first, chromedp.Evaluate[string](`document.getElementById('play-stream').dataset.session`))
	got, err := store.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("the first page's session %q: %v", id, err)
	}
	sess := webtest.Live(t, store, got)
	links := browsertest.Run(first, chromedp.Evaluate[[]string](`[...document.querySelectorAll('a[href]')].map(a => a.href).filter(h => h.startsWith(location.origin))`))
	exprs := browsertest.Run(first, chromedp.Evaluate[[]string](`[...document.querySelectorAll('*')].flatMap(e => [...e.attributes]).filter(a => a.name.startsWith('data-on-')).map(a => a.value)`))
	var posts []string
	for _, e := range exprs {
		for _, m := range regexp.MustCompile(`@post\('([^']+)'`).FindAllStringSubmatch(e, -1) {
			posts = append(posts, m[1])
		}
	}
	if len(posts) < len(actions)-1 || !strings.Contains(strings.Join(links, " "), id) {
		t.Fatalf("the first page shows %d links and %d actions: want every action and a link naming its session (%v)", len(links), len(posts), links)
	}

	second := browsertest.NewTab(t) // a browser context of its own: no shared cookies
	second.Do(chromedp.Navigate(url + "/"))
	for _, l := range links {
		// Following the link the way a browser does, redirects and all.
		status := browsertest.Run(second, chromedp.Evaluate[int](`fetch(`+jsString(l)+`).then(r => r.status)`, chromedp.EvalAwaitPromise))
		if status >= 500 {
			t.Errorf("the second browser's GET %s: %d", l, status)
		}
	}
	for _, p := range posts {
		status := browsertest.Run(second, chromedp.Evaluate[int](`fetch(`+jsString(p)+`, {method: 'POST', headers: {'Content-Type': 'application/json', 'Datastar-Request': 'true'},
			body: JSON.stringify({cost: 1, burstCount: 5, pattern: 'steady', patternCount: 5, patternSeconds: 5, limit: 1, windowSeconds: 1, useGcra: true, burst: 1, jumpSeconds: 9, speed: '4×', clientName: 'mallory'})}).then(r => r.status)`, chromedp.EvalAwaitPromise))
		if status != 403 {
			t.Errorf("the second browser's POST %s: %d, want 403", p, status)
		}
	}
	v := sess.View()
	if lanes := len(play.DefaultScenario().Policies); v.Total != 2 || v.Clock.Now != 0 || len(v.Lanes) != lanes || len(v.Clients) != 1 || v.Clock.Playing {
		t.Errorf("the first session changed: %d requests, clock %d ms (playing %v), %d lanes, clients %v; want 2 requests at 0 ms, paused, %d lanes, one client",
			v.Total, v.Clock.Now, v.Clock.Playing, len(v.Lanes), v.Clients, lanes)
	}
	// The first browser still drives its own session.
	first.Do(chromedp.Click(chromedp.CSS(`[data-testid="fire"]`)))
	waitCount(t, first, 3)
	first.NoProblems()
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`).Replace(s) + "'"
}

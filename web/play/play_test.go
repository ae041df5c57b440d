package play

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/windowlab/playground/internal/webtest"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web/play/pages"
)

// post posts body to url as the page's Datastar does, from the browser that
// opened each of owners (with its control cookie).
func post(t *testing.T, url, body string, owners ...webtest.Owned) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Datastar-Request", "true")
	for _, o := range owners {
		req.AddCookie(&http.Cookie{Name: ControlCookie, Value: o.ControlToken()})
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: res.StatusCode, header: res.Header, body: string(data)}
}

// sseReader reads events from a stream in the background.
type sseReader struct {
	events chan webtest.Event
	err    error // why the stream ended, once events is closed
}

func openStream(t *testing.T, url string) *sseReader {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("stream: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	r := &sseReader{events: make(chan webtest.Event, 100)}
	go func() {
		defer res.Body.Close()
		defer close(r.events)
		s := webtest.NewEventScanner(res.Body)
		for {
			ev, ok, err := s.Next()
			if err != nil || !ok {
				r.err = err
				return
			}
			r.events <- ev
		}
	}()
	return r
}

// until collects events until one merges an element with the id last.
func (r *sseReader) until(t *testing.T, last string) []webtest.Event {
	t.Helper()
	var out []webtest.Event
	timeout := time.After(5 * time.Second)
	for {
		select {
		case ev, ok := <-r.events:
			if !ok {
				t.Fatalf("stream ended after %d events (%v)", len(out), r.err)
			}
			out = append(out, ev)
			if strings.Contains(strings.Join(ev.Data, "\n"), `id="`+last+`"`) {
				return out
			}
		case <-timeout:
			t.Fatalf("no event for #%s after %d events", last, len(out))
		}
	}
}

// normalise writes events in a stable form: HTML fragments re-serialised
// with sorted attributes, the session id replaced by {id}.
func normalise(t *testing.T, events []webtest.Event, id string) string {
	t.Helper()
	var b strings.Builder
	for _, ev := range events {
		fmt.Fprintf(&b, "event: %s\n", ev.Name)
		var frag []string
		for _, d := range ev.Data {
			if f, ok := strings.CutPrefix(d, "fragments "); ok {
				frag = append(frag, f)
				continue
			}
			fmt.Fprintf(&b, "%s\n", d)
		}
		if frag != nil {
			b.WriteString(normaliseHTML(t, strings.Join(frag, "\n")))
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	return strings.ReplaceAll(b.String(), id, "{id}")
}

func normaliseHTML(t *testing.T, fragment string) string {
	t.Helper()
	ctx := &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}
	nodes, err := html.ParseFragment(strings.NewReader(fragment), ctx)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, n := range nodes {
		sortAttrs(n)
		if err := html.Render(&buf, n); err != nil {
			t.Fatal(err)
		}
	}
	return buf.String()
}

func sortAttrs(n *html.Node) {
	slices.SortFunc(n.Attr, func(a, b html.Attribute) int { return strings.Compare(a.Key, b.Key) })
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		sortAttrs(c)
	}
}

// golden compares got with testdata/<name>/output.txt, writing
// output.actual.txt beside it on a mismatch (or the golden file itself
// when UPDATE_GOLDEN is set).
func golden(t *testing.T, name, got string) {
	t.Helper()
	dir := filepath.Join("testdata", name)
	path := filepath.Join(dir, "output.txt")
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with UPDATE_GOLDEN=1 to create it)", err)
	}
	if string(want) != got {
		actual := filepath.Join(dir, "output.actual.txt")
		_ = os.WriteFile(actual, []byte(got), 0o644)
		t.Errorf("events differ from %s; the actual events are in %s", path, actual)
	}
}

func TestPlayStreamPatchesOnlyWhatAFireChanges(t *testing.T) {
	store := play.NewStore(nil)
	_, url, _ := newTestServer(t, Playground(store))
	sess := webtest.CarParkSession(t, store, 40)
	base := url + "/play/" + sess.ID()
	stream := openStream(t, base+"/stream")
	initial := stream.until(t, "play-share")
	if len(initial) != 1+5+3 {
		t.Errorf("the first render sent %d events, want 9 (the lane list, clock, summary, view bar, clients, overrides, live, explain, share)", len(initial))
	}

	res := post(t, base+"/fire", `{"cost": 1}`, sess)
	if res.status != http.StatusOK {
		t.Fatalf("fire: %d %s", res.status, res.body)
	}
	golden(t, "play-fire-response", normalise(t, webtest.ParseEvents(t, strings.NewReader(res.body)), sess.ID()))
	// The clock did not move and nothing is selected: the clock, the
	// clients and the explanation are not sent again.
	golden(t, "play-fire-stream", normalise(t, stream.until(t, "play-share"), sess.ID()))
}

func TestPlayInvalidSettingsAre400AndChangeNothing(t *testing.T) {
	store := play.NewStore(nil)
	_, url, _ := newTestServer(t, Playground(store))
	sess := webtest.CarParkSession(t, store, 40)
	base := url + "/play/" + sess.ID()
	before := sess.Scenario()
	ok := `"windowSeconds": 30, "useFixedWindow": true, "useSlidingLog": true`
	// The header names the JSON field; the page names it as its label
	// does, with bounds a person can picture.
	for _, c := range []struct{ body, field, shown string }{
		{`{"limit": 0, ` + ok + `}`, "limit", "Limit: 0 is not a whole number from 1 to 10000"},
		{`{"limit": 2.5, ` + ok + `}`, "limit", "Limit: 2.5 is not"},
		{`{"limit": 1e300, ` + ok + `}`, "limit", "Limit: 1e+300 is not"},
		{`{"limit": 5, "windowSeconds": 0, "useFixedWindow": true}`, "windowMs", "Window (s): 0 s is out of range: give from 1 ms to 31622400 s, about 1 year"},
		{`{"limit": 5, "windowSeconds": 30}`, "policies", "policies:"},
		{`{"limit": 5, "windowSeconds": 30, "useSlidingBuckets": true, "buckets": 7}`, "buckets", "k: for sliding-buckets, 7 does not split the 30 s window into equal whole milliseconds; try 6 or 8"},
	} {
		res := post(t, base+"/settings", c.body, sess)
		if res.status != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", c.body, res.status)
		}
		if !strings.Contains(res.header.Get("X-Problem"), c.field+":") || !strings.Contains(res.body, c.shown) {
			t.Errorf("%s: the header does not name %s or the page does not say %q: %q", c.body, c.field, c.shown, res.body)
		}
		if !strings.Contains(res.body, `id="err-settings"`) {
			t.Errorf("%s: no message next to the settings", c.body)
		}
	}
	for _, c := range []struct{ action, body, field string }{
		{"fire", `{"cost": 0}`, "cost"},
		{"burst", `{"cost": 1, "burstCount": 0}`, "count"},
		{"pattern", `{"cost": 1, "patternCount": 5, "pattern": "steady", "patternSeconds": 0}`, "span"},
		{"pattern", `{"cost": 1, "patternCount": 5, "pattern": "zigzag", "patternSeconds": 1}`, "pattern"},
		{"jump", `{"jumpSeconds": -1}`, "at"},
		{"speed", `{"speed": "3×"}`, "speed"},
		{"client/add", `{"clientName": ""}`, "client"},
		{"step?ms=0", `{}`, "step"},
	} {
		res := post(t, base+"/"+c.action, c.body, sess)
		if res.status != http.StatusBadRequest || !strings.Contains(res.header.Get("X-Problem"), c.field+":") {
			t.Errorf("%s %s: %d %q, want 400 naming %s", c.action, c.body, res.status, res.header.Get("X-Problem"), c.field)
		}
	}
	if res := post(t, base+"/jump", `{"jumpSeconds": 1e300}`, sess); !strings.Contains(res.body, "Jump to (s): 1e+300 s is out of range: give from 0 s to 1099511627.776 s, about 35 years") {
		t.Errorf("jump to 1e300 s: the page says %q", res.body)
	}
	// Typed as text, as the page sends it, a number beyond float64 is
	// repeated as typed, not as the +Inf it reads as.
	if res := post(t, base+"/jump", `{"jumpSeconds": "1e400"}`, sess); !strings.Contains(res.body, "Jump to (s): 1e400 s is out of range") {
		t.Errorf("jump to 1e400 s: the page says %q", res.body)
	}
	if res := post(t, base+"/fire", `{"cost": `, sess); res.status != http.StatusBadRequest {
		t.Errorf("malformed signals: %d, want 400", res.status)
	}
	if res := post(t, base+"/fire", `{"cost": 1, "pad": "`+strings.Repeat("x", 20<<10)+`"}`, sess); res.status != http.StatusBadRequest {
		t.Errorf("oversized signals: %d, want 400", res.status)
	}
	if !reflect.DeepEqual(sess.Scenario(), before) {
		t.Error("refused actions changed the scenario")
	}
}

func TestPlayStatusCodes(t *testing.T) {
	store := play.NewStore(nil)
	_, url, _ := newTestServer(t, Playground(store))
	sess := webtest.CarParkSession(t, store, 45)
	link := scenario.EncodeURL(sess.Scenario())
	for _, c := range []struct {
		url    string
		status int
		has    string
	}{
		{"/play", 200, `data-testid="lane"`},
		{link, 200, "10 requests"},
		{"/play?s=not-a-scenario", 400, "the shared link"},
		{"/play?s=" + link[len("/play?s="):len(link)/2], 400, "cut short"},
		{"/play/no-such-session/stream", 404, "session has ended"},
		{"/play/" + sess.ID() + "/decisions.csv", 200, "request,at_ms,key,cost,policy,allowed"},
		{"/play/" + sess.ID() + "/decisions.json", 200, `"results"`},
		{"/play/" + sess.ID() + "/scenario.json", 200, `"windowMs": 30000`},
		{"/play/decisions.csv?" + link[len("/play?"):], 200, "sliding-log"},
		{"/play/decisions.json?s=%7B", 400, "malformed JSON"},
		{"/play/" + sess.ID() + "/link", 200, "10 requests"}, // followed to the link's page
		{"/play/" + sess.ID() + "/link?present=1", 200, `class="presentation"`},
	} {
		res := get(t, url+c.url)
		if res.status != c.status || !strings.Contains(res.body, c.has) {
			t.Errorf("GET %.60s: %d, want %d containing %q", c.url, res.status, c.status, c.has)
		}
	}
	if res := post(t, url+"/play/"+sess.ID()+"/explode", `{}`); res.status != http.StatusNotFound {
		t.Errorf("unknown action: %d, want 404", res.status)
	}
	if res := post(t, url+"/play/nope/fire", `{"cost":1}`); res.status != http.StatusNotFound {
		t.Errorf("unknown session: %d, want 404", res.status)
	}
	// Loading pasted JSON redirects to its link; bad JSON is shown next to the form.
	form := func(text string) response {
		req, _ := http.NewRequest(http.MethodPost, url+"/play/load", strings.NewReader("scenario="+text))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return response{status: res.StatusCode, header: res.Header, body: string(body)}
	}
	if res := form(`{"limit":2,"windowMs":1000,"requests":[{"at":1}]}`); res.status != http.StatusSeeOther || !strings.HasPrefix(res.header.Get("Location"), "/play?s=") {
		t.Errorf("load: %d %q", res.status, res.header.Get("Location"))
	}
	if res := form(`{"limit":0}`); res.status != http.StatusBadRequest || !strings.Contains(res.body, "limit: 0 is out of range") {
		t.Errorf("load of a bad scenario: %d", res.status)
	}
	// A valid scenario larger than a session holds is refused next to the
	// form, its text kept, rather than redirected to a link that fails.
	big := fmt.Sprintf(`{"limit":2,"windowMs":1000,"requests":[{"at":1,"count":%d}]}`, play.MaxRequests+1)
	res := form(strings.ReplaceAll(big, "+", "%2B"))
	if res.status != http.StatusBadRequest || !strings.Contains(res.body, fmt.Sprintf("holds at most %d requests", play.MaxRequests)) ||
		!strings.Contains(res.body, html.EscapeString(big)) {
		t.Errorf("load of %d requests: %d %q, want 400 with the limit and the pasted text", play.MaxRequests+1, res.status, res.header.Get("Location"))
	}
}

// TestPlayLanesMatchRun renders the page for the car park and checks every
// lane's marks against scenario.Run, and the lanes' text alternatives.
func TestPlayLanesMatchRun(t *testing.T) {
	store := play.NewStore(nil)
	sess := webtest.CarParkSession(t, store, 45)
	v := sess.View()
	pp := pages.PlayPage{View: v, Base: "/play/" + v.ID, Share: scenario.EncodeURL(v.Scenario)}
	var buf bytes.Buffer
	if err := pages.PlayPageView(pp).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	want := carParkDefaultLanes(t)
	lanes := doc.Find(`[data-testid="lane"]`)
	if lanes.Length() != len(want.Results) {
		t.Fatalf("%d lanes, want %d", lanes.Length(), len(want.Results))
	}
	lanes.Each(func(i int, lane *goquery.Selection) {
		res := want.Results[i]
		if label, _ := lane.Attr("data-label"); label != res.Label {
			t.Errorf("lane %d is %q, want %q", i, label, res.Label)
		}
		marks := lane.Find(`.mark`)
		if marks.Length() != len(res.Decisions) {
			t.Fatalf("%s: %d marks, want %d", res.Label, marks.Length(), len(res.Decisions))
		}
		marks.Each(func(j int, m *goquery.Selection) {
			allowed := fmt.Sprint(m.HasClass("admitted"))
			shape := "path"
			if res.Decisions[j].Allowed() {
				shape = "circle"
			}
			// A request at the spot of one before it (same instant, level
			// and answer) is drawn by that one's mark, with their count.
			drawn := m.Find(shape).Length() > 0 || m.HasClass("stacked")
			if allowed != fmt.Sprint(res.Decisions[j].Allowed()) || !drawn {
				t.Errorf("%s request %d: allowed=%s, Run says %v (drawn as a %s)", res.Label, j+1, allowed, res.Decisions[j].Allowed(), shape)
			}
		})
		svg := lane.Find("svg")
		if role, _ := svg.Attr("role"); role != "img" || svg.Find("title").Length() == 0 || svg.Find("desc").Length() == 0 {
			t.Errorf("%s: the SVG lacks role=img, a title or a desc", res.Label)
		}
		if !strings.Contains(lane.Find(`[data-testid="lane-status"]`).Text(), "At 45 s:") {
			t.Errorf("%s: status %q", res.Label, lane.Find(`[data-testid="lane-status"]`).Text())
		}
	})
	if live, _ := doc.Find(`[data-testid="live"]`).Attr("aria-live"); live != "polite" {
		t.Error("no aria-live summary")
	}
	if doc.Find(`.disagree`).Length() == 0 {
		t.Error("no request is marked as decided differently")
	}
	// The stream opener sits outside every region the stream replaces.
	opener := doc.Find("#play-stream")
	if opener.Length() != 1 || opener.ParentsFiltered("[id^=lane-], #play-explain, #play-share, #play-clock, #play-summary").Length() != 0 {
		t.Error("#play-stream is missing or inside a replaced region")
	}
}

var _ = errors.New

// TestPlayPageWeight keeps /play, apart from the Datastar bundle, under
// 64 KB: the HTML, the stylesheets, the scripts and the icon it links. (It
// was 50 KB while /play opened with four lanes; it opens with all seven,
// each about 1 KB of drawing and 0.7 KB of key and legend, and the lanes'
// zoom and pan gestures, lane.js, are 2.7 KB.)
// What the page holds closed is sent when opened (the servers form), so
// it weighs nothing here (docs/performance.md has the figure).
func TestPlayPageWeight(t *testing.T) {
	_, url, _ := newTestServer(t, Playground(play.NewStore(nil)))
	res := get(t, url+"/play")
	if res.status != http.StatusOK {
		t.Fatalf("GET /play: %d", res.status)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(res.body))
	if err != nil {
		t.Fatal(err)
	}
	total := len(res.body)
	parts := []string{fmt.Sprintf("html %d", len(res.body))}
	doc.Find(`link[href], script[src]`).Each(func(_ int, s *goquery.Selection) {
		href := s.AttrOr("href", s.AttrOr("src", ""))
		if strings.Contains(href, "datastar") || !strings.HasPrefix(href, "/") {
			return
		}
		r := get(t, url+href)
		total += len(r.body)
		parts = append(parts, fmt.Sprintf("%s %d", href, len(r.body)))
	})
	t.Logf("page weight without Datastar: %d bytes (%s)", total, strings.Join(parts, ", "))
	if total > 64<<10 {
		t.Errorf("/play weighs %d bytes without Datastar, want under 64 KB", total)
	}
}

// TestPlayStreamPlaysAndCloses plays the clock at 16× over a real,
// compressed socket: the page's clock moves on, and closing the stream
// ends the server's work on it (the session loses its subscriber). How
// many updates a second of play sends, and what each reads, is
// TestPlayFeedPacesAPlayingClock's, on a testing/synctest clock.
func TestPlayStreamPlaysAndCloses(t *testing.T) {
	store := play.NewStore(nil)
	_, url, _ := newTestServer(t, Playground(store))
	sess := webtest.CarParkSession(t, store, 40)
	base := url + "/play/" + sess.ID()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/stream", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if !res.Uncompressed {
		t.Error("the stream is not compressed (the client asked for gzip)")
	}
	clocks := make(chan string, 1000)
	go func() {
		defer close(clocks)
		s := webtest.NewEventScanner(res.Body)
		for {
			ev, ok, err := s.Next()
			if err != nil || !ok {
				return // the test cancels the stream at its end
			}
			if html := strings.Join(ev.Data, "\n"); strings.Contains(html, `id="play-clock"`) {
				clocks <- html
			}
		}
	}()
	<-clocks // the first render
	if r := post(t, base+"/speed", `{"speed": "16×"}`, sess); r.status != http.StatusOK {
		t.Fatalf("speed: %d", r.status)
	}
	start := sess.Now()
	if r := post(t, base+"/toggle", `{}`, sess); r.status != http.StatusOK {
		t.Fatalf("toggle: %d", r.status)
	}
	clock := regexp.MustCompile(`data-seconds="([0-9.]+)"`)
	timeout := time.After(5 * time.Second) // bounds the server writing over a real socket
	for moved := false; !moved; {
		select {
		case html, ok := <-clocks:
			if !ok {
				t.Fatal("the stream ended while the clock played")
			}
			if m := clock.FindStringSubmatch(html); m != nil {
				sec, err := strconv.ParseFloat(m[1], 64)
				moved = err == nil && int64(sec*1000) > start
			}
		case <-timeout:
			t.Fatal("no update of a playing clock within 5 s")
		}
	}
	cancel()
	select {
	case <-store.Unwatched(sess.ID()):
	case <-time.After(2 * time.Second): // bounds the server's stream goroutine, which ends with its request
		t.Fatal("the stream's subscription outlived its request by 2 s")
	}
}

// TestPlayScenarioJSONIsWhatSimulateTakes checks that "copy scenario" and
// scenario.json are the JSON the simulate command and POST /api/simulate
// accept, and that adding a client answers with its name as a signal.
func TestPlayScenarioJSONIsWhatSimulateTakes(t *testing.T) {
	store := play.NewStore(nil)
	_, url, _ := newTestServer(t, Playground(store))
	sess := webtest.CarParkSession(t, store, 45)
	base := url + "/play/" + sess.ID()
	res := get(t, base+"/scenario.json")
	sc, err := scenario.Parse([]byte(res.body))
	if err != nil {
		t.Fatalf("scenario.json does not parse: %v", err)
	}
	if !reflect.DeepEqual(sc, sess.Scenario()) {
		t.Errorf("scenario.json reads back as %+v, want %+v", sc, sess.Scenario())
	}
	r := post(t, base+"/client/add", `{"clientName": "alice"}`, sess)
	if r.status != http.StatusOK || !strings.Contains(r.body, `signals {"clientName": ""}`) || sess.View().Client != "alice" {
		t.Errorf("add client: %d %q", r.status, r.body)
	}
	if err := sess.Fire(1); err != nil {
		t.Fatal(err)
	}
	if got := sess.Scenario().Requests; got[len(got)-1].Key != "alice" {
		t.Errorf("the new client's request has key %q", got[len(got)-1].Key)
	}
	// Choosing a client sends its position, not its name.
	if r := post(t, base+"/client?i=0", `{}`, sess); r.status != http.StatusOK || sess.View().Client != "default" {
		t.Errorf("choose client 0: %d, client %q", r.status, sess.View().Client)
	}
	if r := post(t, base+"/client?i=7", `{}`, sess); r.status != http.StatusBadRequest {
		t.Errorf("choose client 7 of 2: %d, want 400", r.status)
	}
}

// TestPlayReconnectRendersEveryLane opens a second stream after the lanes
// changed: its first event replaces the whole list of lanes, so a page
// that reconnects shows exactly the session's lanes.
func TestPlayReconnectRendersEveryLane(t *testing.T) {
	store := play.NewStore(nil)
	_, url, _ := newTestServer(t, Playground(store))
	sess := webtest.CarParkSession(t, store, 40)
	base := url + "/play/" + sess.ID()
	if r := post(t, base+"/settings", `{"limit": 5, "windowSeconds": 30, "useSlidingLog": true, "useGcra": true, "burst": 0}`, sess); r.status != http.StatusOK {
		t.Fatalf("settings: %d %s", r.status, r.header.Get("X-Problem"))
	}
	events := openStream(t, base+"/stream").until(t, "play-share")
	first := strings.Join(events[0].Data, "\n")
	if !strings.Contains(first, `id="play-lane-list"`) || strings.Count(first, `data-testid="lane"`) != 2 {
		t.Errorf("the first event of a new stream is not the list of the 2 lanes: %.200s", first)
	}
}

package playground_test

// These tests hold the lessons and exercises to the policies: every lesson
// renders with no claim that disagrees with a computation, every exercise
// has a computable answer, the seed's "Try it" answers come out under both
// arithmetics, no number in a lesson changes without a test noticing, and
// every internal link on every page answers through the real router.

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/windowlab/playground/exercises"
	"github.com/windowlab/playground/lessons"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web"
	weblessons "github.com/windowlab/playground/web/lessons"
	webplay "github.com/windowlab/playground/web/play"
)

var update = flag.Bool("update", false, "rewrite lessons/testdata/numbers.golden from the lesson files")

func load(t *testing.T) (*lessons.Library, *exercises.Set) {
	t.Helper()
	lib, set, err := weblessons.LoadLessons()
	if err != nil {
		t.Fatal(err)
	}
	return lib, set
}

func TestEveryLessonRendersAndEveryClaimHolds(t *testing.T) {
	lib, set := load(t)
	if got := len(lib.Lessons); got != 8 {
		t.Errorf("%d lessons; want 8", got)
	}
	for _, l := range lib.Lessons {
		r, err := lib.Render(l, nil)
		if err != nil {
			t.Fatalf("%s: %v", l.File, err)
		}
		for _, p := range r.Problems {
			t.Errorf("%s", p)
		}
		if len(r.Claims) == 0 {
			t.Errorf("%s: no checked claims", l.File)
		}
		for _, c := range r.Claims {
			if !c.OK() {
				t.Errorf("%s: claim {{%s}}: file says %q, policies compute %q (%v)", l.File, c.Source, c.Expected, c.Computed, c.Err)
			}
		}
		if len(r.Tables) == 0 {
			t.Errorf("%s: no live table", l.File)
		}
		var ids []string
		for _, e := range set.Exercises {
			if e.Lesson == l.Slug {
				ids = append(ids, e.ID)
			}
		}
		if len(ids) < 2 {
			t.Errorf("%s: %d exercises; want at least 2", l.File, len(ids))
		}
	}
}

// claimPattern finds a claim and the value it states.
var claimPattern = regexp.MustCompile(`\{\{([^{}]*)=\s*([^{}]*?)\s*\}\}`)

// TestChangingAClaimByHandFails changes the stated value of every claim in
// every lesson, one at a time, and checks that rendering reports it.
func TestChangingAClaimByHandFails(t *testing.T) {
	lib, _ := load(t)
	for _, l := range lib.Lessons {
		for _, m := range claimPattern.FindAllStringSubmatchIndex(l.Body, -1) {
			stated := l.Body[m[4]:m[5]]
			changed := tamper(stated)
			copyOf := *l
			copyOf.Body = l.Body[:m[4]] + changed + l.Body[m[5]:]
			r, err := lib.Render(&copyOf, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Problems) == 0 {
				t.Errorf("%s: changing %q to %q in {{%s}} went unnoticed", l.File, stated, changed, l.Body[m[2]:m[3]])
			}
		}
	}
}

// tamper changes a stated value the way a careless edit would.
func tamper(v string) string {
	switch v {
	case "admitted":
		return "refused"
	case "refused":
		return "admitted"
	}
	for i, r := range v {
		if r >= '0' && r <= '9' {
			d := byte('0' + (r-'0'+1)%10)
			return v[:i] + string(d) + v[i+1:]
		}
	}
	return v + "x"
}

var numberPattern = regexp.MustCompile(`\d+(?:[.,]\d+)*`)

// TestNumbersInLessonsAreFrozen lists every number written in the lesson
// files outside claims. A number that depends on a policy must be a claim;
// every other number (a setting, a count of cars in the story) is frozen
// here, so that no number in a lesson changes by hand without a test
// failing. After a deliberate edit, run
//
//	go test -run TestNumbersInLessonsAreFrozen -update .
func TestNumbersInLessonsAreFrozen(t *testing.T) {
	lib, _ := load(t)
	var b strings.Builder
	for _, l := range lib.Lessons {
		body := claimPattern.ReplaceAllString(l.Body, "{{claim}}")
		for i, line := range strings.Split(body, "\n") {
			nums := numberPattern.FindAllString(line, -1)
			if len(nums) > 0 {
				fmt.Fprintf(&b, "%s:%d: %s\n", l.File, i+1, strings.Join(nums, " "))
			}
		}
	}
	golden := filepath.Join("lessons", "testdata", "numbers.golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestNumbersInLessonsAreFrozen -update . to create it)", err)
	}
	got := strings.Split(b.String(), "\n")
	wantLines := strings.Split(string(want), "\n")
	for i := range max(len(got), len(wantLines)) {
		g, w := at(got, i), at(wantLines, i)
		if g != w {
			t.Fatalf("a number in a lesson changed by hand:\n  was  %s\n  now  %s\nA number that depends on a policy must be written as a claim, {{measure policy scenario … = value}}, so it is computed. If this one does not, and the change is deliberate, run\n  go test -run TestNumbersInLessonsAreFrozen -update .", w, g)
		}
	}
}

func at(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(nothing)"
}

func TestEveryExerciseHasAComputedAnswer(t *testing.T) {
	_, set := load(t)
	if len(set.Exercises) < 20 {
		t.Errorf("%d exercises; want at least 20", len(set.Exercises))
	}
	for _, e := range set.Exercises {
		sol, err := e.Instance(0).Solve()
		if err != nil {
			t.Errorf("%s: %v", e.ID, err)
			continue
		}
		if len(sol.Trace) == 0 {
			t.Errorf("%s: no working to show", e.ID)
		}
	}
}

// TestTryItAnswersUnderBothArithmetics checks the seed lesson's three "Try
// it" questions, as exercises, against the answers the seed gives (exact
// arithmetic) and the ones the registry's floor gives.
func TestTryItAnswersUnderBothArithmetics(t *testing.T) {
	_, set := load(t)
	for _, tt := range []struct {
		id   string
		want string
	}{
		{"try-it-1-exact", "refused"},                                 // 0.9 × 5 = 4.5, and 4.5 + 1 > 5
		{"try-it-1-floor", "admitted"},                                // ⌊4.5⌋ = 4, and 4 + 1 = 5
		{"try-it-2-exact", "36 s"},                                    // x ≥ 0.2 of the window
		{"try-it-2-floor", "30.001 s"},                                // one millisecond into the window
		{"try-it-3-exact", "sliding log"},                             // the log admits, the counter refuses
		{"try-it-3-floor", "sliding log and sliding counter (floor)"}, // both admit
	} {
		e := set.Get(tt.id)
		if e == nil {
			t.Errorf("no exercise %s", tt.id)
			continue
		}
		sol, err := e.Instance(0).Solve()
		if err != nil {
			t.Errorf("%s: %v", tt.id, err)
			continue
		}
		if got := sol.Text(); got != tt.want {
			t.Errorf("%s: computed %q, the seed's answer is %q", tt.id, got, tt.want)
		}
	}
	// The explanation for the first question: the exact estimate at 33 s is 4.5.
	in := set.Get("try-it-1-exact").Instance(0)
	fb, err := in.Check("refused", nil)
	if err != nil || !fb.Correct || !strings.Contains(fb.Solution.Trace[0].Working, "= 4.5 carried") {
		t.Errorf("try-it-1-exact: feedback %+v, %v; want the working to show 4.5 carried", fb, err)
	}
}

func TestBoundaryBurstUnderTheReferenceConfiguration(t *testing.T) {
	lib, _ := load(t)
	s, err := lib.Scenario("boundary-burst")
	if err != nil {
		t.Fatal(err)
	}
	if s.Limit != 100 || s.WindowMs != 1000 {
		t.Fatalf("boundary-burst runs at %d per %d ms; the reference configuration is 100 per second", s.Limit, s.WindowMs)
	}
	res, err := scenario.Run(s)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"fixed-window": 200, "sliding-log": 100, "sliding-counter (floor)": 101}
	for _, p := range res.Results {
		if n, ok := want[p.Label]; ok && p.Admitted != n {
			t.Errorf("%s admits %d of the straddling burst; the seed says %d", p.Label, p.Admitted, n)
		}
	}
}

// site is the real router with the lessons, exercises and playground.
func site(t *testing.T) *httptest.Server {
	t.Helper()
	lib, set := load(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := web.New(web.Config{Features: []web.Feature{
		webplay.Playground(play.NewStore(time.Now)),
		weblessons.Lessons(lib, set),
	}}, log)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv
}

func fetch(t *testing.T, client *http.Client, method, u string, form url.Values) (int, string) {
	t.Helper()
	var res *http.Response
	var err error
	if method == http.MethodPost {
		res, err = client.PostForm(u, form)
	} else {
		res, err = client.Get(u)
	}
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, string(body)
}

// TestNoBrokenInternalLinks crawls every page reachable from /lessons and
// /exercises (and the feedback of one answer per exercise), and requests
// every internal link, stylesheet and script through the real router.
func TestNoBrokenInternalLinks(t *testing.T) {
	srv := site(t)
	client := srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	_, set := load(t)

	pages := map[string]string{} // URL → body
	queue := []string{"/lessons", "/exercises"}
	for _, e := range set.Exercises {
		// A readable answer of each kind (an unreadable one is a 400).
		answer := "1"
		if e.Ask == exercises.AskOutcome {
			answer = "yes"
		}
		status, body := fetch(t, client, http.MethodPost, srv.URL+"/exercises/"+e.ID, url.Values{"answer": {answer}, "choice": {"none"}, "seed": {"0"}})
		if status != http.StatusOK {
			t.Errorf("POST /exercises/%s: status %d", e.ID, status)
		}
		pages["POST /exercises/"+e.ID] = body
	}
	checked := map[string]bool{}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		if checked[u] {
			continue
		}
		checked[u] = true
		status, body := fetch(t, client, http.MethodGet, srv.URL+u, nil)
		if status != http.StatusOK {
			t.Errorf("GET %s: status %d", u, status)
			continue
		}
		// Pages of the lessons and exercises are crawled; a variant's page is
		// checked but not crawled, or "Another one" would lead on forever, and
		// the steps of a lesson's lanes (?lanes-N=STEP, one link per step and
		// block) would multiply into every combination of steps.
		if (strings.HasPrefix(u, "/lessons") || strings.HasPrefix(u, "/exercises")) && !strings.Contains(u, "seed=") && !strings.Contains(u, "lanes-") {
			pages[u] = body
			for _, link := range endSteps(links(t, u, body)) {
				if !checked[link] {
					queue = append(queue, link)
				}
			}
		}
	}
	for from, body := range pages {
		for _, link := range endSteps(links(t, from, body)) {
			if checked[link] {
				continue
			}
			checked[link] = true
			if status, _ := fetch(t, client, http.MethodGet, srv.URL+link, nil); status != http.StatusOK {
				t.Errorf("%s links to %s: status %d", from, link, status)
			}
		}
	}
	for _, want := range []string{"/lessons/fixed-window", "/lessons/choosing-a-policy", "/exercises/try-it-1-exact"} {
		if !checked[want] {
			t.Errorf("the crawl never reached %s", want)
		}
	}
	playLinks := 0
	for link := range checked {
		if strings.HasPrefix(link, "/play?") {
			playLinks++
		}
	}
	if playLinks < 10 {
		t.Errorf("only %d distinct playground links were followed", playLinks)
	}
}

// links returns the internal URLs a page points at: hrefs, srcs and form
// actions, resolved against the page, without fragments. Links off the site
// would fail the test: the lessons should not depend on other sites.
// endSteps keeps, of the step links of each lane block on a page
// (?lanes-N=STEP, one per step, the same handler with another number), the
// first and the last, and every other link: the ends are where a step
// could fall off its block, and rendering every step of every block (the
// ring lesson alone has 140, each drawing its error charts) made this
// crawl the slowest test under -race.
func endSteps(links []string) []string {
	first, last := map[string]int{}, map[string]int{}
	group := func(link string) string {
		u, err := url.Parse(link)
		if err != nil {
			return ""
		}
		q := u.Query()
		for k := range q {
			if strings.HasPrefix(k, "lanes-") {
				q.Del(k)
				return u.Path + "?" + k + "&" + q.Encode()
			}
		}
		return ""
	}
	for i, link := range links {
		if g := group(link); g != "" {
			if _, ok := first[g]; !ok {
				first[g] = i
			}
			last[g] = i
		}
	}
	var out []string
	for i, link := range links {
		if g := group(link); g == "" || first[g] == i || last[g] == i {
			out = append(out, link)
		}
	}
	return out
}

func links(t *testing.T, from, body string) []string {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatalf("%s: %v", from, err)
	}
	base, _ := url.Parse("http://site" + strings.TrimPrefix(from, "POST "))
	var out []string
	doc.Find("a[href], link[href], script[src], form[action]").Each(func(_ int, s *goquery.Selection) {
		raw := s.AttrOr("href", s.AttrOr("src", s.AttrOr("action", "")))
		if s.Is("form") && strings.EqualFold(s.AttrOr("method", "get"), "post") {
			return // POST targets are exercised above
		}
		u, err := base.Parse(raw)
		if err != nil {
			t.Errorf("%s: unreadable link %q", from, raw)
			return
		}
		if u.Host != "site" {
			t.Errorf("%s links off the site: %s", from, raw)
			return
		}
		u.Fragment = ""
		link := u.RequestURI()
		if !slices.Contains(out, link) {
			out = append(out, link)
		}
	})
	return out
}

// TestEveryFragmentLinkHasATarget checks in-page links (#memory, #ring …).
func TestEveryFragmentLinkHasATarget(t *testing.T) {
	srv := site(t)
	lib, _ := load(t)
	for _, l := range lib.Lessons {
		_, body := fetch(t, srv.Client(), http.MethodGet, srv.URL+"/lessons/"+l.Slug, nil)
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		doc.Find("a[href*='#'], form[action*='#']").Each(func(_ int, s *goquery.Selection) {
			raw := s.AttrOr("href", s.AttrOr("action", ""))
			_, frag, _ := strings.Cut(raw, "#")
			if frag != "" && doc.Find("#"+frag).Length() == 0 {
				t.Errorf("/lessons/%s: %q points at no element", l.Slug, raw)
			}
		})
		if doc.Find("table:not(:has(caption))").Length() > 0 {
			t.Errorf("/lessons/%s: a table without a caption", l.Slug)
		}
	}
}

// TestTheSlidingLogCarParkTeachesTheEdge checks the computed table the
// sliding-log lesson is built around: at 35 s the half-open window holds 2
// cars, not the 4 a closed window would count.
func TestTheSlidingLogCarParkTeachesTheEdge(t *testing.T) {
	lib, _ := load(t)
	r, err := lib.Render(lib.Lesson("sliding-log"), nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, tbl := range r.Tables {
		// The car park's lanes show the log's working in their table.
		col := slices.Index(tbl.Head, "sliding-log")
		if col < 0 || !strings.HasPrefix(tbl.Caption, "The car park on a time line") {
			continue
		}
		for _, row := range tbl.Rows {
			if len(row) > col && row[1] == "35 s" {
				found = true
				if !strings.Contains(row[col], "2 in (5 s, 35 s]") || !strings.HasPrefix(row[col], "admitted") {
					t.Errorf("the 35 s row reads %q; want 2 in the window (5 s, 35 s], admitted", row[col])
				}
			}
		}
	}
	if !found {
		t.Error("no table row at 35 s in the sliding-log lesson")
	}
}

// TestTheMemoryCalculatorUsesTheLearnersNumbers renders the sliding-log
// lesson with a learner's limit and key count.
func TestTheMemoryCalculatorUsesTheLearnersNumbers(t *testing.T) {
	lib, _ := load(t)
	r, err := lib.Render(lib.Lesson("sliding-log"), url.Values{"limit": {"100"}, "keys": {"1000000"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tbl := range r.Tables {
		if tbl.Caption != "memory" {
			continue
		}
		for _, row := range tbl.Rows {
			if row[0] == "sliding-log" && row[3] != "800 MB" {
				t.Errorf("100 per second over a million keys in a sliding log: %s, want 800 MB", row[3])
			}
		}
		return
	}
	t.Error("no memory calculator in the sliding-log lesson")
}

// TestNoAnswerAboveItsExercise: a lesson must not state an exercise's
// answer just above the card that asks it. Within the section (from the
// last heading) before each exercise card, no computed number or outcome
// may be the exercise's own answer as written.
func TestNoAnswerAboveItsExercise(t *testing.T) {
	lib, set := load(t)
	for _, l := range lib.Lessons {
		r, err := lib.Render(l, nil)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(r.HTML)))
		if err != nil {
			t.Fatal(err)
		}
		var stated []string // claims since the last heading
		doc.Find("h2, h3, [data-testid=claim], [data-testid=exercise-card]").Each(func(_ int, s *goquery.Selection) {
			switch {
			case s.Is("h2, h3"):
				stated = nil
			case s.Is("[data-testid=claim]"):
				stated = append(stated, strings.TrimSpace(s.Text()))
			default:
				href, _ := s.Find("a").Attr("href")
				e := set.Get(strings.TrimPrefix(href, "/exercises/"))
				if e == nil {
					t.Errorf("%s: card links to %q, no such exercise", l.Slug, href)
					return
				}
				sol, err := e.Instance(0).Solve()
				if err != nil {
					t.Fatal(err)
				}
				if slices.Contains(stated, sol.Text()) {
					t.Errorf("%s: the section above exercise %s already states its answer, %q", l.Slug, e.ID, sol.Text())
				}
			}
		})
	}
}

package play

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/chromedp"

	"github.com/windowlab/playground/internal/browsertest"
	"github.com/windowlab/playground/internal/webtest"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// overridesScenario has lanes the settings form cannot express on its own:
// two token-buckets with different bursts (one with its own window), two
// floor sliding-counters with different windows, a fixed-window with its
// own limit.
func overridesScenario() scenario.Scenario {
	return scenario.Scenario{Limit: 5, WindowMs: 30_000, Policies: []scenario.PolicySpec{
		{Name: policies.TokenBucket, Burst: 10, WindowMs: 60_000},
		{Name: policies.TokenBucket, Burst: 20},
		{Name: policies.SlidingCounter, Arithmetic: policies.Floor, WindowMs: 10_000},
		{Name: policies.SlidingCounter, Arithmetic: policies.Floor},
		{Name: policies.FixedWindow, Limit: 3},
		{Name: policies.GCRA},
	}, Requests: []scenario.Request{{At: 1000, Cost: 1, Count: 4}}}
}

// settingsStep changes some of the page's signals, applies the settings
// and says what must follow.
type settingsStep struct {
	what   string
	change map[string]any
	status int
	field  string   // named by a refusal
	limit  int64    // the shared limit afterwards
	lanes  []string // the lanes' labels afterwards
}

// openPlayLink opens a shared link the way a browser does and returns the
// page's signals, its session and the page.
func openPlayLink(t *testing.T, url string, store *play.Store, link string) (map[string]any, *webtest.LiveSession, *goquery.Document) {
	t.Helper()
	res := get(t, url+link)
	if res.status != http.StatusOK {
		t.Fatalf("GET %.60s: %d", link, res.status)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(res.body))
	if err != nil {
		t.Fatal(err)
	}
	var sig map[string]any
	if err := json.Unmarshal([]byte(doc.Find("#play").AttrOr("data-signals", "")), &sig); err != nil {
		t.Fatalf("the page's signals: %v", err)
	}
	id := doc.Find("#play-stream").AttrOr("data-session", "")
	sess, err := store.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("the page's session %q: %v", id, err)
	}
	return sig, webtest.Live(t, store, sess), doc
}

// runSettingsSteps posts each step's signals to /settings, as the page
// does, merging the signals each answer sends back.
func runSettingsSteps(t *testing.T, base string, sess *webtest.LiveSession, sig map[string]any, steps []settingsStep) {
	t.Helper()
	for i, st := range steps {
		for k, v := range st.change {
			sig[k] = v
		}
		before := sess.Scenario()
		body, _ := json.Marshal(sig)
		res := post(t, base+"/settings", string(body), sess)
		if res.status != st.status {
			t.Fatalf("step %d (%s): status = %d, want %d (%s)", i+1, st.what, res.status, st.status, res.header.Get("X-Problem"))
		}
		if st.status != http.StatusOK {
			if !strings.Contains(res.header.Get("X-Problem"), st.field+":") {
				t.Errorf("step %d (%s): X-Problem = %q, want it to name %s", i+1, st.what, res.header.Get("X-Problem"), st.field)
			}
			if !reflect.DeepEqual(sess.Scenario(), before) {
				t.Errorf("step %d (%s): a refused apply changed the scenario", i+1, st.what)
			}
			continue
		}
		for _, ev := range webtest.ParseEvents(t, strings.NewReader(res.body)) {
			for _, d := range ev.Data {
				if js, ok := strings.CutPrefix(d, "signals "); ok {
					if err := json.Unmarshal([]byte(js), &sig); err != nil {
						t.Fatalf("step %d (%s): the answer's signals %q: %v", i+1, st.what, js, err)
					}
				}
			}
		}
		sc := sess.Scenario()
		var got []string
		for _, p := range sc.Specs() {
			got = append(got, p.Label(sc))
		}
		if sc.Limit != st.limit {
			t.Errorf("step %d (%s): limit = %d, want %d", i+1, st.what, sc.Limit, st.limit)
		}
		if !reflect.DeepEqual(got, st.lanes) {
			t.Errorf("step %d (%s): lanes = %q, want %q", i+1, st.what, got, st.lanes)
		}
	}
}

// TestPlaySettingsKeepLoadedLanes loads a scenario from a shared link and
// applies the settings form through the router: a checked kind keeps its
// lanes and their own limit and window, k and burst apply only when
// changed, unchecking removes, checking adds one lane.
func TestPlaySettingsKeepLoadedLanes(t *testing.T) {
	store := play.NewStore(nil)
	_, url, _ := newTestServer(t, Playground(store))
	sig, sess, doc := openPlayLink(t, url, store, scenario.EncodeURL(overridesScenario()))

	overrides := doc.Find(`[data-testid="overrides"]`).Text()
	for _, want := range []string{
		"token-bucket (burst 10) keeps its own window 60 s",
		"sliding-counter (floor) keeps its own window 10 s",
		"fixed-window keeps its own limit 3",
	} {
		if !strings.Contains(overrides, want) {
			t.Errorf("the settings do not say %q; they say %q", want, overrides)
		}
	}

	runSettingsSteps(t, url+"/play/"+sess.ID(), sess, sig, []settingsStep{
		{what: "apply as shown", status: 200, limit: 5, lanes: []string{
			"token-bucket (burst 10) window 60 s",
			"token-bucket (burst 20)",
			"sliding-counter (floor) window 10 s",
			"sliding-counter (floor)",
			"fixed-window limit 3",
			"gcra",
		}},
		{what: "change only the shared limit", change: map[string]any{"limit": 8}, status: 200, limit: 8, lanes: []string{
			"token-bucket (burst 10) window 60 s",
			"token-bucket (burst 20)",
			"sliding-counter (floor) window 10 s",
			"sliding-counter (floor)",
			"fixed-window limit 3",
			"gcra",
		}},
		{what: "a limit of 0", change: map[string]any{"limit": 0}, status: 400, field: "limit"},
		{what: "change the burst from the 10 shown to 15", change: map[string]any{"limit": 8, "burst": 15}, status: 200, limit: 8, lanes: []string{
			"token-bucket (burst 15) window 60 s",
			"token-bucket (burst 15)",
			"sliding-counter (floor) window 10 s",
			"sliding-counter (floor)",
			"fixed-window limit 3",
			"gcra (burst 15)",
		}},
		{what: "apply again without changing the burst", change: map[string]any{"limit": 5}, status: 200, limit: 5, lanes: []string{
			"token-bucket (burst 15) window 60 s",
			"token-bucket (burst 15)",
			"sliding-counter (floor) window 10 s",
			"sliding-counter (floor)",
			"fixed-window limit 3",
			"gcra (burst 15)",
		}},
		{what: "uncheck sliding-counter (floor), check sliding-log", change: map[string]any{"useSlidingCounterFloor": false, "useSlidingLog": true}, status: 200, limit: 5, lanes: []string{
			"token-bucket (burst 15) window 60 s",
			"token-bucket (burst 15)",
			"fixed-window limit 3",
			"gcra (burst 15)",
			"sliding-log",
		}},
		{what: "check sliding-buckets with k 3", change: map[string]any{"useSlidingBuckets": true, "buckets": 3}, status: 200, limit: 5, lanes: []string{
			"token-bucket (burst 15) window 60 s",
			"token-bucket (burst 15)",
			"fixed-window limit 3",
			"gcra (burst 15)",
			"sliding-log",
			"sliding-buckets (k=3)",
		}},
	})
}

// TestBrowserPlaySettingsKeepLoadedLanes applies the settings form of a
// loaded scenario in the browser: the page sends the k and burst it showed
// with the fields, and takes the ones the answer sends back.
func TestBrowserPlaySettingsKeepLoadedLanes(t *testing.T) {
	_, url, _ := newTestServer(t, Playground(play.NewStore(nil)))
	tab := openPlay(t, url+scenario.EncodeURL(overridesScenario()))
	tab.WaitText(`[data-testid="overrides"]`, "token-bucket (burst 10) keeps its own window 60 s")
	const labelsJS = `[...document.querySelectorAll('[data-testid=lane]')].map(l => l.dataset.label)`
	setField := func(sel, value string) {
		browsertest.Run(tab, chromedp.Evaluate[bool](`(document.querySelector('`+sel+`').value = '', true)`))
		tab.Do(chromedp.SendKeys(chromedp.CSS(sel), value))
	}
	for i, st := range []struct {
		what         string
		field, value string
		summary      string
		lanes        []string
	}{
		{"change only the shared limit", `[data-testid=limit]`, "8", "limit 8 per 30 s", []string{
			"token-bucket (burst 10) window 60 s", "token-bucket (burst 20)",
			"sliding-counter (floor) window 10 s", "sliding-counter (floor)",
			"fixed-window limit 3", "gcra",
		}},
		{"change the burst", `[data-bind-burst]`, "15", "limit 8 per 30 s", []string{
			"token-bucket (burst 15) window 60 s", "token-bucket (burst 15)",
			"sliding-counter (floor) window 10 s", "sliding-counter (floor)",
			"fixed-window limit 3", "gcra (burst 15)",
		}},
		{"change the limit back", `[data-testid=limit]`, "5", "limit 5 per 30 s", []string{
			"token-bucket (burst 15) window 60 s", "token-bucket (burst 15)",
			"sliding-counter (floor) window 10 s", "sliding-counter (floor)",
			"fixed-window limit 3", "gcra (burst 15)",
		}},
	} {
		setField(st.field, st.value)
		tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="apply"]`)))
		tab.WaitText(`[data-testid="summary"]`, st.summary)
		if got, ok := browsertest.Until(tab, labelsJS, func(got []string) bool { return reflect.DeepEqual(got, st.lanes) }); !ok {
			t.Errorf("step %d (%s): lanes = %q, want %q", i+1, st.what, got, st.lanes)
		}
	}
}

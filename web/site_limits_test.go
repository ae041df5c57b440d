package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/windowlab/playground/internal/storetest"
	"github.com/windowlab/playground/internal/webtest"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web"
	weblessons "github.com/windowlab/playground/web/lessons"
	webplay "github.com/windowlab/playground/web/play"
	"github.com/windowlab/playground/web/simulate"
)

type upload struct {
	name        string
	path        string
	contentType string
	body        []byte
}

func multipartBody(t *testing.T, field, filename string, content []byte) (string, []byte) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	var w io.Writer
	var err error
	if filename != "" {
		w, err = mw.CreateFormFile(field, filename)
	} else {
		w, err = mw.CreateFormField(field)
	}
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write(content)
	_ = mw.Close()
	return mw.FormDataContentType(), b.Bytes()
}

// TestBodiesOverTheBoundAreRefusedAlike sends each POST endpoint a body
// just over scenario.MaxBodyBytes, in each form it takes: every one answers
// 413 with the scenario decoder's own message.
func TestBodiesOverTheBoundAreRefusedAlike(t *testing.T) {
	lib, set, err := weblessons.LoadLessons()
	if err != nil {
		t.Fatal(err)
	}
	_, base, _ := newTestServer(t, webplay.Playground(play.NewStore(nil)), weblessons.Lessons(lib, set))
	exercise := "/exercises/" + set.Exercises[0].ID
	big := bytes.Repeat([]byte("x"), scenario.MaxBodyBytes+1)
	bigJSON := []byte(`{"limit": 5, "windowMs": 1000, "comment": "` + string(big) + `"}`)
	fileType, fileBody := multipartBody(t, "file", "big.json", bigJSON)
	pasteType, pasteBody := multipartBody(t, "scenario", "", bigJSON)
	answerType, answerBody := multipartBody(t, "answer", "", big)
	tests := []upload{
		{"simulate", "/api/simulate", "application/json", bigJSON},
		{"load, uploaded file", "/play/load", fileType, fileBody},
		{"load, pasted multipart", "/play/load", pasteType, pasteBody},
		{"load, pasted form", "/play/load", "application/x-www-form-urlencoded", []byte("scenario=" + url.QueryEscape(string(bigJSON)))},
		{"exercise, multipart", exercise, answerType, answerBody},
		{"exercise, form", exercise, "application/x-www-form-urlencoded", append([]byte("answer="), big...)},
	}
	want := scenario.TooLarge()[0].Reason
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := http.Post(base+tt.path, tt.contentType, bytes.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			got, _ := io.ReadAll(res.Body)
			if res.StatusCode != http.StatusRequestEntityTooLarge {
				t.Errorf("POST %s = %d, want 413", tt.path, res.StatusCode)
			}
			if !strings.Contains(string(got), want) && !strings.Contains(string(got), jsonEscaped(want)) {
				t.Errorf("POST %s does not say %q; body begins %.300q", tt.path, want, got)
			}
			if strings.Contains(string(got), "empty input") {
				t.Errorf("POST %s says empty input for a body over the bound", tt.path)
			}
		})
	}
}

func jsonEscaped(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// TestMultipartUploadsLeaveNoTempFiles uploads files just under the bound
// to both multipart endpoints and checks the temp directory stays empty.
func TestMultipartUploadsLeaveNoTempFiles(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	lib, set, err := weblessons.LoadLessons()
	if err != nil {
		t.Fatal(err)
	}
	_, base, _ := newTestServer(t, webplay.Playground(play.NewStore(nil)), weblessons.Lessons(lib, set))
	content := bytes.Repeat([]byte(" "), scenario.MaxBodyBytes-4096)
	for _, path := range []string{"/play/load", "/exercises/" + set.Exercises[0].ID} {
		ct, body := multipartBody(t, "file", "spaces.json", content)
		res, err := http.Post(base+path, ct, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode >= 500 {
			t.Errorf("POST %s = %d", path, res.StatusCode)
		}
		left, _ := os.ReadDir(tmp)
		if len(left) > 0 {
			t.Errorf("POST %s left %d temp files, such as %s", path, len(left), left[0].Name())
		}
	}
}

// newLimitedServer is newTestServer with one run slot, on the clock now.
func newLimitedServer(t *testing.T, now func() time.Time) (*web.Server, string, *webtest.LogBuffer) {
	t.Helper()
	logs := &webtest.LogBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	s, err := web.New(web.Config{DatastarPath: webtest.BundlePath(t), RunSlots: 1, Now: now, Features: []web.Feature{simulate.API(), webplay.Playground(play.NewStore(nil))}}, log)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL, logs
}

// TestRunsBeyondCapacityAre503 fills the server's only run slot and checks
// that simulate and both decisions downloads of a larger scenario answer
// 503 with Retry-After (a small download is served),
// that a flood of refusals logs one WARN line per interval on the server's
// clock (held still, then moved past it), and that runs are served again
// once the slot is free.
func TestRunsBeyondCapacityAre503(t *testing.T) {
	clock := storetest.NewClock()
	s, base, logs := newLimitedServer(t, clock.Now)
	carPark, err := os.ReadFile("../lessons/scenarios/car-park.json")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Parse(carPark)
	if err != nil {
		t.Fatal(err)
	}
	link := scenario.EncodeURL(sc)
	query := link[strings.Index(link, "?"):]
	do := func(path string) *http.Response {
		t.Helper()
		var res *http.Response
		var err error
		if path == "/api/simulate" {
			res, err = http.Post(base+path, "application/json", bytes.NewReader(carPark))
		} else {
			res, err = http.Get(base + path)
		}
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res
	}
	// A download's size is known before it is admitted, and a small one
	// (the car park) takes no share of the slots: the refusals are checked
	// with a link to a larger scenario.
	big := scenario.Scenario{Limit: 100, WindowMs: 60_000, Policies: scenario.DefaultPolicies()}
	for i := range 1000 {
		big.Requests = append(big.Requests, scenario.Request{At: int64(i), Cost: 1, Count: 1})
	}
	if web.RunWork(big) <= web.SmallRunWork {
		t.Fatal("the large scenario is small")
	}
	bigLink := scenario.EncodeURL(big)
	bigQuery := bigLink[strings.Index(bigLink, "?"):]
	paths := []string{"/api/simulate", "/play/decisions.json" + bigQuery, "/play/decisions.csv" + bigQuery}

	release, ok := s.TakeRunSlots(web.MaxRunWork)
	if !ok {
		t.Fatal("an idle server has no room for one worst-case run")
	}
	for round := range 5 {
		for _, path := range paths {
			res := do(path)
			if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
				t.Errorf("round %d: %s with the slot taken = %d, Retry-After %q; want 503 with Retry-After", round, path, res.StatusCode, res.Header.Get("Retry-After"))
			}
		}
	}
	for _, path := range []string{"/play/decisions.json" + query, "/play/decisions.csv" + query} {
		if res := do(path); res.StatusCode != http.StatusOK {
			t.Errorf("%s, a small download, with the slot taken = %d, want 200", path, res.StatusCode)
		}
	}
	if n := strings.Count(logs.String(), "refused for capacity"); n != 1 {
		t.Errorf("15 refusals at one instant logged %d lines, want 1 (sampled)", n)
	}
	clock.Advance(10 * time.Second)
	if res := do(paths[0]); res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("%s with the slot taken, 10 s later = %d, want 503", paths[0], res.StatusCode)
	}
	if lines := logLines(logs.String(), "refused for capacity"); len(lines) != 2 || !strings.Contains(lines[1], "refusals=15") {
		t.Errorf("a refusal 10 s after the first line: the log says %q, want a second line counting the 15 refusals since", lines)
	}
	if strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("a refusal for capacity logged an ERROR:\n%s", logs.String())
	}
	release()
	for _, path := range paths {
		if res := do(path); res.StatusCode != http.StatusOK {
			t.Errorf("%s with the slot free = %d, want 200", path, res.StatusCode)
		}
	}
}

// TestDecisionsRefuseOtherSitesSubresources: another site's page cannot
// make a visitor's browser run scenarios here, but a link followed from it
// works.
func TestDecisionsRefuseOtherSitesSubresources(t *testing.T) {
	_, base, _ := newTestServer(t, webplay.Playground(play.NewStore(nil)))
	sc := scenario.Scenario{Limit: 2, WindowMs: 1000, Policies: scenario.DefaultPolicies(), Requests: []scenario.Request{{At: 0, Cost: 1, Count: 1}}}
	link := scenario.EncodeURL(sc)
	path := base + "/play/decisions.csv" + link[strings.Index(link, "?"):]
	tests := []struct {
		site, mode string
		want       int
	}{
		{"cross-site", "no-cors", http.StatusForbidden},
		{"cross-site", "cors", http.StatusForbidden},
		{"cross-site", "navigate", http.StatusOK},
		{"same-origin", "cors", http.StatusOK},
		{"", "", http.StatusOK},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(http.MethodGet, path, nil)
		if tt.site != "" {
			req.Header.Set("Sec-Fetch-Site", tt.site)
			req.Header.Set("Sec-Fetch-Mode", tt.mode)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != tt.want {
			t.Errorf("Sec-Fetch-Site %q, Sec-Fetch-Mode %q: %d, want %d", tt.site, tt.mode, res.StatusCode, tt.want)
		}
	}
}

// TestCancelledSimulateFreesItsSlot starts a worst-case simulate on a
// one-slot server with no run timeout to speak of, leaves as the replay
// begins, and checks that the run gives its slot back soon after: the
// replay stops when its request is cancelled.
func TestCancelledSimulateFreesItsSlot(t *testing.T) {
	s, base, _ := newLimitedServer(t, nil)
	s.SetRunTimeout(time.Minute)
	started := make(chan struct{})
	s.SetRunStarting(func() { close(started) })
	body, err := json.Marshal(scenario.WorstCase())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/simulate", bytes.NewReader(body))
	go func() {
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
		}
	}()
	select {
	case <-started:
	case <-time.After(20 * time.Second):
		t.Fatal("the replay did not begin within 20 s")
	}
	cancel()
	start := time.Now()
	waitFor(t, 2*time.Second, "the cancelled run to free its slot (uncancelled, it runs for many seconds under the race detector)", func() bool {
		release, ok := s.TakeRunSlots(web.MaxRunWork)
		if ok {
			release()
		}
		return ok
	})
	t.Logf("slot free %v after the client left", time.Since(start))
}

// logLines are the lines of logs that contain what.
func logLines(logs, what string) []string {
	var lines []string
	for l := range strings.Lines(logs) {
		if strings.Contains(l, what) {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	return lines
}

func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", limit, what)
		}
		time.Sleep(time.Millisecond) // waits on the server's goroutines over real sockets
	}
}

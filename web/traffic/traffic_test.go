package traffic

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/windowlab/playground/internal/webtest"
	"github.com/windowlab/playground/traffic"
	"github.com/windowlab/playground/web"
)

func newTestServer(t testing.TB) string {
	t.Helper()
	log, _ := webtest.Logger()
	s, err := web.New(web.Config{DatastarPath: webtest.BundlePath(t), Version: "test", Features: []web.Feature{Feature()}}, log)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv.URL
}

// generatedLog is a combined log of n lines from clients over an hour.
func generatedLog(t testing.TB, n, clients int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := (traffic.Generated{Lines: n, Clients: clients, Start: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Span: time.Hour, Seed: 4}).WriteCombined(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// uploadBody is the form as a browser sends it, the file last.
func uploadBody(t testing.TB, fields map[string]string, file []byte) (string, *bytes.Buffer) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for _, k := range []string{"key", "format", "limit", "window"} {
		if v, ok := fields[k]; ok {
			mw.WriteField(k, v)
		}
	}
	for _, p := range strings.Split(fields["policies"], ",") {
		mw.WriteField("policy", p)
	}
	if file != nil {
		fw, _ := mw.CreateFormFile("log", "access.log")
		fw.Write(file)
	}
	mw.Close()
	return mw.FormDataContentType(), &b
}

func get(t *testing.T, c *http.Client, url string) *goquery.Document {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	doc, err := goquery.NewDocumentFromReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// An upload (no JavaScript: a plain form post) answers with the page of
// lanes, the client table sorted by its links, and the sweep; a zoomed
// range few enough requests draws each one.
func TestUploadShowsLanesTableAndSweep(t *testing.T) {
	base := newTestServer(t)
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	ct, body := uploadBody(t, map[string]string{"limit": "20", "window": "1m", "policies": "fixed-window,sliding-log,token-bucket"}, generatedLog(t, 3000, 40))
	resp, err := c.Post(base+"/traffic", ct, body)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/traffic" {
		t.Fatalf("upload: %d at %s\n%s", resp.StatusCode, resp.Request.URL, page)
	}
	doc, _ := goquery.NewDocumentFromReader(bytes.NewReader(page))
	if n := doc.Find(`[data-testid="traffic-lane"]`).Length(); n != 3 {
		t.Errorf("%d density lanes, want 3", n)
	}
	if n := doc.Find(`[data-testid="traffic-bar"]`).Length(); n < 3 {
		t.Errorf("%d density bars, want slices of the hour", n)
	}
	if n := doc.Find(`[data-testid="traffic-sweep-line"]`).Length(); n != 3 {
		t.Errorf("%d sweep lines, want one per policy", n)
	}
	if !strings.Contains(doc.Find(`[data-testid="traffic-summary"]`).Text(), "3000 requests from") {
		t.Errorf("summary %q", doc.Find(`[data-testid="traffic-summary"]`).Text())
	}
	// Sort by requests: the rows' request counts fall.
	href, _ := doc.Find(`[data-testid="traffic-sort-requests"]`).Attr("href")
	sorted := get(t, c, base+href)
	prev := int64(1 << 62)
	sorted.Find(`[data-testid="traffic-requests"]`).Each(func(i int, s *goquery.Selection) {
		n, _ := strconv.ParseInt(s.Text(), 10, 64)
		if n > prev {
			t.Errorf("row %d: %d requests after %d: not sorted", i, n, prev)
		}
		prev = n
	})
	// Zoom into a slice until single requests are drawn.
	zoomed := doc
	for range 4 {
		if zoomed.Find(`[data-testid="traffic-mark"]`).Length() > 0 {
			break
		}
		href, ok := zoomed.Find(`[data-testid="traffic-bar"]`).First().Attr("href")
		if !ok {
			t.Fatal("no bar to zoom into")
		}
		zoomed = get(t, c, base+href)
	}
	if zoomed.Find(`[data-testid="traffic-mark"]`).Length() == 0 {
		t.Errorf("zooming four times drew no single requests: %s", zoomed.Find(`[data-testid="traffic-range"]`).Text())
	}
	// A client's lanes, drawn by package lane.
	link, _ := doc.Find(`[data-testid="traffic-client-link"]`).First().Attr("href")
	client := get(t, c, base+link)
	if n := client.Find(`[data-testid="traffic-client-lanes"] [data-testid="lane"]`).Length(); n != 3 {
		t.Errorf("%d client lanes, want 3", n)
	}
}

// Bad uploads answer 400 with what was wrong, and the form again.
func TestUploadRefusesBadInput(t *testing.T) {
	base := newTestServer(t)
	for _, tc := range []struct {
		name   string
		fields map[string]string
		file   []byte
		want   string
	}{
		{"nothing readable", map[string]string{"format": "common", "policies": "gcra"}, []byte("hello\nworld\n"), "no line of access.log could be read as common"},
		{"no file", map[string]string{"policies": "gcra"}, nil, "Choose a log file"},
		{"bad limit", map[string]string{"limit": "lots", "policies": "gcra"}, []byte("x"), "Limit"},
		{"unknown policy", map[string]string{"policies": "gcra2"}, []byte("x"), "unknown policy"},
		{"key the format lacks", map[string]string{"key": "header:X", "policies": "gcra"}, generatedLog(t, 5, 2), "no header"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ct, body := uploadBody(t, tc.fields, tc.file)
			resp, err := http.Post(base+"/traffic", ct, body)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			doc, _ := goquery.NewDocumentFromReader(resp.Body)
			msg := doc.Find(`[data-testid="traffic-problem"]`).Text()
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(msg, tc.want) {
				t.Errorf("%d %q, want 400 saying %q", resp.StatusCode, msg, tc.want)
			}
		})
	}
	resp, err := http.Post(base+"/traffic", "application/x-www-form-urlencoded", strings.NewReader("key=client"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a form without its file: %d, want 400", resp.StatusCode)
	}
}

// The store holds at most MaxHeld uploads, dropping the one used longest
// ago, and forgets one HeldFor after its last use.
func TestStoreBounds(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	s := newStore(func() time.Time { return now })
	for i := range MaxHeld + 3 {
		now = now.Add(time.Second)
		s.put(fmt.Sprint(i), &upload{})
	}
	if s.len() != MaxHeld || s.get("0") != nil || s.get(fmt.Sprint(MaxHeld+2)) == nil {
		t.Errorf("held %d, want the newest %d", s.len(), MaxHeld)
	}
	now = now.Add(HeldFor + time.Second)
	if s.get(fmt.Sprint(MaxHeld+2)) != nil || s.len() != 0 {
		t.Errorf("an upload outlived HeldFor")
	}
}

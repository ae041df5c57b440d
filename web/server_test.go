package web

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/windowlab/playground/internal/webtest"
)

func TestHealthz(t *testing.T) {
	_, url, _ := newTestServer(t)
	res := get(t, url+"/healthz")
	if res.status != http.StatusOK || res.body != "ok" {
		t.Fatalf("GET /healthz = %d %q, want 200 \"ok\"", res.status, res.body)
	}
	head, err := http.Head(url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	head.Body.Close()
	if head.StatusCode != http.StatusOK {
		t.Errorf("HEAD /healthz = %d, want 200", head.StatusCode)
	}
}

func TestHomePage(t *testing.T) {
	_, url, logs := newTestServer(t)
	res := get(t, url+"/")
	if res.status != http.StatusOK {
		t.Fatalf("GET / = %d, want 200", res.status)
	}
	if ct := res.header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("Content-Type = %q", ct)
	}
	for _, want := range []string{`<html lang="en">`, `href="/lessons"`, `href="/play"`, `href="/exercises"`, "test-version"} {
		if !strings.Contains(res.body, want) {
			t.Errorf("home page lacks %s", want)
		}
	}
	if !strings.Contains(logs.String(), "method=GET path=/ status=200") {
		t.Errorf("request not logged; log:\n%s", logs)
	}
}

func TestSecurityHeaders(t *testing.T) {
	_, url, _ := newTestServer(t)
	for _, path := range []string{"/", "/no-such-page", "/healthz"} {
		res := get(t, url+path)
		csp := res.header.Get("Content-Security-Policy")
		for _, want := range []string{"script-src 'self' 'unsafe-eval'", "style-src 'self'", "frame-ancestors 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("GET %s: Content-Security-Policy %q lacks %q", path, csp, want)
			}
		}
		if got := res.header.Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("GET %s: X-Content-Type-Options = %q", path, got)
		}
		if got := res.header.Get("Referrer-Policy"); got == "" {
			t.Errorf("GET %s: no Referrer-Policy", path)
		}
	}
}

func TestNotFound(t *testing.T) {
	_, url, _ := newTestServer(t)
	res := get(t, url+"/no-such-page")
	if res.status != http.StatusNotFound {
		t.Fatalf("GET /no-such-page = %d, want 404", res.status)
	}
	if !strings.Contains(res.body, `data-testid="not-found"`) || !strings.Contains(res.body, `data-testid="site-header"`) {
		t.Errorf("404 page is not the friendly page in the layout:\n%s", res.body)
	}
}

var assetURL = regexp.MustCompile(`/static/[a-z]+\.[0-9a-f]{8}\.(css|js|svg)`)

func TestStaticAssetsAreHashedAndCachedForever(t *testing.T) {
	s, url, _ := newTestServer(t)
	home := get(t, url+"/")
	tests := []struct {
		name, contentType string
	}{
		{"app.css", "text/css; charset=utf-8"},
		{"datastar.js", "text/javascript; charset=utf-8"},
		{"favicon.svg", "image/svg+xml"},
	}
	for _, tt := range tests {
		path := s.assets.URL(tt.name)
		if !assetURL.MatchString(path) {
			t.Errorf("URL(%q) = %q, want a hashed name", tt.name, path)
			continue
		}
		if !strings.Contains(home.body, path) {
			t.Errorf("home page does not link %s", path)
		}
		res := get(t, url+path)
		if res.status != http.StatusOK {
			t.Errorf("GET %s = %d, want 200", path, res.status)
			continue
		}
		if got := res.header.Get("Content-Type"); got != tt.contentType {
			t.Errorf("GET %s: Content-Type = %q, want %q", path, got, tt.contentType)
		}
		if got := res.header.Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
			t.Errorf("GET %s: Cache-Control = %q", path, got)
		}
		if len(res.body) == 0 {
			t.Errorf("GET %s: empty body", path)
		}
	}
	// The plain name and a stale hash are not served.
	for _, path := range []string{"/static/app.css", "/static/app.00000000.css"} {
		if res := get(t, url+path); res.status != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", path, res.status)
		}
	}
}

func TestStaticAssetsAreGzippedWhenAccepted(t *testing.T) {
	s, url, _ := newTestServer(t)
	path := url + s.assets.URL("datastar.js")
	req, err := http.NewRequest(http.MethodGet, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", "gzip")
	res, err := http.DefaultTransport.RoundTrip(req) // no transparent decompression
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("GET %s with gzip = %d, Content-Encoding %q", path, res.StatusCode, res.Header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if want := s.assets.byName["datastar.js"].body; !bytes.Equal(got, want) {
		t.Errorf("decompressed bundle is %d bytes, want the %d bytes of the file", len(got), len(want))
	}
	if !strings.Contains(res.Header.Get("Vary"), "Accept-Encoding") {
		t.Errorf("Vary = %q", res.Header.Get("Vary"))
	}
}

func TestAcceptsGzip(t *testing.T) {
	for header, want := range map[string]bool{
		"":                  false,
		"gzip":              true,
		"br, gzip;q=0.8":    true,
		"GZIP":              true,
		"gzip;q=0":          false,
		"deflate, identity": false,
		"x-gzip-ish, br":    false,
	} {
		r, _ := http.NewRequest(http.MethodGet, "/", nil)
		r.Header.Set("Accept-Encoding", header)
		if got := AcceptsGzip(r); got != want {
			t.Errorf("AcceptsGzip(%q) = %v, want %v", header, got, want)
		}
	}
}

func TestMissingBundleSaysToRunNpmCi(t *testing.T) {
	_, err := New(Config{DatastarPath: t.TempDir() + "/datastar.js"}, slog.New(slog.DiscardHandler))
	if err == nil {
		t.Fatal("New with a missing bundle: no error")
	}
	if !strings.Contains(err.Error(), "npm ci") {
		t.Errorf("error %q does not say to run `npm ci`", err)
	}
}

func TestPanicGivesPlain500AndIsLogged(t *testing.T) {
	boom := FeatureFunc(func(s *Server, r chi.Router) error {
		r.Get("/boom", func(http.ResponseWriter, *http.Request) { panic("kaboom") })
		return nil
	})
	_, url, logs := newTestServer(t, boom)
	res := get(t, url+"/boom")
	if res.status != http.StatusInternalServerError {
		t.Fatalf("GET /boom = %d, want 500", res.status)
	}
	if strings.Contains(res.body, "kaboom") || !strings.Contains(res.body, `data-testid="server-error"`) {
		t.Errorf("500 page shows the panic or is not the plain page:\n%s", res.body)
	}
	if !strings.Contains(logs.String(), "error=kaboom") {
		t.Errorf("panic not logged with its error; log:\n%s", logs)
	}
}

func TestFeatureErrorsAreJoined(t *testing.T) {
	bad := func(msg string) Feature {
		return FeatureFunc(func(*Server, chi.Router) error { return errors.New(msg) })
	}
	_, err := New(Config{DatastarPath: webtest.BundlePath(t), Features: []Feature{bad("first"), bad("second")}}, slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), "first") || !strings.Contains(err.Error(), "second") {
		t.Fatalf("New = %v, want both feature errors", err)
	}
}

func TestPresentationMode(t *testing.T) {
	_, url, _ := newTestServer(t)
	if res := get(t, url+"/?present=1"); !strings.Contains(res.body, `class="presentation"`) {
		t.Error("?present=1 does not switch on the presentation class")
	}
	if res := get(t, url+"/"); strings.Contains(res.body, `class="presentation"`) {
		t.Error("presentation class without ?present=1")
	}
}

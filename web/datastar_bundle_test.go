package web

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/windowlab/playground/internal/webtest"
)

// TestBuiltInBundleServedWithoutNodeModules builds the site with no
// -datastar path from a directory that has no node_modules: the page must
// still link, and the server serve, the exact pinned bundle.
func TestBuiltInBundleServedWithoutNodeModules(t *testing.T) {
	want, err := os.ReadFile(webtest.BundlePath(t))
	if err != nil {
		t.Fatalf("reading the installed bundle to compare with: %v (run `npm ci`)", err)
	}
	t.Chdir(t.TempDir())
	s, err := New(Config{}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("New without a bundle path, away from the project: %v", err)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()

	home := get(t, srv.URL+"/")
	path := s.assets.URL("datastar.js")
	if !strings.Contains(home.body, path) {
		t.Fatalf("home page does not link the bundle at %s", path)
	}
	res := get(t, srv.URL+path)
	if res.status != http.StatusOK {
		t.Fatalf("GET %s = %d, want 200", path, res.status)
	}
	if !bytes.Equal([]byte(res.body), want) {
		t.Errorf("GET %s served %d bytes that differ from the %d bytes npm installed", path, len(res.body), len(want))
	}
}

func TestBundleFlagOverridesBuiltIn(t *testing.T) {
	override := t.TempDir() + "/datastar.js"
	if err := os.WriteFile(override, []byte("export const marker = 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{DatastarPath: override}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(s.assets.byName["datastar.js"].body); got != "export const marker = 1;\n" {
		t.Errorf("with DatastarPath set, the served bundle is %d bytes, not the override", len(got))
	}
}

func TestBinaryWithoutBundleSaysHowToFix(t *testing.T) {
	_, err := readDatastarBundle(fstest.MapFS{"static/app.css": {Data: []byte("body{}")}}, "")
	if !errors.Is(err, errNoEmbeddedBundle) {
		t.Fatalf("reading a missing built-in bundle = %v, want errNoEmbeddedBundle", err)
	}
	for _, fix := range []string{"npm ci", "build again", "-datastar"} {
		if !strings.Contains(err.Error(), fix) {
			t.Errorf("error %q does not mention %q", err, fix)
		}
	}
}

// TestWebtestFindsTheDefaultBundle: internal/webtest repeats
// DefaultDatastarPath (importing web would keep these tests from using it);
// the two must name one file.
func TestWebtestFindsTheDefaultBundle(t *testing.T) {
	if got := webtest.BundlePath(t); !strings.HasSuffix(got, filepath.FromSlash(DefaultDatastarPath)) {
		t.Errorf("webtest.BundlePath = %q, want a path ending in %q", got, DefaultDatastarPath)
	}
}

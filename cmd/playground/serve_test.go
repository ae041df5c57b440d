package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/windowlab/playground/internal/cli"
)

// lockedBuffer is a strings.Builder safe for the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

const testBundle = "../../node_modules/@starfederation/datastar/dist/datastar.js"

var listening = regexp.MustCompile(`playground listening on (http://localhost:\d+)\n`)

// startServe runs runServe until the test ends and returns its base URL.
func startServe(t *testing.T, args ...string) (url string, stop func() error) {
	t.Helper()
	if !slices.ContainsFunc(args, func(a string) bool { return a == "-memory" || a == "-nats" || a == "-data" }) {
		// Each test's rooms in a directory of its own, never the user's.
		args = append(args, "-data", t.TempDir())
	}
	ctx, cancel := context.WithCancel(context.Background())
	var stderr lockedBuffer
	done := make(chan error, 1)
	go func() { done <- runServe(ctx, args, &stderr) }()
	stop = sync.OnceValue(func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(15 * time.Second):
			t.Fatal("runServe did not return after its context ended")
			return nil
		}
	})
	t.Cleanup(func() { _ = stop() })

	deadline := time.Now().Add(10 * time.Second)
	for {
		if m := listening.FindStringSubmatch(stderr.String()); m != nil {
			return m[1], stop
		}
		select {
		case err := <-done:
			t.Fatalf("runServe returned %v; output:\n%s", err, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no listening line; output:\n%s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond) // waits on a real server starting (its listening line)
	}
}

func TestServeAnswersAndShutsDown(t *testing.T) {
	url, stop := startServe(t, "-addr", "127.0.0.1:0", "-datastar", testBundle)
	res, err := http.Get(url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || string(body) != "ok" {
		t.Fatalf("GET /healthz = %d %q", res.StatusCode, body)
	}
	if err := stop(); err != nil {
		t.Fatalf("runServe after shutdown = %v, want nil", err)
	}
}

func TestServePortFromEnvironment(t *testing.T) {
	t.Setenv("PORT", "0")
	url, _ := startServe(t, "-datastar", testBundle)
	if strings.HasSuffix(url, ":8080") || strings.HasSuffix(url, ":0") {
		t.Errorf("with PORT=0 the server listens at %s, want a free port", url)
	}
}

// TestServeBuiltInBundleFromAnotherDirectory runs the server as a copied
// binary would: from a directory with no node_modules and no -datastar flag.
// The page must link the bundle and the bundle must be the pinned one.
func TestServeBuiltInBundleFromAnotherDirectory(t *testing.T) {
	want, err := os.ReadFile(testBundle)
	if err != nil {
		t.Fatalf("reading the installed bundle to compare with: %v (run `npm ci`)", err)
	}
	t.Chdir(t.TempDir())
	url, _ := startServe(t, "-addr", "127.0.0.1:0")
	page := httpGet(t, url+"/")
	link := regexp.MustCompile(`/static/datastar\.[0-9a-f]+\.js`).FindString(page)
	if link == "" {
		t.Fatalf("home page links no Datastar bundle:\n%s", page)
	}
	if got := httpGet(t, url+link); got != string(want) {
		t.Errorf("GET %s served %d bytes that differ from the %d bytes npm installed", link, len(got), len(want))
	}
}

// httpGet returns the body of a GET that must answer 200.
func httpGet(t *testing.T, url string) string {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s = %d, want 200", url, res.StatusCode)
	}
	return string(body)
}

func TestServeMissingBundle(t *testing.T) {
	err := runServe(context.Background(), []string{"-addr", "127.0.0.1:0", "-data", t.TempDir(), "-datastar", t.TempDir() + "/none.js"}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "npm ci") {
		t.Fatalf("runServe with no bundle = %v, want an error naming `npm ci`", err)
	}
}

func TestServeRejectsABadPublicURL(t *testing.T) {
	err := runServe(context.Background(), []string{"-addr", "127.0.0.1:0", "-public-url", "192.168.1.20:8080"}, io.Discard)
	if _, ok := err.(cli.Usage); !ok || !strings.Contains(err.Error(), "http://") {
		t.Fatalf("runServe(-public-url without a scheme) = %v, want a usage error asking for http://", err)
	}
}

func TestServeRejectsArguments(t *testing.T) {
	err := runServe(context.Background(), []string{"extra"}, io.Discard)
	if _, ok := err.(cli.Usage); !ok {
		t.Fatalf("runServe(extra) = %v, want a usage error", err)
	}
}

// TestServeShutdownCancelsInFlightRuns stops the server while a worst-case
// simulation runs: the run is cancelled (its client hears so, with a 503)
// rather than waited out, and runServe returns nil, so the command exits 0.
// How long the body takes to arrive and the run to start depends on the
// machine, so each try stops the server sooner after sending than the
// last; the run must be caught in flight by one of them, and a server
// that waited runs out would never be.
func TestServeShutdownCancelsInFlightRuns(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"limit": 10000, "windowMs": 60000, "policies": ["sliding-log","sliding-log","sliding-log","sliding-log","sliding-log","sliding-log","sliding-log","sliding-log"], "requests": [`)
	for i := range 10_000 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"at": %d, "key": "k%d"}`, i, i%100)
	}
	b.WriteString("]}")
	type answer struct {
		status int
		body   string
		err    error
	}
	var seen []string
	for _, wait := range []time.Duration{300, 150, 80, 40, 20, 10, 5} {
		wait *= time.Millisecond
		url, stop := startServe(t, "-addr", "127.0.0.1:0", "-datastar", testBundle)
		answered := make(chan answer, 1)
		go func() {
			res, err := http.Post(url+"/api/simulate", "application/json", strings.NewReader(b.String()))
			if err != nil {
				answered <- answer{err: err}
				return
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			answered <- answer{status: res.StatusCode, body: string(body)}
		}()
		time.Sleep(wait) // waits on a real server: the run must be in flight when it stops
		start := time.Now()
		if err := stop(); err != nil {
			t.Fatalf("stopped %v after sending: runServe = %v, want nil (exit status 0)", wait, err)
		}
		a := <-answered
		if a.status == http.StatusServiceUnavailable && strings.Contains(a.body, "cancelled") {
			t.Logf("stopped %v after sending: the run was cancelled, shutdown took %v", wait, time.Since(start))
			return
		}
		body := a.body
		if len(body) > 80 {
			body = body[:80] + "…"
		}
		seen = append(seen, fmt.Sprintf("after %v: %d %q %v", wait, a.status, body, a.err))
	}
	t.Errorf("no shutdown caught the worst-case run in flight and cancelled it with a 503:\n%s", strings.Join(seen, "\n"))
}

func TestServeRejectsBadTrustedProxy(t *testing.T) {
	err := runServe(context.Background(), []string{"-addr", "127.0.0.1:0", "-datastar", testBundle, "-trusted-proxy", "10.0.0.1,proxy.local"}, io.Discard)
	if _, ok := err.(cli.Usage); !ok || !strings.Contains(err.Error(), "proxy.local") {
		t.Fatalf("runServe(-trusted-proxy proxy.local) = %v, want a usage error naming it", err)
	}
}

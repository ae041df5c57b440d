// Package browsertest runs a package's browser tests in one shared headless
// Chromium (Debian's /usr/bin/chromium).
//
// A test package calls Close from its TestMain, and each test opens a Tab:
//
//	func TestMain(m *testing.M) {
//		code := m.Run()
//		browsertest.Close()
//		os.Exit(code)
//	}
//
//	func TestHome(t *testing.T) {
//		url := browsertest.Serve(t, handler)
//		tab := browsertest.NewTab(t)
//		tab.Do(chromedp.Navigate(url + "/"))
//		tab.WaitText(`[data-testid="live-status"]`, "on")
//		tab.NoProblems()
//	}
//
// The browser starts on the first NewTab, so a package's other tests run
// without it. Without Chromium, a browser test fails (it never skips): CI
// installs Chromium, and a green run must mean the pages were tried.
// When a test fails, a screenshot of each of its tabs is saved and its path
// logged.
package browsertest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// ExecPath is where Debian's chromium package installs the browser.
const ExecPath = "/usr/bin/chromium"

// Timeout bounds each Do, Run and wait helper call on a tab.
var Timeout = 15 * time.Second

// ArtifactsEnv names the environment variable that sets where failure
// screenshots go; by default a directory under os.TempDir().
const ArtifactsEnv = "BROWSERTEST_ARTIFACTS"

var shared struct {
	mu          sync.Mutex
	started     bool
	err         error
	allocCancel context.CancelFunc
	browserCtx  context.Context
	cancel      context.CancelFunc
	userDataDir string
}

// browser returns the shared browser context, starting Chromium on first use.
func browser() (context.Context, error) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.started {
		return shared.browserCtx, shared.err
	}
	shared.started = true
	shared.err = start()
	return shared.browserCtx, shared.err
}

func start() error {
	if _, err := os.Stat(ExecPath); err != nil {
		return fmt.Errorf("browsertest: Chromium is not installed at %s (install it with `apt-get install -y chromium`): %w", ExecPath, err)
	}
	dir, err := os.MkdirTemp("", "browsertest-profile-")
	if err != nil {
		return fmt.Errorf("browsertest: %w", err)
	}
	shared.userDataDir = dir
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(ExecPath),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(dir),
		chromedp.WindowSize(1280, 800),
	)
	allocCtx, allocCancel := chromedp.NewExecAllocator(context.Background(), opts...)
	browserCtx, cancel := chromedp.NewContext(allocCtx)
	// The first Do on the browser context starts Chromium. Chromium lives as
	// long as the context of that first call, so it gets no timeout: a
	// Chromium that does not start makes Do fail on its own.
	if err := chromedp.Do(browserCtx); err != nil {
		cancel()
		allocCancel()
		_ = os.RemoveAll(dir)
		return fmt.Errorf("browsertest: starting Chromium at %s: %w", ExecPath, err)
	}
	shared.browserCtx, shared.cancel, shared.allocCancel = browserCtx, cancel, allocCancel
	return nil
}

// Close stops the shared browser, if it was started. Call it from TestMain
// after m.Run.
func Close() {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.cancel != nil {
		shared.cancel()
		shared.allocCancel() // waits for Chromium to exit
	}
	if shared.userDataDir != "" {
		_ = os.RemoveAll(shared.userDataDir)
	}
	shared.started, shared.err, shared.cancel, shared.allocCancel, shared.browserCtx, shared.userDataDir = false, nil, nil, nil, nil, ""
}

// Serve serves h on a local httptest server for the rest of the test and
// returns its base URL, such as "http://127.0.0.1:41234".
func Serve(t testing.TB, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// Tab is one browser tab, in a browser context of its own (no cookies or
// storage shared with other tabs), open for the rest of a test.
type Tab struct {
	t   testing.TB
	ctx context.Context

	mu       sync.Mutex
	messages []chromedp.ConsoleMessage
}

// NewTab opens a tab in the shared browser. It fails the test at once when
// Chromium is missing or does not start.
func NewTab(t testing.TB) *Tab {
	t.Helper()
	bctx, err := browser()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := chromedp.NewContext(bctx, chromedp.WithNewBrowserContext())
	tab := &Tab{t: t, ctx: ctx}
	// The first Do creates the tab, which lives as long as the context of that
	// call: it must be ctx itself, not a context with a timeout.
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		t.Fatalf("browsertest: opening a tab: %v", err)
	}

	consoleCtx, stopConsole := context.WithCancel(ctx)
	messages := chromedp.Console(consoleCtx)
	var wg sync.WaitGroup
	wg.Go(func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			tab.mu.Lock()
			tab.messages = append(tab.messages, m)
			tab.mu.Unlock()
		}
	})

	t.Cleanup(func() {
		if t.Failed() {
			tab.saveScreenshot()
			for _, m := range tab.Console() {
				t.Logf("browser console: %s", m)
			}
		}
		stopConsole()
		wg.Wait()
		cancel()
	})
	return tab
}

// T is the test the tab belongs to, for helpers that call T().Helper().
func (tab *Tab) T() testing.TB { return tab.t }

// Context is the tab's chromedp context, for actions the helpers lack. Bound
// it with a timeout.
func (tab *Tab) Context() context.Context { return tab.ctx }

// Do runs actions in the tab, failing the test (with the caller's line) on
// the first error.
func (tab *Tab) Do(actions ...chromedp.Action[chromedp.Void]) {
	tab.t.Helper()
	ctx, cancel := context.WithTimeout(tab.ctx, Timeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		tab.t.Fatalf("browser: %v", err)
	}
}

// Run runs one action that returns a value, such as chromedp.Text or
// chromedp.Evaluate, failing the test on error.
func Run[T any](tab *Tab, action chromedp.Action[T]) T {
	tab.t.Helper()
	ctx, cancel := context.WithTimeout(tab.ctx, Timeout)
	defer cancel()
	v, err := chromedp.Run(ctx, action)
	if err != nil {
		tab.t.Fatalf("browser: %v", err)
	}
	return v
}

// Text returns the visible text (innerText) of the first element matching a
// CSS selector, with runs of white space collapsed, once the element is in
// the page.
func (tab *Tab) Text(selector string) string {
	tab.t.Helper()
	return collapse(Run(tab, chromedp.Text(chromedp.CSS(selector))))
}

// WaitText waits until the visible text of the first element matching a CSS
// selector contains want (white space collapsed), and fails the test with the
// text it last saw otherwise.
func (tab *Tab) WaitText(selector, want string) {
	tab.t.Helper()
	ctx, cancel := context.WithTimeout(tab.ctx, Timeout)
	defer cancel()
	var last string
	for {
		text, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(
			`(document.querySelector(%q) || {}).innerText || ""`, selector)))
		if err == nil {
			last = collapse(text)
			if strings.Contains(last, want) {
				return
			}
		}
		select {
		case <-ctx.Done():
			tab.t.Fatalf("browser: waiting for %s to contain %q: last text %q", selector, want, last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// WaitLive waits until the page's stream has delivered its first frame and
// the browser has drawn it. The footer says "Live: connected" when the
// first event of a stream arrives (web/static/stream-connection.js); the
// hub writes a stream's whole first frame in one write
// (fanout.Hub.Follow), and two animation frames later the browser has
// merged and painted what came with it. No clock is involved: every wait
// here is on the browser.
func (tab *Tab) WaitLive() {
	tab.t.Helper()
	tab.WaitText(`[data-testid="live-status"]`, "Live: connected")
	Run(tab, chromedp.Evaluate[bool](
		`new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))`,
		chromedp.EvalAwaitPromise))
}

// WaitFor polls a JavaScript predicate on every animation frame until it
// is true, and fails the test with what after (a JavaScript expression,
// evaluated once then) shows otherwise. It is the one helper for waiting
// on what the page draws: lanes, marks, tallies.
func (tab *Tab) WaitFor(predicate, after string) {
	tab.t.Helper()
	tab.WaitForWithin(Timeout, predicate, after)
}

// WaitForWithin is WaitFor for up to limit instead of Timeout: for what
// the page takes longer than Timeout to show by design, such as more
// reconnect attempts than its back-off makes in 15 s.
func (tab *Tab) WaitForWithin(limit time.Duration, predicate, after string) {
	tab.t.Helper()
	ctx, cancel := context.WithTimeout(tab.ctx, limit)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](predicate)); err != nil {
		show, stop := context.WithTimeout(tab.ctx, Timeout)
		defer stop()
		shown, _ := chromedp.Run(show, chromedp.Evaluate[string](after))
		tab.t.Fatalf("browser: waiting for %s: %v; the page shows %s", predicate, err, shown)
	}
}

// Until evaluates a JavaScript expression once per animation frame until
// ok accepts its value or Timeout passes, and returns the value it last
// saw and whether ok accepted it; the caller says what was wrong. It is
// WaitFor for a condition that reads best in Go: each evaluation waits on
// the browser's next frame, not on a clock.
func Until[T any](tab *Tab, expression string, ok func(T) bool) (T, bool) {
	tab.t.Helper()
	ctx, cancel := context.WithTimeout(tab.ctx, Timeout)
	defer cancel()
	next := chromedp.Evaluate[T](`new Promise((done, fail) => requestAnimationFrame(() => { try { done(`+expression+`) } catch (e) { fail(e) } }))`, chromedp.EvalAwaitPromise)
	var last T
	for {
		v, err := chromedp.Run(ctx, next)
		if err == nil {
			if last = v; ok(v) {
				return v, true
			}
		}
		if ctx.Err() != nil {
			return last, false
		}
	}
}

// Location returns the address of the page the tab shows.
func (tab *Tab) Location() string {
	tab.t.Helper()
	return Run(tab, chromedp.Location())
}

// WaitNavigated waits until the tab has finished loading a page at an
// address other than from. Following a link and then waiting for text alone
// can match the old page before it unloads, and the next action then races
// the navigation.
func (tab *Tab) WaitNavigated(from string) {
	tab.t.Helper()
	ctx, cancel := context.WithTimeout(tab.ctx, Timeout)
	defer cancel()
	for {
		// Errors are expected while the old document is torn down.
		href, err := chromedp.Run(ctx, chromedp.Evaluate[string](
			`document.readyState === "complete" ? location.href : ""`))
		if err == nil && href != "" && href != from {
			return
		}
		select {
		case <-ctx.Done():
			tab.t.Fatalf("browser: still at %s, waiting to leave it", from)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Console returns what the page has written to its console so far: console
// API calls, uncaught exceptions and browser log entries (where Chromium
// reports Content-Security-Policy violations).
func (tab *Tab) Console() []chromedp.ConsoleMessage {
	tab.mu.Lock()
	defer tab.mu.Unlock()
	return append([]chromedp.ConsoleMessage(nil), tab.messages...)
}

// Problems returns the console's errors and exceptions, warnings excluded.
func (tab *Tab) Problems() []string {
	var out []string
	for _, m := range tab.Console() {
		if m.Type == chromedp.ConsoleError || m.IsException() {
			out = append(out, m.String())
		}
	}
	return out
}

// NoProblems fails the test if the page reported an error or an exception,
// such as a script blocked by the Content-Security-Policy.
func (tab *Tab) NoProblems() {
	tab.t.Helper()
	if p := tab.Problems(); len(p) > 0 {
		tab.t.Errorf("browser console reported %d problem(s):\n%s", len(p), strings.Join(p, "\n"))
	}
}

// Screenshot saves a PNG of the whole page in the artifacts directory and
// returns its path.
func (tab *Tab) Screenshot(name string) (string, error) {
	ctx, cancel := context.WithTimeout(tab.ctx, 10*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		return "", err
	}
	dir, err := artifactsDir()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, fileName(name)+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		return "", err
	}
	return path, nil
}

func (tab *Tab) saveScreenshot() {
	path, err := tab.Screenshot(tab.t.Name())
	if err != nil {
		tab.t.Logf("browsertest: no screenshot of the failure: %v", err)
		return
	}
	tab.t.Logf("browsertest: screenshot of the failure: %s", path)
}

// FiguresEnv names the directory (docs/screenshots) where browser tests
// save the documentation's figures while they check what those figures
// show; unset, they save nothing. One variable for every figure, so one
// command (scripts/figures.sh) retakes them all.
const FiguresEnv = "WINDOWLAB_SCREENSHOTS"

// FinishAnimations ends every finite animation and transition running on
// the page (a mark's 300 ms arrival, a level's glide), so that a figure
// shows the page as a reader sees it a moment later, not a frame of its
// fade-in. An infinite animation cannot finish and is left running.
func FinishAnimations(tab *Tab) {
	Run(tab, chromedp.Evaluate[bool](`(document.getAnimations().forEach(a => { try { a.finish() } catch (e) {} }), true)`))
}

// FiguresWanted reports whether this run saves figures.
func FiguresWanted() bool { return os.Getenv(FiguresEnv) != "" }

// SaveFigure writes png as the figure named name (a file name in
// docs/screenshots) when FiguresWanted, and does nothing otherwise.
func SaveFigure(t testing.TB, name string, png []byte) {
	t.Helper()
	dir := os.Getenv(FiguresEnv)
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

func artifactsDir() (string, error) {
	dir := os.Getenv(ArtifactsEnv)
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "browsertest-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", errors.Join(errors.New("browsertest: artifacts directory"), err)
	}
	return dir, nil
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func fileName(name string) string {
	return unsafeChars.ReplaceAllString(name, "_") + "-" + time.Now().Format("150405.000")
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

package web

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
)

// bundlePath finds the Datastar bundle that `npm ci` installs at the module
// root, whichever package directory the test runs in.
func bundlePath(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, DefaultDatastarPath)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// logBuffer collects a Server's log lines for assertions.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// newTestServer builds the site with the real bundle and the given features,
// serves it with httptest for the rest of the test, and returns the server,
// its base URL and its log.
func newTestServer(t testing.TB, features ...Feature) (*Server, string, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s, err := New(Config{DatastarPath: bundlePath(t), Version: "test-version", Features: features}, log)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL, logs
}

// response is what get keeps of an HTTP response.
type response struct {
	status int
	header http.Header
	body   string
}

// get fetches url and fails the test if the request itself fails.
func get(t testing.TB, url string) response {
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
	return response{status: res.StatusCode, header: res.Header, body: string(body)}
}

// liveSession is a session as a test follows it: a session is a value, so
// every read goes to the store (after the test acted over HTTP, it reads
// the result) and every change through the store's Update.
type liveSession struct {
	t     testing.TB
	store play.Sessions
	id    string
	// control is the ControlToken, which only the copy the store made
	// first is sure to carry.
	control string
}

// live follows sess, as store holds it.
func live(t testing.TB, store play.Sessions, sess *play.Session) *liveSession {
	return &liveSession{t: t, store: store, id: sess.ID(), control: sess.ControlToken()}
}

// newLive opens a session holding sc in store and follows it.
func newLive(t testing.TB, store *play.Store, sc scenario.Scenario) *liveSession {
	t.Helper()
	sess, err := store.New(sc)
	if err != nil {
		t.Fatal(err)
	}
	return live(t, store, sess)
}

// owned is what a test needs of a session to act as its owner.
type owned interface {
	ID() string
	ControlToken() string
}

func (l *liveSession) ID() string           { return l.id }
func (l *liveSession) ControlToken() string { return l.control }

// read is the session as the store holds it now.
func (l *liveSession) read() *play.Session {
	l.t.Helper()
	got, err := l.store.Get(context.Background(), l.id)
	if err != nil {
		l.t.Fatalf("session %s: %v", l.id, err)
	}
	return got
}

func (l *liveSession) Scenario() scenario.Scenario { l.t.Helper(); return l.read().Scenario() }
func (l *liveSession) View() play.View             { l.t.Helper(); return l.read().View() }
func (l *liveSession) Now() int64                  { l.t.Helper(); return l.read().Now() }

// do runs fn on the session in its store, as an action does.
func (l *liveSession) do(fn func(*play.Session) error) error {
	_, err := l.store.Update(context.Background(), l.id, fn)
	return err
}

func (l *liveSession) Jump(at int64) error {
	return l.do(func(s *play.Session) error { return s.Jump(at) })
}

func (l *liveSession) Fire(n int64) error {
	return l.do(func(s *play.Session) error { return s.Fire(n) })
}

func (l *liveSession) Load(sc scenario.Scenario) error {
	return l.do(func(s *play.Session) error { return s.Load(sc) })
}

func (l *liveSession) Reset() error {
	return l.do(func(s *play.Session) error { return s.Reset() })
}

func (l *liveSession) Select(i int) error {
	return l.do(func(s *play.Session) error { return s.Select(i) })
}

func (l *liveSession) SetSpeed(sp play.Speed) error {
	return l.do(func(s *play.Session) error { return s.SetSpeed(sp) })
}

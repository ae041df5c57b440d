// Package webtest holds what the tests of package web and of its feature
// packages (web/play, web/room, web/lessons, web/simulate) share: the
// Datastar bundle's path, a log to assert on, and a playground session
// followed through its store.
//
// It does not import package web, so web's own in-package tests can use
// it; each package's helpers_test.go builds its server with web.New and
// BundlePath.
package webtest

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
)

// datastarPath is web.DefaultDatastarPath, repeated: importing web here
// would keep web's own tests from using this package.
const datastarPath = "node_modules/@starfederation/datastar/dist/datastar.js"

// BundlePath finds the Datastar bundle that `npm ci` installs at the module
// root, whichever package directory the test runs in.
func BundlePath(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, datastarPath)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// LogBuffer collects a Server's log lines for assertions.
type LogBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *LogBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *LogBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Logger logs every level into a new LogBuffer.
func Logger() (*slog.Logger, *LogBuffer) {
	logs := &LogBuffer{}
	return slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})), logs
}

// LiveSession is a session as a test follows it: a session is a value, so
// every read goes to the store (after the test acted over HTTP, it reads
// the result) and every change through the store's Update.
type LiveSession struct {
	t     testing.TB
	store play.Sessions
	id    string
	// control is the ControlToken, which only the copy the store made
	// first is sure to carry.
	control string
}

// Live follows sess, as store holds it.
func Live(t testing.TB, store play.Sessions, sess *play.Session) *LiveSession {
	return &LiveSession{t: t, store: store, id: sess.ID(), control: sess.ControlToken()}
}

// NewLive opens a session holding sc in store and follows it.
func NewLive(t testing.TB, store *play.Store, sc scenario.Scenario) *LiveSession {
	t.Helper()
	sess, err := store.New(sc)
	if err != nil {
		t.Fatal(err)
	}
	return Live(t, store, sess)
}

// Owned is what a test needs of a session to act as its owner.
type Owned interface {
	ID() string
	ControlToken() string
}

func (l *LiveSession) ID() string           { return l.id }
func (l *LiveSession) ControlToken() string { return l.control }

// Read is the session as the store holds it now.
func (l *LiveSession) Read() *play.Session {
	l.t.Helper()
	got, err := l.store.Get(context.Background(), l.id)
	if err != nil {
		l.t.Fatalf("session %s: %v", l.id, err)
	}
	return got
}

func (l *LiveSession) Scenario() scenario.Scenario { l.t.Helper(); return l.Read().Scenario() }
func (l *LiveSession) View() play.View             { l.t.Helper(); return l.Read().View() }
func (l *LiveSession) Now() int64                  { l.t.Helper(); return l.Read().Now() }

// Do runs fn on the session in its store, as an action does.
func (l *LiveSession) Do(fn func(*play.Session) error) error {
	_, err := l.store.Update(context.Background(), l.id, fn)
	return err
}

func (l *LiveSession) Jump(at int64) error {
	return l.Do(func(s *play.Session) error { return s.Jump(at) })
}

func (l *LiveSession) Fire(n int64) error {
	return l.Do(func(s *play.Session) error { return s.Fire(n) })
}

func (l *LiveSession) Load(sc scenario.Scenario) error {
	return l.Do(func(s *play.Session) error { return s.Load(sc) })
}

func (l *LiveSession) Reset() error {
	return l.Do(func(s *play.Session) error { return s.Reset() })
}

func (l *LiveSession) Select(i int) error {
	return l.Do(func(s *play.Session) error { return s.Select(i) })
}

func (l *LiveSession) SetSpeed(sp play.Speed) error {
	return l.Do(func(s *play.Session) error { return s.SetSpeed(sp) })
}

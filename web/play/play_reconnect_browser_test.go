package play

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/windowlab/playground/internal/browsertest"
	"github.com/windowlab/playground/internal/webtest"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/web"
)

// serveOn serves the playground over store at addr, as the serve command
// does (streams end when it shuts down), until the returned stop is called.
func serveOn(t *testing.T, addr string, store *play.Store) (stop func()) {
	t.Helper()
	s, err := web.New(web.Config{DatastarPath: webtest.BundlePath(t), Version: "test-version", Features: []web.Feature{Playground(store)}}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	var ln net.Listener
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) { // waits on the operating system to free the port
		if ln, err = net.Listen("tcp", addr); err == nil || time.Since(start) > 5*time.Second {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 5 * time.Second}
	hs.RegisterOnShutdown(s.EndStreams)
	go func() {
		if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("serving %s: %v", addr, err)
		}
	}()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := hs.Shutdown(ctx); err != nil {
			t.Errorf("shutting %s down: %v", addr, err)
		}
	}
	t.Cleanup(stop)
	return stop
}

// An open /play whose server restarts says it is disconnected, reconnects
// on its own and re-renders; when the new server no longer has its session,
// it says so before any click.
func TestBrowserPlayReconnectsAfterARestart(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String() // a fixed port for every server of the test
	ln.Close()
	store := play.NewStore(nil)
	stop := serveOn(t, addr, store)
	tab := openPlay(t, "http://"+addr+"/play")
	tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="fire"]`)))
	waitCount(t, tab, 1)

	disconnected := func(step string) {
		t.Helper()
		tab.WaitText(`[data-testid="connection"]`, "Disconnected from the server")
		if got := tab.Text(`[data-testid="live-status"]`); got == "Live: connected" {
			t.Errorf("%s: the footer says %q while the stream is down", step, got)
		}
	}

	// A restart that keeps the session (the same store): the page comes
	// back by itself and works again.
	stop()
	disconnected("restart 1")
	stop = serveOn(t, addr, store)
	tab.WaitText(`[data-testid="live-status"]`, "Live: connected")
	if hidden := browsertest.Run(tab, chromedp.Evaluate[bool](`document.querySelector('[data-testid="connection"]').hidden`)); !hidden {
		t.Errorf("restart 1: the disconnection notice stays after reconnecting: %q", tab.Text(`[data-testid="connection"]`))
	}
	tab.Do(chromedp.Click(chromedp.CSS(`[data-testid="fire"]`)))
	waitCount(t, tab, 2)

	// A restart that loses it (a new, empty store): the page says so
	// without being clicked.
	stop()
	disconnected("restart 2")
	serveOn(t, addr, play.NewStore(nil))
	tab.WaitText(`[data-testid="summary"]`, "This playground session has ended")
	tab.WaitText(`[data-testid="connection"]`, "session has ended")
	tab.WaitText(`[data-testid="live-status"]`, "Live: this playground session has ended")
}

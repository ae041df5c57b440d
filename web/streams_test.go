package web

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
)

// TestStreamThatIsNotReadIsClosedWithinItsDeadline: a client that opens a
// stream and stops reading fills the kernel's buffers; the stream's next
// write then fails within the write deadline, and its handler returns,
// where it used to wait for ever.
func TestStreamThatIsNotReadIsClosedWithinItsDeadline(t *testing.T) {
	const deadline = 300 * time.Millisecond
	type ending struct {
		err       error
		lastWrote time.Time
	}
	ended := make(chan ending, 1)
	chunk := []byte("data: " + strings.Repeat("x", 64<<10) + "\n\n")
	feature := FeatureFunc(func(s *Server, r chi.Router) error {
		r.Get("/test/stream", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			rc := http.NewResponseController(w)
			var last time.Time
			for {
				if _, err := w.Write(chunk); err != nil {
					ended <- ending{err, last}
					return
				}
				if err := rc.Flush(); err != nil {
					ended <- ending{err, last}
					return
				}
				last = time.Now()
			}
		})
		return nil
	})
	s, base, _ := newTestServer(t, feature)
	s.streamWrite = deadline
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.(*net.TCPConn).SetReadBuffer(4 << 10); err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Fprintf(conn, "GET /test/stream HTTP/1.1\r\nHost: test\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReaderSize(conn, 16), nil)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("opening the stream: %v, %v", res, err)
	}
	// Not another byte is read.
	select {
	case e := <-ended:
		if e.lastWrote.IsZero() {
			t.Fatalf("the stream failed before any event went out: %v", e.err)
		}
		if waited := time.Since(e.lastWrote); waited > deadline+2*time.Second {
			t.Errorf("the stream's write failed %v after its last good write, want within about %v", waited, deadline)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a stream nobody reads was still writing after 30 s")
	}
}

// TestStreamDeadlineIsOnlyOnStreams: the deadline and the per-client count
// apply to the event streams (every one a GET of …/stream), not to pages or
// the API, whose large answers a slow reader may take longer over.
func TestStreamDeadlineIsOnlyOnStreams(t *testing.T) {
	for _, tc := range []struct {
		method, path string
		want         bool
	}{
		{http.MethodGet, "/play/abc/stream", true},
		{http.MethodGet, "/room/abc/stream", true},
		{http.MethodGet, "/play", false},
		{http.MethodPost, "/room/abc/stream", false},
		{http.MethodGet, "/api/simulate", false},
	} {
		r, _ := http.NewRequest(tc.method, tc.path, nil)
		if got := isStream(r); got != tc.want {
			t.Errorf("%s %s: isStream = %v, want %v", tc.method, tc.path, got, tc.want)
		}
	}
}

// TestLimitConnsPerClient: a remote address past its share of connections
// is closed as soon as it is accepted, until one of its own closes; a
// trusted proxy's connections are not counted.
func TestLimitConnsPerClient(t *testing.T) {
	for _, tc := range []struct {
		name    string
		trusted []netip.Prefix
		served  int // of 3 connections at once
	}{
		{"a client", nil, 2},
		{"a trusted proxy", []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, 3},
	} {
		inner, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ln := LimitConnsPerClient(inner, 2, tc.trusted)
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("ok")) })}
		go func() { _ = srv.Serve(ln) }()
		ask := func(c net.Conn) bool {
			_ = c.SetDeadline(time.Now().Add(5 * time.Second))
			if _, err := fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: test\r\n\r\n"); err != nil {
				return false
			}
			res, err := http.ReadResponse(bufio.NewReader(c), nil)
			return err == nil && res.StatusCode == http.StatusOK
		}
		var conns []net.Conn
		served := 0
		for range 3 {
			c, err := net.Dial("tcp", inner.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
			if ask(c) {
				served++
			}
		}
		if served != tc.served {
			t.Errorf("%s: %d of 3 connections at once served, want %d", tc.name, served, tc.served)
		}
		conns[0].Close()
		// The server notices the close when it next reads: try until then.
		again := false
		for end := time.Now().Add(5 * time.Second); !again && time.Now().Before(end); {
			c, err := net.Dial("tcp", inner.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			again = ask(c)
			c.Close()
		}
		if !again {
			t.Errorf("%s: no connection was served after one of the first closed", tc.name)
		}
		for _, c := range conns {
			c.Close()
		}
		_ = srv.Close()
	}
}

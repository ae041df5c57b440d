package web

import (
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/windowlab/playground/scenario"
)

// Bounds on what one client holds open. A stream costs the server some
// 157 KB (its buffers, its goroutine and its share of the kernel's send
// queue; docs/performance.md), so the caps bound what one address can
// make the server hold.
const (
	// StreamsPerClient is how many event streams (GET …/stream: a
	// playground's, a room's) one client (ClientAddress) may hold open at
	// once. A class of 250 behind one public address, each with a room's
	// page open, fits with some to spare; a flood from one address holds
	// at most some 50 MB of streams and cannot take a room's attendee
	// places (1,000) alone.
	StreamsPerClient = 300
	// ConnsPerClient is how many TCP connections one remote address may
	// hold open (LimitConnsPerClient): a browser opens up to six to a
	// host, so a class of 100 devices behind one address fits. A trusted
	// proxy's connections are not counted: the proxy carries everyone.
	ConnsPerClient = 600
	// MaxHeaderBytes bounds a request's line and header fields: a shared
	// link's s parameter (scenario.MaxParamBytes) and 16 KB for the rest
	// (a few cookies, Datastar's headers). Go's default, 1 MB, let 500
	// connections of unfinished headers take 750 MB.
	MaxHeaderBytes = scenario.MaxParamBytes + 16<<10
	// StreamWriteTimeout is how long an event stream may take to hand one
	// event to the connection. A client that stops reading fills the
	// kernel's buffers; its stream is then closed within this long instead
	// of holding its memory for ever, and a page that was only slow
	// reconnects as after any dropped stream.
	StreamWriteTimeout = 5 * time.Second
)

var errStreamsPerClient = errors.New("this network address holds as many open streams as one address may; close some of its tabs, or try again in a few seconds")

// clientCounts counts what each client holds open, up to a bound.
type clientCounts struct {
	max int
	mu  sync.Mutex
	n   map[string]int
}

func newClientCounts(max int) *clientCounts { return &clientCounts{max: max, n: map[string]int{}} }

// take counts one more for client, unless it holds the bound already.
func (c *clientCounts) take(client string) (release func(), ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n[client] >= c.max {
		return nil, false
	}
	c.n[client]++
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			if c.n[client]--; c.n[client] <= 0 {
				delete(c.n, client)
			}
		})
	}, true
}

// isStream reports whether r opens an event stream: every stream of the
// site is a GET of a path ending in /stream.
func isStream(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/stream")
}

// streamShares counts each client's open streams against StreamsPerClient
// (503 with Retry-After beyond it) and gives every stream a write deadline
// of StreamWriteTimeout per event (deadlineWriter).
func (s *Server) streamShares(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isStream(r) {
			next.ServeHTTP(w, r)
			return
		}
		release, ok := s.streams.take(s.ClientAddress(r))
		if !ok {
			s.NoteCapacity(w, r, StreamRetryAfter)
			http.Error(w, "Refused: "+errStreamsPerClient.Error()+".", http.StatusServiceUnavailable)
			return
		}
		defer release()
		next.ServeHTTP(&deadlineWriter{ResponseWriter: w, rc: http.NewResponseController(w), timeout: s.streamWrite}, r)
	})
}

// deadlineWriter sets a write deadline before each write and flush of a
// stream, so a write to a client that does not read fails within timeout
// and the stream's handler returns. The deadline is moved, never cleared:
// between events the connection is idle and no deadline is reached by
// not writing.
type deadlineWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (d *deadlineWriter) arm() { _ = d.rc.SetWriteDeadline(time.Now().Add(d.timeout)) }

func (d *deadlineWriter) WriteHeader(status int) { d.arm(); d.ResponseWriter.WriteHeader(status) }

func (d *deadlineWriter) Write(p []byte) (int, error) {
	d.arm()
	return d.ResponseWriter.Write(p)
}

// FlushError flushes within the deadline and says whether it failed, so
// http.ResponseController's Flush reports a client that stopped reading.
func (d *deadlineWriter) FlushError() error {
	d.arm()
	return d.rc.Flush()
}

// Unwrap lets http.ResponseController reach the connection beneath.
func (d *deadlineWriter) Unwrap() http.ResponseWriter { return d.ResponseWriter }

// LimitConnsPerClient closes, as soon as it is accepted, a connection from
// a remote address that holds per connections already, unless the address
// is a trusted proxy's (Config.TrustedProxies), whose connections carry
// many clients; the per-client bounds of the requests see through it.
func LimitConnsPerClient(ln net.Listener, per int, trusted []netip.Prefix) net.Listener {
	return &connShares{Listener: ln, counts: newClientCounts(per), trusted: trusted}
}

type connShares struct {
	net.Listener
	counts  *clientCounts
	trusted []netip.Prefix
}

func (l *connShares) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ip := remoteIP(c.RemoteAddr().String())
		if trustedBy(l.trusted, ip) {
			return c, nil
		}
		release, ok := l.counts.take(ip.String())
		if !ok {
			_ = c.Close()
			continue
		}
		return &countedConn{Conn: c, release: release}, nil
	}
}

type countedConn struct {
	net.Conn
	release func()
}

func (c *countedConn) Close() error {
	c.release()
	return c.Conn.Close()
}

// StreamHeartbeat is the longest a stream stays silent: with nothing to
// update, it sends an empty signals event this often. play-connection.js
// takes a stream silent for three of these as lost and opens another.
const StreamHeartbeat = 15 * time.Second

// UpdateInterval is the shortest gap between two updates of one stream:
// at most ten a second while the clock plays.
const UpdateInterval = 100 * time.Millisecond

// TouchEvery is how often a stream's follower tells the store its session
// is in use: the store's bounds count use in seconds (play.MinIdleForEviction
// is a minute), and on NATS each Touch is a round trip, so the clock's ten
// ticks a second need not each be one.
const TouchEvery = time.Second

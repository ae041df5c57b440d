package web

import (
	"bytes"
	"cmp"
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5"
	"golang.org/x/sync/semaphore"

	"github.com/windowlab/playground/web/templates"
)

// DefaultDatastarPath is where `npm ci` puts the Datastar browser bundle,
// relative to the project directory. The server serves the copy built into
// the binary unless Config.DatastarPath names another file.
const DefaultDatastarPath = "node_modules/@starfederation/datastar/dist/datastar.js"

//go:embed static
var staticFiles embed.FS

// Config configures a Server. The zero value is usable.
type Config struct {
	// DatastarPath is the Datastar browser bundle (a self-contained ES
	// module), read once by New. Empty means the bundle built into the
	// binary (see datastar_bundle.go).
	DatastarPath string
	// Version names the running build in every page's footer. Empty means "dev".
	Version string
	// PublicURL is the address attendees' devices reach this server at (the
	// -public-url flag, checked by room.ParsePublicURL), for join links and
	// QR codes. Empty means the request's own host (see room.JoinURLs).
	PublicURL string
	// Listen is the address the server listens on (serve's -addr, as
	// bound), so that pages offer attendees only addresses it answers at.
	// Nil means not known: every address of the machine.
	Listen net.Addr
	// Features add parts of the site after the built-in pages (home, health
	// check, static files).
	Features []Feature
	// RunSlots is how many worst-case scenario runs (MaxRunWork) may go on
	// at once, for /api/simulate and the decisions downloads. Zero means
	// GOMAXPROCS-1 (at least 1): a run is one goroutine's work, so more
	// would only share the cores and all answer later, and one core stays
	// free for pages and streams.
	RunSlots int
	// TrustedProxies are the addresses of reverse proxies whose
	// X-Forwarded-For names the client (see ClientAddress). Empty: the
	// remote address is the client, and X-Forwarded-For is ignored.
	TrustedProxies []netip.Prefix
	// StreamsPerClient bounds the event streams one client holds open;
	// zero means StreamsPerClient.
	StreamsPerClient int
	// BodyReadTimeout is how long a body read with ReadBody may take to
	// arrive; zero means BodyReadTimeout. Tests shorten it.
	BodyReadTimeout time.Duration
	// StreamHeartbeat is how long a stream stays silent before it sends
	// an empty event; zero means StreamHeartbeat. Tests shorten it.
	StreamHeartbeat time.Duration
	// Now is the server's clock: what its limits, its run budget and the
	// features' live streams (their pacing, touches and the playing clocks
	// they read) count on. Nil means time.Now. Streams wait on real timers
	// between readings, so a clock given here must move with them: a
	// testing/synctest bubble's time.Now, or time.Now plus an offset a test
	// moves forward; tests of the limits alone may hold it still.
	Now func() time.Time
}

// A Feature is one part of the site — the playground, the lessons — that adds
// its routes to the router. It gets the Server for what all pages share:
// Page, Render, NotFound, Fail, NewSSE and the logger.
//
// SetupRoutes is called once, by New, before the server handles any request.
type Feature interface {
	SetupRoutes(s *Server, r chi.Router) error
}

// FeatureFunc adapts a function to the Feature interface.
type FeatureFunc func(s *Server, r chi.Router) error

// SetupRoutes calls f(s, r).
func (f FeatureFunc) SetupRoutes(s *Server, r chi.Router) error { return f(s, r) }

// Server is the site's http.Handler.
type Server struct {
	log     *slog.Logger
	now     func() time.Time // Config.Now
	version string
	assets  *assetTable
	router  chi.Router
	routes  map[string]bool // "METHOD pattern" of every route, for Allow

	publicURL string     // Config.PublicURL
	listenIP  netip.Addr // Config.Listen's IP, or invalid

	// closing is cancelled by EndStreams; NewSSE ties every stream to it.
	closing    context.Context
	endStreams context.CancelFunc

	runs           *runLimiter
	limits         *clientLimits
	streams        *clientCounts // open streams per client (streamShares)
	streamWrite    time.Duration // StreamWriteTimeout; tests shorten it
	bodies         *clientCounts // /api/simulate bodies being read, per client
	bodySlots      *semaphore.Weighted
	bodyRead       time.Duration // Config.BodyReadTimeout
	refusals       *refusalLog
	outages        *refusalLog // answers given while the store is unreachable
	trustedProxies []netip.Prefix
	runTimeout     time.Duration
	runStarting    func()           // tests: called as a replay begins
	heartbeat      time.Duration    // Config.StreamHeartbeat
	bodyBounds     map[string]int64 // AllowBody's, by path; written before serving only

}

// New builds the site. It fails when the Datastar bundle cannot be read (the
// error says to run `npm ci`, and to build again when the binary lacks it)
// or when a feature cannot set up its routes.
func New(cfg Config, log *slog.Logger) (*Server, error) {
	if log == nil {
		return nil, errors.New("web: New expects a logger")
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}

	assets := newAssetTable()
	static, err := fs.Sub(staticFiles, "static")
	if err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	if err := assets.addFS(static); err != nil {
		return nil, err
	}
	bundle, err := readDatastarBundle(staticFiles, cfg.DatastarPath)
	if err != nil {
		return nil, err
	}
	if err := assets.add("datastar.js", bundle); err != nil {
		return nil, err
	}

	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	closing, endStreams := context.WithCancel(context.Background())
	s := &Server{
		log:         log,
		now:         now,
		version:     cfg.Version,
		publicURL:   cfg.PublicURL,
		listenIP:    listenIP(cfg.Listen),
		assets:      assets,
		closing:     closing,
		endStreams:  endStreams,
		runs:        newRunLimiter(cfg.RunSlots, now),
		limits:      newClientLimits(now),
		streams:     newClientCounts(cmp.Or(cfg.StreamsPerClient, StreamsPerClient)),
		streamWrite: StreamWriteTimeout,
		bodies:      newClientCounts(bodyReadsPerClient),
		bodySlots:   semaphore.NewWeighted(bodyReads),
		bodyRead:    cmp.Or(cfg.BodyReadTimeout, BodyReadTimeout),
		refusals:    &refusalLog{now: now, interval: 10 * time.Second},
		outages:     &refusalLog{now: now, interval: 10 * time.Second, what: "answered 503: the store is unreachable"},

		trustedProxies: cfg.TrustedProxies,
		runTimeout:     RunTimeout,
		heartbeat:      cmp.Or(cfg.StreamHeartbeat, StreamHeartbeat),
	}

	r := chi.NewRouter()
	r.Use(s.logRequests, s.recoverPanics, securityHeaders, crossOrigin(), s.limitBodies, s.streamShares, s.getHead)
	r.NotFound(s.NotFound)
	r.MethodNotAllowed(s.methodNotAllowed)
	s.router = r

	features := append([]Feature{FeatureFunc(setupSiteRoutes)}, cfg.Features...)
	var errs []error
	for _, f := range features {
		errs = append(errs, f.SetupRoutes(s, r))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	s.routes = map[string]bool{}
	if err := chi.Walk(r, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		s.routes[method+" "+route] = true
		return nil
	}); err != nil {
		return nil, fmt.Errorf("web: listing routes: %w", err)
	}
	return s, nil
}

// Now reads the server's clock (Config.Now).
func (s *Server) Now() time.Time { return s.now() }

// ServeHTTP routes a request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.router.ServeHTTP(w, r)
}

// PublicURL is Config.PublicURL: where attendees reach the server, or "".
func (s *Server) PublicURL() string { return s.publicURL }

// ListenIP is the address the server is bound to (0.0.0.0 or :: for every
// address of the machine), or an invalid Addr when not known.
func (s *Server) ListenIP() netip.Addr { return s.listenIP }

func listenIP(a net.Addr) netip.Addr {
	if tcp, ok := a.(*net.TCPAddr); ok {
		if ip, ok := netip.AddrFromSlice(tcp.IP); ok {
			return ip.Unmap()
		}
	}
	return netip.Addr{}
}

// Log is the server's logger, for features.
func (s *Server) Log() *slog.Logger { return s.log }

// Closing is done once EndStreams is called: work a stream starts that
// outlives its request (a shared feed, a room's hub) ends with it.
func (s *Server) Closing() context.Context { return s.closing }

// Heartbeat is how long a stream may stay silent (StreamHeartbeat, unless
// Config.StreamHeartbeat says otherwise).
func (s *Server) Heartbeat() time.Duration { return s.heartbeat }

// EndStreams ends every SSE stream opened with NewSSE, now and in future.
// Register it with http.Server.RegisterOnShutdown: Shutdown waits for
// handlers to return, and a stream's handler returns only when its context
// ends.
func (s *Server) EndStreams() { s.endStreams() }

// Page is the layout's view of the page answering r.
func (s *Server) Page(r *http.Request, title string, section templates.Section) templates.Page {
	return templates.Page{
		Title:        title,
		Section:      section,
		Assets:       s.assets,
		Version:      s.version,
		Path:         s.pagePath(r),
		Presentation: r.URL.Query().Get("present") == "1",
	}
}

// pagePath is the address the presentation-mode link reopens by GET: the
// request's, unless it answered a POST at an address GET does not reach (a
// 405), where the handler may name a page (Page.Path) and "/" stands in.
func (s *Server) pagePath(r *http.Request) string {
	if r.Method == http.MethodGet || r.Method == http.MethodHead || s.routed(http.MethodGet, r) {
		return r.URL.RequestURI()
	}
	return "/"
}

// Render writes a complete HTML page with the given status. The component is
// rendered into memory first, so a failing component yields the error page
// rather than half a page.
func (s *Server) Render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	var buf bytes.Buffer
	if err := c.Render(r.Context(), &buf); err != nil {
		s.Fail(w, r, fmt.Errorf("rendering page: %w", err))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// NotFound answers with the 404 page.
func (s *Server) NotFound(w http.ResponseWriter, r *http.Request) {
	s.Render(w, r, http.StatusNotFound, templates.NotFound(s.Page(r, "Page not found", templates.SectionNone)))
}

// methodNotAllowed answers 405 with the Allow header a 405 must carry (RFC
// 9110, 15.5.6). chi's own handler sets it, but a custom handler is not told
// the methods, so they are found again by asking the router for each. Find
// also answers with a subrouter's mount point (POST /play/{id} for
// /play/decisions.csv), which takes any method and then refuses it, so only
// patterns that are routes of their own count.
func (s *Server) methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		// getHead answers HEAD wherever GET is routed.
		if s.routed(m, r) || m == http.MethodHead && slices.Contains(allow, http.MethodGet) {
			allow = append(allow, m)
		}
	}
	w.Header().Set("Allow", strings.Join(allow, ", "))
	http.Error(w, "Method not allowed", http.StatusMethodNotAllowed)
}

// routed reports whether a route of its own answers method at r's path,
// read as chi routes it: the escaped form when the request has one.
func (s *Server) routed(method string, r *http.Request) bool {
	path := r.URL.RawPath
	if path == "" {
		path = r.URL.Path
	}
	return s.routes[method+" "+s.router.Find(chi.NewRouteContext(), method, path)]
}

// getHead is chi's middleware.GetHead, which routes a HEAD request as GET
// when no HEAD route matches, except that a subrouter's mount point does
// not count as a match: with GetHead, HEAD /play/decisions.csv met the
// /play/{id} subrouter and was refused.
func (s *Server) getHead(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rctx := chi.RouteContext(r.Context()); r.Method == http.MethodHead && rctx != nil {
			if !s.routed(http.MethodHead, r) {
				rctx.RouteMethod = http.MethodGet
			}
		}
		next.ServeHTTP(w, r)
	})
}

// Fail logs err and answers with the plain 500 page, or, when err is the
// store being out of reach, with StoreUnreachablePage. Visitors never see err.
// A request whose client has left (or that shutdown cancelled) is not a
// failure of the server: it is logged at debug level and answered nothing.
func (s *Server) Fail(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() != nil {
		s.log.Debug("request abandoned", "method", r.Method, "path", r.URL.Path, slog.Any("error", err))
		return
	}
	if StoreUnreachable(err) {
		// Not a failure of this server: the store is out of reach, and the
		// visitor is told so in words, with 503 (and the log says it once
		// per 10 s with a count, however many pages retry).
		s.log.Debug("store unreachable", "method", r.Method, "path", r.URL.Path, slog.Any("error", err))
		s.StoreUnreachablePage(w, r)
		return
	}
	s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, slog.Any("error", err))
	s.writeServerError(w, r)
}

func (s *Server) writeServerError(w http.ResponseWriter, r *http.Request) {
	var buf bytes.Buffer
	if err := templates.ServerError(s.Page(r, "Something went wrong", templates.SectionNone)).Render(context.WithoutCancel(r.Context()), &buf); err != nil {
		http.Error(w, "Internal server error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusInternalServerError)
	_, _ = w.Write(buf.Bytes())
}

package web

import (
	"errors"
	"log/slog"
	"mime"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/go-chi/chi/v5/middleware"

	"github.com/windowlab/playground/scenario"
)

// contentSecurityPolicy allows scripts, styles and connections from the site
// itself only. Datastar compiles attribute expressions (data-text,
// data-on-click, ...) and merged signals with the Function constructor, which
// needs 'unsafe-eval'; it never needs inline <script> or style attributes.
// Inline scripts stay blocked, which also means a datastar-execute-script
// event does nothing on these pages.
const contentSecurityPolicy = "default-src 'self'; " +
	"script-src 'self' 'unsafe-eval'; " +
	"style-src 'self'; " +
	"img-src 'self' data:; " +
	"connect-src 'self'; " +
	"object-src 'none'; " +
	"base-uri 'none'; " +
	"form-action 'self'; " +
	"frame-ancestors 'none'"

// securityHeaders sets the headers every response carries.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
		next.ServeHTTP(w, r)
	})
}

// crossOrigin refuses a state-changing request (any method but GET, HEAD
// and OPTIONS) that the browser marks as coming from another site, by
// Sec-Fetch-Site or else by an Origin naming another host, with 403 — a
// text/plain form post included. A request with neither header (curl, a
// script posting to /api/simulate) passes: it carries no visitor's cookies
// unless its sender has them.
func crossOrigin() func(http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "Refused: this request came from another site. Changes are made only from this site's own pages (or by a client sending no Origin, such as curl).", http.StatusForbidden)
	}))
	return cop.Handler
}

// logRequests logs one line per request once it has been answered: method,
// path, status, bytes and duration. For an SSE stream that is when the stream
// ends. Health checks log at debug level so they do not drown the log.
func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		defer func() {
			status := ww.Status()
			if status == 0 {
				status = http.StatusOK // the handler wrote nothing
			}
			level := slog.LevelInfo
			switch {
			case status == http.StatusServiceUnavailable:
				// Refusals for capacity come in floods; the handler
				// logs them sampled at WARN (refusalLog).
				level = slog.LevelDebug
			case status >= 500:
				level = slog.LevelError
			case r.URL.Path == "/healthz":
				level = slog.LevelDebug
			}
			s.log.LogAttrs(r.Context(), level, "request",
				slog.String("method", r.Method),
				slog.String("path", r.URL.Path),
				slog.Int("status", status),
				slog.Int("bytes", ww.BytesWritten()),
				slog.Duration("duration", time.Since(start)),
			)
		}()
		next.ServeHTTP(ww, r)
	})
}

// recoverPanics turns a panicking handler into a logged error and the plain
// 500 page, as chi's middleware.Recoverer does but through slog and the
// site's layout. http.ErrAbortHandler is re-raised: net/http uses it to
// abort a response on purpose.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			rvr := recover()
			if rvr == nil {
				return
			}
			if rvr == http.ErrAbortHandler {
				panic(rvr)
			}
			s.log.Error("handler panicked",
				"method", r.Method, "path", r.URL.Path,
				slog.Any("error", rvr),
				slog.String("stack", string(debug.Stack())))
			if r.Header.Get("Connection") != "Upgrade" {
				s.writeServerError(w, r)
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// limitBodies bounds every request body by scenario.MaxBodyBytes, the bound
// of a scenario, so /api/simulate, /play/load and /exercises/{id} agree on
// what is too large and no handler can be made to read more; a path given
// to AllowBody has its own bound. A handler that reads past it gets an
// *http.MaxBytesError: see BodyTooLarge.
func (s *Server) limitBodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			limit := int64(scenario.MaxBodyBytes)
			if n, ok := s.bodyBounds[r.URL.Path]; ok {
				limit = n
			}
			r.Body = http.MaxBytesReader(w, r.Body, limit)
		}
		next.ServeHTTP(w, r)
	})
}

// AllowBody bounds the bodies sent to path by n bytes instead of a
// scenario's bound: for a feature taking uploads (web/traffic's logs).
// Call it from a feature's SetupRoutes, before the server serves.
func (s *Server) AllowBody(path string, n int64) {
	if s.bodyBounds == nil {
		s.bodyBounds = map[string]int64{}
	}
	s.bodyBounds[path] = n
}

// BodyTooLarge reports whether err comes from reading a body past
// limitBodies' bound.
func BodyTooLarge(err error) bool {
	var mbe *http.MaxBytesError
	return errors.As(err, &mbe)
}

// tooLargeMessage is what a visitor reads when a body is over the bound: the
// scenario decoder's own words.
func tooLargeMessage() string { return scenario.TooLarge().Error() }

// ReadForm parses a POST form, URL-encoded or multipart (Datastar sends
// FormData as multipart), within limitBodies' bound. Multipart file parts of
// up to that bound stay in memory, so no temp file is written; the returned
// cleanup removes any that were anyway, and callers defer it on every path.
func ReadForm(r *http.Request) (cleanup func(), err error) {
	cleanup = func() {}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "multipart/form-data" {
		err = r.ParseMultipartForm(scenario.MaxBodyBytes)
		if form := r.MultipartForm; form != nil {
			cleanup = func() { _ = form.RemoveAll() }
		}
		return cleanup, err
	}
	return cleanup, r.ParseForm()
}

// FormOrRefuse reads a POST form with ReadForm and, when it cannot, answers
// for the handler: 413 with the scenario decoder's words for a body over the
// bound, else 400 saying that what (e.g. "The answer") could not be read.
// The caller defers cleanup on every path and stops when ok is false.
func FormOrRefuse(w http.ResponseWriter, r *http.Request, what string) (cleanup func(), ok bool) {
	cleanup, err := ReadForm(r)
	switch {
	case BodyTooLarge(err):
		http.Error(w, tooLargeMessage(), http.StatusRequestEntityTooLarge)
	case err != nil:
		http.Error(w, what+" could not be read: "+err.Error(), http.StatusBadRequest)
	default:
		return cleanup, true
	}
	return cleanup, false
}

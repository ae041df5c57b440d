package web

import (
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/go-chi/chi/v5/middleware"
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

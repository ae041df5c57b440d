package web

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/a-h/templ"
	"github.com/klauspost/compress/gzip"
	"github.com/starfederation/datastar-go/datastar"
)

// This file is the only place that knows the wire protocol of the Datastar
// browser bundle the site serves: npm @starfederation/datastar 1.0.0-beta.11.
// datastar-go v1.2.2 writes Datastar 1.0 events (datastar-patch-elements, ...)
// that this bundle ignores, so its generic Send is used with the beta.11
// event names and data keys. Moving to a Datastar 1.0 bundle means replacing
// these functions with datastar-go's PatchElements and friends.
//
// Every event is a name plus data lines "<key> <value>". The browser splits
// each line at its first space and joins repeated keys with a newline, so a
// multi-line value is sent as one line per physical line, each with the key.
// Send does not split strings itself: a raw newline inside a data line would
// end the line and silently drop the rest of the value.
//
// The trap when handling a Datastar request: call datastar.ReadSignals BEFORE
// datastar.NewSSE (or Server.NewSSE). NewSSE flushes the response headers,
// after which a POST body can no longer be read.

// The events of the beta.11 protocol that the site sends. The bundle knows
// two more, datastar-remove-signals and datastar-execute-script, which no
// page needs: signals are merged, never removed, and behaviour lives in
// data-* attributes and static modules (the Content-Security-Policy blocks
// the inline script execute-script would insert). Add them here, with a
// test, when a page needs them.
const (
	EventMergeFragments  datastar.EventType = "datastar-merge-fragments"
	EventMergeSignals    datastar.EventType = "datastar-merge-signals"
	EventRemoveFragments datastar.EventType = "datastar-remove-fragments"
)

// MergeMode says how merged fragments meet the elements they target.
type MergeMode string

// The merge modes the site uses, of the eight beta.11 has (inner, outer,
// prepend, before, after and upsertAttributes are the others). MergeMorph
// is the browser's default.
const (
	MergeMorph  MergeMode = "morph"
	MergeAppend MergeMode = "append"
)

// FragmentOption changes how MergeFragments applies its HTML.
type FragmentOption func(*fragmentOptions)

type fragmentOptions struct {
	selector string
	mode     MergeMode
}

// WithSelector targets the elements matching a CSS selector instead of the
// element whose id each top-level fragment carries.
func WithSelector(selector string) FragmentOption {
	return func(o *fragmentOptions) { o.selector = selector }
}

// WithMergeMode sets how the fragments are merged; the default is morph.
func WithMergeMode(mode MergeMode) FragmentOption {
	return func(o *fragmentOptions) { o.mode = mode }
}

// MergeFragments sends HTML to merge into the page. Every top-level element
// needs an id unless a selector is given. SVG must be sent as a whole <svg>
// element: a bare SVG child would be parsed as HTML.
func MergeFragments(sse *datastar.ServerSentEventGenerator, html string, opts ...FragmentOption) error {
	return sse.Send(EventMergeFragments, fragmentLines(html, opts))
}

// fragmentLines are the data lines of a merge-fragments event: the one
// spelling of it, whether sent on one stream (MergeFragments) or encoded once
// for many (EncodeFragments).
func fragmentLines(html string, opts []FragmentOption) []string {
	var o fragmentOptions
	for _, opt := range opts {
		opt(&o)
	}
	var lines []string
	if o.selector != "" {
		lines = append(lines, "selector "+o.selector)
	}
	if o.mode != "" && o.mode != MergeMorph {
		lines = append(lines, "mergeMode "+string(o.mode))
	}
	return appendLines(lines, "fragments", html)
}

// EncodeFragments is MergeFragments written into bytes instead of onto one
// stream: the same event (TestEncodeFragmentsMatchesMergeFragments).
func EncodeFragments(buf *bytes.Buffer, html string, opts ...FragmentOption) {
	EncodeEvent(buf, EventMergeFragments, fragmentLines(html, opts))
}

// EncodeEvent writes one event as datastar-go's Send does, blank line and all.
func EncodeEvent(buf *bytes.Buffer, event datastar.EventType, lines []string) {
	buf.WriteString("event: " + string(event) + "\n")
	for _, l := range lines {
		buf.WriteString("data: " + l + "\n")
	}
	buf.WriteString("\n\n")
}

// MergeComponent renders a templ component with the stream's context and
// sends it as MergeFragments does.
func MergeComponent(sse *datastar.ServerSentEventGenerator, c templ.Component, opts ...FragmentOption) error {
	var buf bytes.Buffer
	if err := c.Render(sse.Context(), &buf); err != nil {
		return err
	}
	return MergeFragments(sse, buf.String(), opts...)
}

// MergeSignals sends signals to merge into the page's signals: a JSON object
// (any JavaScript object literal works). With onlyIfMissing, signals the
// page already has keep their values.
func MergeSignals(sse *datastar.ServerSentEventGenerator, signals []byte, onlyIfMissing bool) error {
	var lines []string
	if onlyIfMissing {
		lines = append(lines, "onlyIfMissing true")
	}
	lines = appendLines(lines, "signals", string(signals))
	return sse.Send(EventMergeSignals, lines)
}

// RemoveFragments removes the elements matching a CSS selector.
func RemoveFragments(sse *datastar.ServerSentEventGenerator, selector string) error {
	return sse.Send(EventRemoveFragments, appendLines(nil, "selector", selector))
}

// appendLines appends one "key line" data line per physical line of value,
// dropping carriage returns.
func appendLines(lines []string, key, value string) []string {
	value = strings.ReplaceAll(value, "\r", "")
	for line := range strings.SplitSeq(value, "\n") {
		lines = append(lines, key+" "+line)
	}
	return lines
}

// NewSSE starts a Datastar SSE response (after you have read the signals:
// see the note at the top of this file). The stream's context, sse.Context(),
// ends when the client goes away or when the server shuts down (EndStreams).
// A long-lived handler loops until that context is done and returns on the
// first send error; call done when the handler returns.
//
//	sse, done := s.NewSSE(w, r)
//	defer done()
//	ticker := time.NewTicker(interval)
//	defer ticker.Stop()
//	for {
//		select {
//		case <-sse.Context().Done():
//			return
//		case <-ticker.C:
//			if err := MergeComponent(sse, view()); err != nil {
//				return
//			}
//		}
//	}
//
// A stream is gzip-compressed when the client accepts gzip, by NewSSE
// itself: options that ask datastar-go for compression are overridden.
// datastar-go's default picks brotli for a browser's usual Accept-Encoding
// ("gzip, deflate, br, zstd"), and a brotli or stateful gzip compressor holds
// its window and hash tables for the stream's whole life: 13-18 MB per open
// page with brotli, about 0.8 MB with gzip. Stateless gzip (klauspost's
// StatelessCompression) compresses each event on its own and keeps nothing
// between events, so an idle stream holds about 16 KB; an event is a whole
// region of HTML, so the ratio stays close (59 KB of lanes: 10 KB against
// 7.6 KB at gzip's default level). TestStreamMemory measures it.
func (s *Server) NewSSE(w http.ResponseWriter, r *http.Request, opts ...datastar.SSEOption) (sse *datastar.ServerSentEventGenerator, done func()) {
	ctx, cancel := context.WithCancel(r.Context())
	stop := context.AfterFunc(s.closing, cancel)
	var zw *gzipStream
	if AcceptsGzip(r) {
		zw = newGzipStream(w)
		w = zw
		// The options see a request that accepts no encoding, so a
		// datastar.WithCompression among them picks none.
		r = r.WithContext(ctx)
		r.Header = r.Header.Clone()
		r.Header.Del("Accept-Encoding")
	}
	done = func() {
		stop()
		cancel()
		if zw != nil {
			_ = zw.Close()
		}
	}
	return datastar.NewSSE(w, r, append([]datastar.SSEOption{datastar.WithContext(ctx)}, opts...)...), done
}

// gzipStream gzips an SSE response, flushing the compressor whenever the
// stream flushes so every event reaches the browser at once.
type gzipStream struct {
	http.ResponseWriter
	zw *gzip.Writer
}

func newGzipStream(w http.ResponseWriter) *gzipStream {
	h := w.Header()
	h.Set("Content-Encoding", "gzip")
	h.Add("Vary", "Accept-Encoding")
	h.Del("Content-Length")
	zw, _ := gzip.NewWriterLevel(w, gzip.StatelessCompression) // a valid level
	return &gzipStream{ResponseWriter: w, zw: zw}
}

func (g *gzipStream) Write(p []byte) (int, error) { return g.zw.Write(p) }

// FlushError is what http.ResponseController.Flush calls.
func (g *gzipStream) FlushError() error {
	if err := g.zw.Flush(); err != nil {
		return err
	}
	return http.NewResponseController(g.ResponseWriter).Flush()
}

// Flush makes gzipStream an http.Flusher too.
func (g *gzipStream) Flush() { _ = g.FlushError() }

// Close writes the gzip trailer.
func (g *gzipStream) Close() error { return g.zw.Close() }

// Unwrap lets http.ResponseController reach the connection's deadlines.
func (g *gzipStream) Unwrap() http.ResponseWriter { return g.ResponseWriter }

// SSEReply answers a Datastar action with events, with status (the page
// applies the events of a 4xx answer too, and a direct caller sees the 4xx).
func SSEReply(w http.ResponseWriter, r *http.Request, status int, problem string) *datastar.ServerSentEventGenerator {
	w.Header().Set("Content-Type", "text/event-stream")
	if status != http.StatusOK {
		w.Header().Set("X-Problem", Truncate(problem, 300))
		w.Header().Set("Cache-Control", "no-store")
		if status == http.StatusServiceUnavailable && w.Header().Get("Retry-After") == "" {
			// A 503 always says when to try again: capacity refusals set
			// their own, and any other is the store being out of reach.
			w.Header().Set("Retry-After", strconv.Itoa(StoreRetryAfter))
		}
		w.WriteHeader(status)
	}
	return datastar.NewSSE(w, r)
}

// Truncate shortens s to at most n bytes (on a rune boundary), marking the cut.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

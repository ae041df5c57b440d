package web

import (
	"bytes"
	"context"
	"net/http"
	"strconv"

	"github.com/starfederation/datastar-go/datastar"

	"github.com/windowlab/playground/internal/outage"
	"github.com/windowlab/playground/web/templates"
)

// StoreRetryAfter is the Retry-After, in seconds, of an answer given while
// the store is unreachable: about how long a NATS server takes to restart.
const StoreRetryAfter = 3

// StoreUnreachableText is what a visitor reads while the store that keeps
// rooms and playground sessions is out of reach: what is wrong, that the
// server is on it, and that it is nobody's doing on their side.
const StoreUnreachableText = "The store that keeps rooms and playgrounds is unreachable just now; the server is retrying."

// storeUnreachableLive is the same on a live page, which needs no reload.
const storeUnreachableLive = StoreUnreachableText + " This page carries on by itself once it is back; what you did meanwhile was not done."

// StoreUnreachable reports whether err is the store being out of reach
// (outage.ErrUnreachable), which StoreUnreachablePage answers.
func StoreUnreachable(err error) bool { return outage.Is(err) }

// StoreUnreachablePage answers a request that needs the store while it is
// out of reach: 503 with Retry-After and the sentence, never a 500 or the
// store's own words. A Datastar request (an action or a stream) gets it as
// events that put the sentence in the page's connection notice, so that
// it shows where the visitor looks; a page load gets a page.
func (s *Server) StoreUnreachablePage(w http.ResponseWriter, r *http.Request) {
	s.outages.note(s.log, r)
	h := w.Header()
	h.Set("Retry-After", strconv.Itoa(StoreRetryAfter))
	h.Set("Cache-Control", "no-store")
	if r.Header.Get("Datastar-Request") == "true" {
		h.Set("Content-Type", "text/event-stream")
		h.Set("X-Problem", StoreUnreachableText)
		w.WriteHeader(http.StatusServiceUnavailable)
		_ = MergeComponent(datastar.NewSSE(w, r), templates.ConnectionNotice("refused", storeUnreachableLive))
		return
	}
	var buf bytes.Buffer
	if err := templates.StoreUnreachable(s.Page(r, "Please wait a moment", templates.SectionNone), StoreUnreachableText).Render(context.WithoutCancel(r.Context()), &buf); err != nil {
		http.Error(w, StoreUnreachableText, http.StatusServiceUnavailable)
		return
	}
	h.Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write(buf.Bytes())
}

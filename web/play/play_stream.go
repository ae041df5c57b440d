package play

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5"

	"github.com/windowlab/playground/web"
	"github.com/windowlab/playground/web/play/pages"
)

// regions renders every region of the page the stream keeps up to date, by
// element id, in page order.
func regions(pp pages.PlayPage, r *http.Request) ([]region, error) {
	var out []region
	render := func(id string, c templ.Component) error {
		var buf bytes.Buffer
		if err := c.Render(r.Context(), &buf); err != nil {
			return err
		}
		out = append(out, region{id: id, html: buf.String()})
		return nil
	}
	v := pp.View
	if err := render("play-clock", pages.PlayClock(v)); err != nil {
		return nil, err
	}
	if err := render("play-summary", pages.PlaySummary(v)); err != nil {
		return nil, err
	}
	if err := render("play-clients", pages.PlayClients(v)); err != nil {
		return nil, err
	}
	if err := render("play-overrides", pages.PlayOverrides(v)); err != nil {
		return nil, err
	}
	// Lanes are the bulk of the work: render them side by side.
	laneHTML := make([]region, len(v.Lanes))
	laneErr := make([]error, len(v.Lanes))
	var wg sync.WaitGroup
	for i, l := range v.Lanes {
		wg.Go(func() {
			var buf bytes.Buffer
			laneErr[i] = pages.PlayLane(pp, l).Render(r.Context(), &buf)
			laneHTML[i] = region{id: l.ID, html: buf.String()}
		})
	}
	wg.Wait()
	if err := errors.Join(laneErr...); err != nil {
		return nil, err
	}
	out = append(out, laneHTML...)
	if err := render("play-live", pages.PlayLive(v)); err != nil {
		return nil, err
	}
	if err := render("play-explain", pages.PlayExplanation(pp)); err != nil {
		return nil, err
	}
	if err := render("play-share", pages.PlayShare(pp)); err != nil {
		return nil, err
	}
	return out, nil
}

type region struct{ id, html string }

// stream keeps one open page up to date: the full state at once (also after
// a reconnect), then the regions that changed in each snapshot the
// session's feed publishes (after each change the store tells of, and every
// web.UpdateInterval while the clock plays, read at that instant: the clock is
// computed, and no stream advances it), at most every web.UpdateInterval.
func (p *playground) stream(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	feed, err := p.feeds.join(p.store, p.s.Closing(), id)
	if err != nil {
		p.sessionEnded(w, r)
		return
	}
	defer p.feeds.leave(id, feed)
	sess, next, _ := feed.current()
	// Compressed: an update of seven busy lanes is some 57 KB of HTML and
	// about 7 KB once compressed.
	sse, done := p.s.NewSSE(w, r)
	defer done()
	ctx := sse.Context()
	sent := map[string]string{}
	lanes := -1 // the lanes this stream has sent; -1 before its first render
	cache := &shareCache{}
	send := func() error {
		pp := p.pageDataCached(r, sess, cache)
		rs, err := regions(pp, r)
		if err != nil {
			return err
		}
		var list strings.Builder // every lane, for the first render
		for _, rg := range rs {
			if !strings.HasPrefix(rg.id, "lane-") {
				continue
			}
			if lanes < 0 {
				list.WriteString(rg.html)
				sent[rg.id] = rg.html
			}
		}
		if lanes < 0 {
			// The first render of a stream replaces the whole list of
			// lanes: after a reconnect the page may hold another number
			// of them.
			if err := web.MergeFragments(sse, `<div id="play-lane-list" class="lane-list">`+list.String()+`</div>`); err != nil {
				return err
			}
			lanes = len(pp.View.Lanes)
		}
		// Lanes that no longer exist (fewer policies) are removed; new ones
		// are appended to the list.
		for i := len(pp.View.Lanes); i < lanes; i++ {
			if err := web.RemoveFragments(sse, fmt.Sprintf("#lane-%d", i)); err != nil {
				return err
			}
			delete(sent, fmt.Sprintf("lane-%d", i))
		}
		for _, rg := range rs {
			old, seen := sent[rg.id]
			if seen && old == rg.html {
				continue
			}
			var opts []web.FragmentOption
			if !seen && strings.HasPrefix(rg.id, "lane-") {
				opts = append(opts, web.WithSelector("#play-lane-list"), web.WithMergeMode(web.MergeAppend))
			}
			if err := web.MergeFragments(sse, rg.html, opts...); err != nil {
				return err
			}
			sent[rg.id] = rg.html
		}
		lanes = len(pp.View.Lanes)
		return nil
	}
	// The first render of a new stream sends everything: after a reconnect
	// the page may hold stale regions.
	if err := send(); err != nil {
		if ctx.Err() != nil {
			// The page left (or the server is shutting down) mid-render.
			p.s.Log().Debug("play stream abandoned", "session", id, slog.Any("error", err))
		} else {
			p.s.Log().Error("play stream", "session", id, slog.Any("error", err))
		}
		return
	}
	ticker := time.NewTicker(web.UpdateInterval)
	defer ticker.Stop()
	pending := false
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-next:
			var ended bool
			if sess, next, ended = feed.current(); ended {
				return // forgotten: the page's reconnect hears it has ended
			}
			pending = true
			if time.Since(last) < web.UpdateInterval {
				continue // the ticker sends it: at most ten updates a second
			}
		case now := <-ticker.C:
			if !pending {
				if now.Sub(last) >= p.s.Heartbeat() {
					// A quiet stream still speaks now and then, so
					// that the page can tell a live stream from a
					// connection that died without closing (see
					// play-connection.js) and idle proxies keep it.
					last = now
					if err := web.MergeSignals(sse, []byte("{}"), false); err != nil {
						return
					}
				}
				continue
			}
		}
		pending = false
		last = time.Now()
		if err := send(); err != nil {
			return
		}
	}
}

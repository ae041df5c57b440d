package play

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/web"
	"github.com/windowlab/playground/web/fanout"
	"github.com/windowlab/playground/web/play/pages"
	"github.com/windowlab/playground/web/templates"
)

// The views of a session's shared stream: the page, the presentation
// view (?present=1), which draws its lanes and explanation larger, and the
// page on a phone (?narrow=1), which draws its lanes lane.PhoneWidth wide.
const (
	viewPage = iota
	viewPresent
	viewNarrow
	numViews
)

// viewQueries are the views' stream queries.
var viewQueries = [numViews]string{viewPage: "", viewPresent: "?present=1", viewNarrow: "?narrow=1"}

// sessionHub is this process's one follower of a session its play streams
// show, the state of its fanout.Hub: it watches the store once, reads each
// change once, touches the session once every web.TouchEvery and, while
// the clock plays, reads the clock every web.UpdateInterval; each time, it
// renders each followed view once (fanout.Hub.Publish), and every stream of
// that view writes the same bytes. Ten pages open on one playground cost
// the store and the renderer what one does, and a playing clock is read
// once per session, not once per stream.
type sessionHub struct {
	*fanout.Hub
	p  *playground
	id string
	// views are the views' own stream requests: the page data of a view
	// is the one its stream's address gives.
	views [numViews]*http.Request
	share shareCache
}

// follow counts a stream of view v of session id in, starting its hub if
// it has none; play.ErrNotFound when the store does not hold id.
func (p *playground) follow(id string, v int) (*fanout.Hub, func(), error) {
	start := func(ctx context.Context, hub *fanout.Hub) (*sessionHub, error) {
		changes, err := p.store.Watch(ctx, id)
		if err != nil {
			return nil, err
		}
		// Read once the store tells of every later change: one made
		// before Watch is in this copy.
		sess, err := p.store.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		h := &sessionHub{Hub: hub, p: p, id: id}
		for v, query := range viewQueries {
			if h.views[v], err = http.NewRequestWithContext(ctx, http.MethodGet, "/play/"+id+"/stream"+query, nil); err != nil {
				return nil, err
			}
		}
		go h.run(ctx, sess, changes)
		return h, nil
	}
	fl, err := p.hubs.Join(p.s.Closing(), id, fanout.JoinOptions[*sessionHub]{View: v, Views: numViews, Start: start})
	return fl.Hub, fl.Leave, err
}

// run follows the session until ctx ends or the store forgets it,
// rendering at most every web.UpdateInterval (web.Pacer): at once after a
// quiet spell, else when the interval since the last render is out. It
// counts on the server's clock (web.Server.Now), which moves with the
// ticker.
func (h *sessionHub) run(ctx context.Context, sess *play.Session, changes <-chan struct{}) {
	now := h.p.s.Now
	ticker := time.NewTicker(web.UpdateInterval)
	defer ticker.Stop()
	// Nothing rendered yet: the first follower's poke renders at once.
	pace := web.NewPacer(web.UpdateInterval, time.Time{})
	render := time.NewTimer(time.Hour)
	render.Stop()
	defer render.Stop()
	changed := func() {
		at := now()
		render.Reset(pace.Change(at, 0).Sub(at))
	}
	var touched time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case _, open := <-changes:
			latest, err := h.p.store.Get(ctx, h.id)
			if !open || err != nil {
				if ctx.Err() == nil {
					h.End() // forgotten: the pages' reconnects hear it has ended
				}
				return
			}
			sess = latest
			changed()
		case <-h.Poked():
			changed() // a view may have a new follower and no frame
		case <-ticker.C:
			now := now()
			// A watched session never idles out (play.Sessions); the
			// store also hears it is used.
			if now.Sub(touched) >= web.TouchEvery {
				if err := h.p.store.Touch(ctx, h.id); err != nil {
					if ctx.Err() == nil {
						h.End()
					}
					return
				}
				touched = now
			}
			if sess.Playing() {
				changed()
			}
		case <-render.C:
			at := now()
			if !pace.Ready(at) {
				if due := pace.Due(); !due.IsZero() { // the timer was early: wait out the rest
					render.Reset(due.Sub(at))
				}
				continue
			}
			if sess.Playing() {
				// Only the clock moved, and nothing is stored: read it
				// at this instant.
				sess = sess.At(at)
			}
			if err := h.render(sess); err != nil && ctx.Err() == nil {
				h.p.s.Log().Error("play stream", "session", h.id, slog.Any("error", err))
			}
		}
	}
}

// render renders each view some stream follows, once, and publishes it.
func (h *sessionHub) render(sess *play.Session) error {
	views := make([][]fanout.Region, numViews)
	var pp *pages.PlayPage
	for v, r := range h.views {
		if h.Followers(v) == 0 {
			continue
		}
		if pp == nil { // the session's view is read once: only the page's presentation and width differ
			d := h.p.pageDataCached(r, sess, &h.share)
			pp = &d
		}
		pp.Page, pp.Narrow = h.p.s.Page(r, "Playground", templates.SectionPlay), narrow(r)
		rs, err := regions(*pp, r)
		if err != nil {
			return err
		}
		views[v] = rs
	}
	return h.Publish(views)
}

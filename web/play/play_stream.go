package play

import (
	"bytes"
	"errors"
	"net/http"
	"strings"
	"sync"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/web/fanout"
	"github.com/windowlab/playground/web/play/pages"
)

// regions renders every region of the page the stream keeps up to date, by
// element id, in page order: the lanes each on its own, for updates, and
// as their whole list, for a stream's first frame (after a reconnect the
// page may hold another number of them).
func regions(pp pages.PlayPage, r *http.Request) ([]fanout.Region, error) {
	var out []fanout.Region
	render := func(id string, c templ.Component) error {
		var buf bytes.Buffer
		if err := c.Render(r.Context(), &buf); err != nil {
			return err
		}
		out = append(out, fanout.Region{ID: id, HTML: buf.String()})
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
	// Not the servers' fields: most pages are sent without them, so they
	// are one page's, kept by the settings' answer (pages.PlayServers).
	if err := render("play-overrides", pages.PlayOverrides(v)); err != nil {
		return nil, err
	}
	// Lanes are the bulk of the work: render them side by side.
	laneHTML := make([]fanout.Region, len(v.Lanes))
	laneErr := make([]error, len(v.Lanes))
	var wg sync.WaitGroup
	for i, l := range v.Lanes {
		wg.Go(func() {
			var buf bytes.Buffer
			laneErr[i] = pages.PlayLane(pp, l).Render(r.Context(), &buf)
			laneHTML[i] = fanout.Region{ID: l.ID, HTML: buf.String(), In: "#play-lane-list"}
		})
	}
	wg.Wait()
	if err := errors.Join(laneErr...); err != nil {
		return nil, err
	}
	var list strings.Builder
	list.WriteString(`<div id="play-lane-list" class="lane-list">`)
	for _, l := range laneHTML {
		list.WriteString(l.HTML)
	}
	list.WriteString(`</div>`)
	// The list comes first: a first frame's lanes are there before any
	// region that speaks of them.
	out = append([]fanout.Region{{ID: "play-lane-list", HTML: list.String(), Full: true}}, out...)
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

// stream keeps one open page up to date through its session's hub
// (sessionHub): the full state at once (also after a reconnect), then the
// regions that changed in each frame the hub publishes.
func (p *playground) stream(w http.ResponseWriter, r *http.Request) {
	v := viewPage
	if r.URL.Query().Get("present") == "1" { // as web.Server.Page reads it
		v = viewPresent
	}
	hub, leave, err := p.follow(chi.URLParam(r, "id"), v)
	if errors.Is(err, play.ErrNotFound) {
		p.sessionEnded(w, r)
		return
	}
	if err != nil {
		// Not ended: the page keeps retrying until the store is back.
		p.storeFailed(w, r, err)
		return
	}
	defer leave()
	hub.Follow(p.s.Closing(), w, r, v, p.s.Heartbeat())
}

package play

import (
	"bytes"
	"errors"
	"net/http"
	"strings"
	"sync"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5"

	"github.com/windowlab/playground/lane"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/web/fanout"
	"github.com/windowlab/playground/web/play/pages"
)

// laneRegions renders one lane of the page, then the parts of it that
// change as the clock moves (lane.Parts) as regions of their own: while
// the clock plays, a frame carries a few small elements per lane and not
// its hundreds of marks again, which the browser would parse and morph
// ten times a second. The lane's Key marks where each part is; a part
// not found drawn in it (which would be a defect) leaves the lane to be
// sent whole whenever it changes.
func laneRegions(r *http.Request, pp pages.PlayPage, l play.Lane) ([]fanout.Region, error) {
	var buf bytes.Buffer
	if err := pages.PlayLane(pp, l).Render(r.Context(), &buf); err != nil {
		return nil, err
	}
	whole := buf.String()
	out := []fanout.Region{{ID: l.ID, HTML: whole, In: "#play-lane-list"}}
	key := whole
	for _, part := range lane.Parts(lane.FromView(pp.View, l), pages.PlayLaneOptions(pp)) {
		buf.Reset()
		if err := part.Component.Render(r.Context(), &buf); err != nil {
			return nil, err
		}
		html := buf.String()
		if html == "" || !strings.Contains(key, html) {
			continue
		}
		key = strings.Replace(key, html, "\x00"+part.ID+"\x00", 1)
		out = append(out, fanout.Region{ID: part.ID, HTML: html, Of: l.ID})
	}
	out[0].Key = key
	return out, nil
}

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
	if err := render("lane-view", lane.ViewBar(v, pp.Base)); err != nil {
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
	laneHTML := make([][]fanout.Region, len(v.Lanes))
	laneErr := make([]error, len(v.Lanes))
	var wg sync.WaitGroup
	for i, l := range v.Lanes {
		wg.Go(func() { laneHTML[i], laneErr[i] = laneRegions(r, pp, l) })
	}
	wg.Wait()
	if err := errors.Join(laneErr...); err != nil {
		return nil, err
	}
	var list strings.Builder
	list.WriteString(`<div id="play-lane-list" class="lane-list">`)
	for _, l := range laneHTML {
		list.WriteString(l[0].HTML)
	}
	list.WriteString(`</div>`)
	// The list comes first: a first frame's lanes are there before any
	// region that speaks of them.
	out = append([]fanout.Region{{ID: "play-lane-list", HTML: list.String(), Full: true}}, out...)
	for _, l := range laneHTML {
		out = append(out, l...)
	}
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
	switch q := r.URL.Query(); {
	case q.Get("present") == "1": // as web.Server.Page reads it
		v = viewPresent
	case narrow(r):
		v = viewNarrow
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

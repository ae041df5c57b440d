package room

import (
	"net/http"

	"github.com/windowlab/playground/room"
	"github.com/windowlab/playground/web/room/pages"
	"github.com/windowlab/playground/web/templates"
)

// screen is the projector-only window (GET /room/{id}/screen): the
// projector's screen without the presenter's controls, following the
// room's projector stream. Watching is not control, so it asks for no
// cookie and its address carries no secret: the presenter opens it from
// the projector's page and drags it to the projector, keeping the controls
// on the laptop's own screen. It shows what the cookie-less projector
// stream already shows anyone who has the room's address.
func (f *Feature) screen(w http.ResponseWriter, r *http.Request) {
	rm, sess, ok := f.liveRoom(w, r)
	if !ok {
		return
	}
	p := pages.RoomPresent{
		Page:   f.s.Page(r, "Room "+rm.Code+" on the projector", templates.SectionPlay),
		Shared: f.shared(rm, sess, 0, f.askedCache(rm.ID)),
		Code:   rm.Code,
	}
	p.Page.Presentation = true
	p.Page.PresentationExit = "/room/" + rm.ID
	if err := f.joinLink(r, &p); err != nil {
		f.s.Fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	f.s.Render(w, r, http.StatusOK, pages.RoomScreenView(p))
}

// lanesAt is the instant a room's lanes are drawn at while question q is
// open: the clock until it reaches the question's moment, then that
// moment. The room keeps looking at what it is asked about: a presenter
// who presses Play (or steps on) with the question open sees the clock
// run on while the lanes stay on the question's requests, rather than
// following the clock into minutes with no marks. The lanes show nothing
// from the question's moment on in either case (questionCut).
func lanesAt(q *room.Question, now int64) int64 { return min(now, q.Request.At) }

// remote is the presenter's paired phone (GET /room/{id}/remote, where
// pairing leads): the controls alone, laid out for a phone, with the
// question and its counts, following the room's remote stream. Like the
// projector it is for the presenter's devices only (presenterOnly with
// refuseScreen).
func (f *Feature) remote(w http.ResponseWriter, r *http.Request) {
	rm, token := presenterOf(r)
	sess, ok := f.sessionOf(w, r, rm)
	if !ok {
		return
	}
	_ = f.rooms.Touch(r.Context(), rm.ID, token)
	p := pages.RoomPresent{
		Page:   f.s.Page(r, "Room "+rm.Code+" remote", templates.SectionNone),
		Shared: f.shared(rm, sess, 0, f.askedCache(rm.ID)),
		Code:   rm.Code,
	}
	w.Header().Set("Cache-Control", "no-store")
	f.s.Render(w, r, http.StatusOK, pages.RoomRemoteView(p))
}

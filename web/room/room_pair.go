package room

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/windowlab/playground/internal/qrsvg"
	"github.com/windowlab/playground/web"
	webplay "github.com/windowlab/playground/web/play"
	"github.com/windowlab/playground/web/room/pages"
	"github.com/windowlab/playground/web/templates"
)

// pairPage asks a second device for the pairing code, filled in when the
// link of the pairing page's QR code carries it.
func (f *Feature) pairPage(w http.ResponseWriter, r *http.Request) {
	// A link to a room that has ended says so at once, not after the
	// person has typed or sent the code.
	if _, err := f.rooms.ByID(r.Context(), chi.URLParam(r, "id")); err != nil {
		f.messagePage(w, r, roomStatus(err), "This room has ended", roomMessage(err))
		return
	}
	f.s.Render(w, r, http.StatusOK, pages.RoomPairView(pages.RoomPair{
		Page: f.s.Page(r, "Pair a device", templates.SectionNone), Room: chi.URLParam(r, "id"),
		Code: web.Truncate(r.URL.Query().Get("code"), 16)}))
}

// pairNew is the presenter's pairing page: GET shows it with no code, POST
// issues one (voiding the last). It is a page of its own, opened on the
// presenter's screen, because the code gives the room's control to
// whoever redeems it first and the projector's page is seen by the room.
func (f *Feature) pairNew(w http.ResponseWriter, r *http.Request) {
	rm, token := presenterOf(r)
	p := pages.RoomPairNew{
		Page: f.s.Page(r, "Pair a device", templates.SectionNone), Room: rm.ID,
		Action:  "/room/" + rm.ID + "/pair/new",
		Minutes: strconv.Itoa(int(f.rooms.Bounds().PairTTL.Minutes())),
	}
	if via := r.URL.Query().Get("via"); via != "" {
		p.Action += "?via=" + url.QueryEscape(via)
	}
	p.URL, p.Candidates, p.AddrNote = f.reachable(r, "/room/"+rm.ID+"/pair")
	if r.Method == http.MethodPost {
		var err error
		if p.Code, err = f.rooms.IssuePairing(r.Context(), rm.ID, token); err != nil {
			f.messagePage(w, r, roomStatus(err), "No pairing code", roomMessage(err))
			return
		}
		if p.URL != "" {
			p.URL += "?code=" + p.Code
			if p.QR, err = qrsvg.SVG(p.URL, "QR code of the pairing link "+p.URL); err != nil {
				f.s.Fail(w, r, err)
				return
			}
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	f.s.Render(w, r, http.StatusOK, pages.RoomPairNewView(p))
}

// redeem turns a pairing code into the presenter's capability on this device.
func (f *Feature) redeem(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	r.Body = http.MaxBytesReader(w, r.Body, webplay.MaxSignalBytes)
	client := f.s.ClientAddress(r)
	if !f.s.Admit(w, r, web.LimitPair, client) {
		f.s.Render(w, r, http.StatusTooManyRequests, pages.RoomPairView(pages.RoomPair{
			Page: f.s.Page(r, "Pair a device", templates.SectionNone), Room: id,
			Error: "Too many pairing codes were tried from this network just now: wait " + w.Header().Get("Retry-After") + " s, then type the code again."}))
		return
	}
	token, err := f.rooms.PairFrom(r.Context(), id, r.PostFormValue("code"), client)
	if err != nil {
		f.s.Render(w, r, roomStatus(err), pages.RoomPairView(pages.RoomPair{
			Page: f.s.Page(r, "Pair a device", templates.SectionNone), Room: id, Error: roomMessage(err)}))
		return
	}
	setRoomCookie(w, r, presenterCookie, id, token, http.SameSiteStrictMode)
	// A paired device is the presenter's remote; the remote links to the
	// projector page, for a device that is to show it.
	http.Redirect(w, r, "/room/"+id+"/remote", http.StatusSeeOther)
}

package room

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/room"
	"github.com/windowlab/playground/web"
	"github.com/windowlab/playground/web/room/pages"
	"github.com/windowlab/playground/web/templates"
)

// joinPage asks for a code; with ?code= it looks the room up.
func (f *Feature) joinPage(w http.ResponseWriter, r *http.Request) {
	typed := r.URL.Query().Get("code")
	name := web.Truncate(r.URL.Query().Get("name"), 64)
	page := pages.RoomJoin{Page: f.s.Page(r, "Join a room", templates.SectionNone), Code: typed, Name: name}
	if !r.URL.Query().Has("code") {
		f.s.Render(w, r, http.StatusOK, pages.RoomJoinView(page))
		return
	}
	if !f.s.Admit(w, r, web.LimitJoin, f.s.ClientAddress(r)) {
		page.Error = "Too many codes were tried from this network just now: wait " + w.Header().Get("Retry-After") + " s, then try the code again."
		f.s.Render(w, r, http.StatusTooManyRequests, pages.RoomJoinView(page))
		return
	}
	rm, err := f.rooms.ByCode(r.Context(), typed)
	if web.StoreUnreachable(err) {
		f.s.StoreUnreachablePage(w, r)
		return
	}
	if err != nil {
		page.Error = roomMessage(err)
		if errors.Is(err, room.ErrNotFound) {
			page.Error = "No room has that code: check it against the presenter's screen (the room may also have ended)."
		}
		f.s.Render(w, r, roomStatus(err), pages.RoomJoinView(page))
		return
	}
	to := "/room/" + rm.ID
	if n, err := room.NormaliseNickname(name); err != nil {
		page.Error = roomMessage(err)
		f.s.Render(w, r, http.StatusBadRequest, pages.RoomJoinView(page))
		return
	} else if n != "" {
		to += "?name=" + url.QueryEscape(n)
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// joinCode follows a join link or QR code.
func (f *Feature) joinCode(w http.ResponseWriter, r *http.Request) {
	if !f.s.Admit(w, r, web.LimitJoin, f.s.ClientAddress(r)) {
		f.s.Render(w, r, http.StatusTooManyRequests, pages.RoomJoinView(pages.RoomJoin{Page: f.s.Page(r, "Join a room", templates.SectionNone),
			Error: "Too many codes were tried from this network just now: wait " + w.Header().Get("Retry-After") + " s, then open the link again."}))
		return
	}
	rm, err := f.rooms.ByCode(r.Context(), chi.URLParam(r, "code"))
	if web.StoreUnreachable(err) {
		f.s.StoreUnreachablePage(w, r)
		return
	}
	if err != nil {
		page := pages.RoomJoin{Page: f.s.Page(r, "Join a room", templates.SectionNone), Error: roomMessage(err)}
		if errors.Is(err, room.ErrNotFound) {
			page.Error = "No room has the code in this link: type the code on the presenter's screen (the room may also have ended)."
		}
		f.s.Render(w, r, roomStatus(err), pages.RoomJoinView(page))
		return
	}
	http.Redirect(w, r, "/room/"+rm.ID, http.StatusSeeOther)
}

// phone is an attendee's page. Opening it joins the device, once: the
// attendee cookie it sets is what lets the device answer, so a script
// posting answers without it is refused, and the room's answers can never
// outnumber the devices that joined. A device the presenter removed stays
// out (its old cookie says who it was) until let back.
func (f *Feature) phone(w http.ResponseWriter, r *http.Request) {
	rm, sess, ok := f.liveRoom(w, r)
	if !ok {
		return
	}
	attendee := cookieValue(r, attendeeCookie)
	var note string
	if rm.RoleOf("", attendee) != room.Attendee {
		if !f.s.Admit(w, r, web.LimitJoin, f.s.ClientAddress(r)) {
			note = "This device has not joined: too many devices joined from this network just now. Open this page again in a minute to join."
		} else if joined, id, err := f.rooms.JoinAs(r.Context(), rm.ID, attendee, r.URL.Query().Get("name")); errors.Is(err, room.ErrNicknameTaken) || errors.As(err, new(*room.NicknameError)) {
			// The name typed at /join cannot be taken: join without it,
			// and say so beside the field to choose another.
			if joined, id, err = f.rooms.JoinAs(r.Context(), rm.ID, attendee, ""); err == nil {
				rm, attendee = joined, id
				setRoomCookie(w, r, attendeeCookie, rm.ID, id, http.SameSiteLaxMode)
			}
			note = "name:" + roomMessage(room.ErrNicknameTaken)
		} else if errors.Is(err, room.ErrJoinsClosed) {
			// Said at once, at the top: not after the attendee has
			// tapped every lane of a question.
			note = "This room is closed to new devices: this device can watch, but not answer. To take part, ask the presenter to open the room to new devices, then open this page again."
		} else if err != nil {
			note = "This device could not join, so it can watch but not answer: " + roomMessage(err)
		} else {
			rm, attendee = joined, id
			setRoomCookie(w, r, attendeeCookie, rm.ID, id, http.SameSiteLaxMode)
		}
	}
	w.Header().Del("Retry-After") // the page is served: the limit's headers only say why it did not join
	p := f.phonePage(r, rm, sess, attendee)
	if name, ok := strings.CutPrefix(note, "name:"); ok {
		p.NameError = name
	} else if note != "" {
		p.JoinNote = note
	}
	f.s.Render(w, r, http.StatusOK, pages.RoomPhoneView(p))
}

// phonePage is the attendee's page for the device holding attendee.
func (f *Feature) phonePage(r *http.Request, rm *room.Room, sess *play.Session, attendee string) pages.RoomPhone {
	p := pages.RoomPhone{Page: f.s.Page(r, "Room "+rm.Code, templates.SectionNone), Code: rm.Code}
	if rm.RoleOf("", attendee) == room.Attendee {
		p.Device, p.Nickname = room.DeviceName(attendee), rm.Nickname(attendee)
	}
	p.Shared = f.shared(rm, sess, 0, f.askedCache(rm.ID))
	return p
}

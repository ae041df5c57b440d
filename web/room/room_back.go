package room

import (
	"net/http"

	"github.com/windowlab/playground/room"
	playpages "github.com/windowlab/playground/web/play/pages"
)

// presentingCookie names, for /play, the room this browser last started.
// It holds the room's id only, which is no capability (every attendee's
// address has it): the presenter's capability stays in its own cookie,
// scoped to the room, and the projector it leads to checks that one. It
// exists because /play opens a new session each time, and nothing on that
// request says which room the browser presents.
const presentingCookie = "wl-presenting"

// notePresenting remembers, for /play, that this browser presents rm.
func notePresenting(w http.ResponseWriter, r *http.Request, rm *room.Room) {
	http.SetCookie(w, &http.Cookie{
		Name: presentingCookie, Value: rm.ID, Path: "/play",
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil,
		MaxAge: 24 * 3600, // a room lives a day at most (room.Bounds.Lifetime)
	})
}

// PresentingRoom implements webplay.PresentingRooms: /play asks it for
// the room its visitor presents, the live room the browser of r started,
// or nil when it started none or the room has ended.
func (f *Feature) PresentingRoom(r *http.Request) *playpages.PlayRoomLink {
	id := cookieValue(r, presentingCookie)
	if id == "" {
		return nil
	}
	rm, err := f.rooms.ByID(r.Context(), id)
	if err != nil {
		return nil
	}
	return &playpages.PlayRoomLink{ID: rm.ID, Code: rm.Code}
}

package play

import (
	"net/http"

	"github.com/windowlab/playground/web/play/pages"
)

// PresentingRooms is an ActionObserver that also knows which running room
// a visitor presents (the rooms feature): /play, which opens a new session
// each time, then leads that visitor back to the room rather than only
// offering to start another.
type PresentingRooms interface {
	// PresentingRoom is the live room the browser of r presents, or nil.
	PresentingRoom(r *http.Request) *pages.PlayRoomLink
}

// presentingRoom asks the observers that know rooms for the visitor's.
func (p *playground) presentingRoom(r *http.Request) *pages.PlayRoomLink {
	for _, o := range p.observers {
		if rooms, ok := o.(PresentingRooms); ok {
			if link := rooms.PresentingRoom(r); link != nil {
				return link
			}
		}
	}
	return nil
}

package room

import (
	"errors"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/windowlab/playground/room"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web"
	playpages "github.com/windowlab/playground/web/play/pages"
)

// roomStatus is the HTTP status for a room error.
func roomStatus(err error) int {
	switch {
	case web.StoreUnreachable(err):
		return http.StatusServiceUnavailable
	case errors.Is(err, room.ErrNotPresenter), errors.Is(err, room.ErrNotAttendee), errors.Is(err, room.ErrJoinsClosed),
		errors.Is(err, room.ErrPairTries), errors.Is(err, room.ErrRemoved):
		return http.StatusForbidden
	case errors.Is(err, room.ErrNoDevice), errors.Is(err, room.ErrNotRemoved), errors.Is(err, room.ErrNoDeck), errors.Is(err, room.ErrNoStep):
		return http.StatusNotFound
	case errors.Is(err, room.ErrNicknameTaken), errors.Is(err, room.ErrDeckFull):
		return http.StatusConflict
	case errors.Is(err, room.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, room.ErrFull), errors.Is(err, room.ErrStreamsFull), errors.Is(err, room.ErrClientRooms):
		return http.StatusServiceUnavailable
	case errors.Is(err, room.ErrRoomFull), errors.Is(err, room.ErrTooManyAnswers), errors.Is(err, room.ErrTooManyDevices),
		errors.Is(err, room.ErrRequestsChanged), errors.Is(err, errChangesQuestion):
		return http.StatusConflict
	}
	return http.StatusBadRequest
}

// roomMessage is a room error as a sentence for a visitor.
func roomMessage(err error) string {
	msg := err.Error()
	var errs scenario.Errors
	if errors.As(err, &errs) {
		msg = playpages.LabelledMessage(errs)
	}
	msg = strings.TrimPrefix(msg, "room: ")
	msg = strings.TrimPrefix(msg, "play: ")
	switch {
	case web.StoreUnreachable(err):
		msg = web.StoreUnreachableText
	case errors.Is(err, room.ErrNotPresenter):
		msg = "Only the presenter's devices can do that: this device is not one of them."
	case errors.Is(err, room.ErrNotFound):
		msg = "This room has ended (its presenter closed it, or left it for too long), or its address is wrong."
	case errors.Is(err, room.ErrNotAttendee):
		msg = "This device has not joined the room: open the room's join link, or type its code at /join, on this device, then answer."
	}
	if r, n := utf8.DecodeRuneInString(msg); n > 0 {
		msg = string(unicode.ToUpper(r)) + msg[n:]
	}
	return msg
}

package web

import (
	"errors"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/room"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/traffic"
)

// A Problem is a refused request as its visitor is told: the HTTP status
// and a sentence. A 503 also carries Retry-After, which the writer sets
// (SSEReply, StoreUnreachablePage, a feature's page): the store's
// StoreRetryAfter, or the wait a capacity refusal noted (NoteCapacity).
type Problem struct {
	Status  int
	Message string
}

// ProblemOf is the one place the domain's errors (the store's, rooms',
// playground sessions', scenarios', uploaded logs') become HTTP statuses
// and words, for every feature. An error it does not know is taken as the
// request's own fault (400), in the error's own words.
func ProblemOf(err error) Problem {
	if StoreUnreachable(err) {
		// Out of reach is not gone: never "not found", never a 500.
		return Problem{http.StatusServiceUnavailable, StoreUnreachableText}
	}
	for _, k := range problems {
		for _, target := range k.errs {
			if errors.Is(err, target) {
				msg := k.message
				switch {
				case msg != "":
				case k.words != nil:
					msg = k.words(err)
				default:
					msg = Sentence(err.Error())
				}
				return Problem{k.status, msg}
			}
		}
	}
	var errs scenario.Errors
	if errors.As(err, &errs) {
		// Fields named as the JSON names them (the X-Problem header's
		// words); a page labels them as it does its controls.
		return Problem{http.StatusBadRequest, errs.Error()}
	}
	return Problem{http.StatusBadRequest, Sentence(err.Error())}
}

// problems are the known errors by kind, the first match winning. A kind
// with no message words the error itself (words, or Sentence).
var problems = []struct {
	errs    []error
	status  int
	message string
	words   func(error) string
}{
	// Not allowed to this device.
	{errs: []error{room.ErrNotPresenter}, status: http.StatusForbidden,
		message: "Only the presenter's devices can do that: this device is not one of them."},
	{errs: []error{room.ErrNotAttendee}, status: http.StatusForbidden,
		message: "This device has not joined the room: open the room's join link, or type its code at /join, on this device, then answer."},
	{errs: []error{room.ErrJoinsClosed, room.ErrPairing, room.ErrPairTries, room.ErrRemoved}, status: http.StatusForbidden},
	// Gone, or never there.
	{errs: []error{room.ErrNoDevice, room.ErrNotRemoved, room.ErrNoDeck, room.ErrNoStep}, status: http.StatusNotFound},
	{errs: []error{room.ErrNotFound}, status: http.StatusNotFound,
		message: "This room has ended (its presenter closed it, or left it for too long), or its address is wrong."},
	{errs: []error{play.ErrNotFound}, status: http.StatusNotFound,
		message: "This playground session has ended (it was idle, or the server restarted). Reload the page to start a new one."},
	// Full: the server's bounds, for a while.
	{errs: []error{room.ErrFull, room.ErrStreamsFull, room.ErrClientRooms}, status: http.StatusServiceUnavailable},
	{errs: []error{play.ErrFull}, status: http.StatusServiceUnavailable,
		message: "The playground is full: too many sessions are open. Try again in a few minutes."},
	// In the way of the room's own state.
	{errs: []error{room.ErrNicknameTaken, room.ErrDeckFull, room.ErrRoomFull, room.ErrTooManyAnswers, room.ErrTooManyDevices,
		room.ErrRequestsChanged}, status: http.StatusConflict},
	// An uploaded log that does not read: its own words, file names as
	// written.
	{errs: []error{traffic.ErrBadLog}, status: http.StatusBadRequest,
		words: func(err error) string { return strings.TrimPrefix(err.Error(), "traffic: ") }},
}

// Sentence is an error's words as a visitor reads them: without the
// package's prefix ("room: ", "play: "), from a capital letter.
func Sentence(msg string) string {
	msg = strings.TrimPrefix(msg, "room: ")
	msg = strings.TrimPrefix(msg, "play: ")
	if r, n := utf8.DecodeRuneInString(msg); n > 0 {
		msg = string(unicode.ToUpper(r)) + msg[n:]
	}
	return msg
}

package web

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/windowlab/playground/internal/outage"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/room"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/traffic"
)

func TestProblemOf(t *testing.T) {
	for _, tc := range []struct {
		name    string
		err     error
		status  int
		message string
	}{
		// The store first: a room out of reach is not a room gone.
		{"store", outage.Wrap(fmt.Errorf("get: %w", room.ErrNotFound)), http.StatusServiceUnavailable, StoreUnreachableText},
		{"presenter", fmt.Errorf("close: %w", room.ErrNotPresenter), http.StatusForbidden,
			"Only the presenter's devices can do that: this device is not one of them."},
		{"pairing", room.ErrPairing, http.StatusForbidden,
			"That pairing code is wrong or has expired; ask the presenter's device for a new one"},
		{"room ended", room.ErrNotFound, http.StatusNotFound,
			"This room has ended (its presenter closed it, or left it for too long), or its address is wrong."},
		{"session ended", play.ErrNotFound, http.StatusNotFound,
			"This playground session has ended (it was idle, or the server restarted). Reload the page to start a new one."},
		{"rooms full", room.ErrFull, http.StatusServiceUnavailable,
			"The server holds its maximum of rooms; try again when a workshop has ended"},
		{"playground full", play.ErrFull, http.StatusServiceUnavailable,
			"The playground is full: too many sessions are open. Try again in a few minutes."},
		{"requests changed", room.ErrRequestsChanged, http.StatusConflict,
			"The requests before the question's moment changed since it was asked: undo that change, or ask again"},
		// A log's words keep their file names as written.
		{"log", fmt.Errorf("%w: access.log line 3: no time", traffic.ErrBadLog), http.StatusBadRequest, "access.log line 3: no time"},
		{"scenario", scenario.Errors{{Field: "limit", Reason: "must be at least 1"}}, http.StatusBadRequest, "invalid scenario: limit: must be at least 1"},
		{"unknown", errors.New("play: no such action"), http.StatusBadRequest, "No such action"},
	} {
		p := ProblemOf(tc.err)
		if p.Status != tc.status || p.Message != tc.message {
			t.Errorf("%s: ProblemOf = %d %q, want %d %q", tc.name, p.Status, p.Message, tc.status, tc.message)
		}
	}
}

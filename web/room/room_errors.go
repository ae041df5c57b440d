package room

import (
	"errors"

	"github.com/windowlab/playground/room"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web"
	playpages "github.com/windowlab/playground/web/play/pages"
)

// problemOf is web.ProblemOf (the status and words of every feature's
// errors), with a scenario's fields named as the presenter's controls
// label them.
func problemOf(err error) web.Problem {
	p := web.ProblemOf(err)
	var errs scenario.Errors
	if errors.As(err, &errs) && !web.StoreUnreachable(err) {
		p.Message = web.Sentence(playpages.LabelledMessage(errs))
	}
	return p
}

// roomStatus is the HTTP status for a room error (web.ProblemOf).
func roomStatus(err error) int { return problemOf(err).Status }

// roomMessage is a room error as a sentence for a visitor (web.ProblemOf).
func roomMessage(err error) string { return problemOf(err).Message }

// questionOpen refuses a presenter's action that would change the
// requests an open question is about, before it is made: a change of the
// question's requests (room.ErrRequestsChanged) in its kind and status.
type questionOpen struct{}

func (questionOpen) Error() string { return "a question is open" }

func (questionOpen) Is(target error) bool { return target == room.ErrRequestsChanged }

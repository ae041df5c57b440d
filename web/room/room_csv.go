package room

import (
	"encoding/csv"
	"errors"
	"net/http"
	"strconv"

	"github.com/windowlab/playground/room"
)

// questionCSV serves the room's revealed question's tally and answers as
// CSV (GET /room/{id}/question.csv), to its presenter only
// (presenterOnly with noResults): the rows are room.Question.Results'.
// Before the reveal it answers 409, as the projector shows no
// distribution while the room is still answering.
func (f *Feature) questionCSV(w http.ResponseWriter, r *http.Request) {
	rm, _ := presenterOf(r)
	rows, err := rm.Question.Results()
	if err != nil {
		f.noResults(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Disposition", `attachment; filename="room-`+rm.Code+`-question-`+strconv.Itoa(rm.Question.ID)+`.csv"`)
	cw := csv.NewWriter(w)
	_ = cw.WriteAll(rows) // a write error is the client gone
}

// noResults says why the question's results cannot be downloaded.
func (f *Feature) noResults(w http.ResponseWriter, r *http.Request, err error) {
	status, heading := roomStatus(err), "No results to download"
	switch {
	case errors.Is(err, room.ErrNotPresenter):
		heading = "Presenter only"
	case errors.Is(err, room.ErrNotFound):
		heading = "This room has ended"
	case errors.Is(err, room.ErrNoQuestion), errors.Is(err, room.ErrNotRevealed):
		status = http.StatusConflict
	}
	f.messagePage(w, r, status, heading, roomMessage(err))
}

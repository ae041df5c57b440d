package room

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/room"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web"
	"github.com/windowlab/playground/web/room/pages"
)

// explain explains request ?i= to the one attendee who asked, wrapping
// round the list (so previous/next never run off its ends). While a
// question is open it follows the lanes' rule (Feature.shared): a
// request from the question's moment on, or later than the clock, stays
// hidden, and of an earlier one only the verdicts are given.
func (f *Feature) explain(w http.ResponseWriter, r *http.Request) {
	rm, err := f.rooms.ByID(r.Context(), chi.URLParam(r, "id"))
	var sess *play.Session
	if err == nil {
		if sess, err = f.sessions.Get(r.Context(), rm.Session); err != nil && !web.StoreUnreachable(err) {
			err = room.ErrNotFound
		}
	}
	if err != nil {
		sse := web.SSEReply(w, r, roomStatus(err), roomMessage(err))
		_ = web.MergeComponent(sse, pages.RoomExplainView(pages.RoomExplain{Note: roomMessage(err)}))
		return
	}
	i, err := strconv.Atoi(r.URL.Query().Get("i"))
	if err != nil {
		sse := web.SSEReply(w, r, http.StatusBadRequest, "want ?i=<request index>")
		_ = web.MergeComponent(sse, pages.RoomExplainView(pages.RoomExplain{Note: "Want ?i=<request index>."}))
		return
	}
	sc, now := sess.Scenario(), sess.Now()
	v := pages.RoomExplain{}
	total := int(expandedTotal(sc))
	switch {
	case total == 0:
		v.Note = "There are no requests yet."
	default:
		i = ((i % total) + total) % total
		v.Selected, err = explainRequest(sc, now, i)
		if err != nil {
			f.s.Fail(w, r, err)
			return
		}
		// As on every shared screen (Feature.shared): nothing from the
		// question's moment on, nor later than the clock.
		// Of an earlier one, only its verdicts, as the lanes draw.
		if q := rm.Question; q != nil && !q.Revealed && v.Selected != nil {
			v.Asked = true
			if v.Selected.At >= questionCut(q, now) {
				v.Selected, v.Note = nil, "That request is not earlier than the question, or is later than the clock: it stays hidden while the question is open."
			}
		}
	}
	sse := web.SSEReply(w, r, http.StatusOK, "")
	if err := web.MergeComponent(sse, pages.RoomExplainView(v)); err != nil {
		return
	}
	_ = web.MergeSignals(sse, fmt.Appendf(nil, `{"sel": %d}`, i), false)
}

func expandedTotal(sc scenario.Scenario) int64 {
	var n int64
	for _, r := range sc.Requests {
		n += r.Count
	}
	return n
}

// explainRequest explains request i of sc in every lane, with the
// playground's own replay on a session of its own (nobody else's selection
// changes).
func explainRequest(sc scenario.Scenario, now int64, i int) (*play.Selection, error) {
	s, err := play.NewSession("", sc)
	if err != nil {
		return nil, err
	}
	if err := s.Jump(now); err != nil {
		return nil, err
	}
	if err := s.Select(i); err != nil {
		return nil, err
	}
	return s.View().Selected, nil
}

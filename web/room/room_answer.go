package room

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/starfederation/datastar-go/datastar"

	"github.com/windowlab/playground/room"
	"github.com/windowlab/playground/web"
	webplay "github.com/windowlab/playground/web/play"
	"github.com/windowlab/playground/web/room/pages"
	"github.com/windowlab/playground/web/templates"
)

// answer records the answer of a device that joined (phone). The phone
// sends one signal per lane (pages.AnswerSignal); a tap
// question sends as soon as one lane is tapped, so an answer with lanes
// still open is not an error, only a nudge.
func (f *Feature) answer(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	rm, err := f.rooms.ByID(r.Context(), id)
	if web.StoreUnreachable(err) {
		f.notReceived(w, r, nil)
		return
	}
	if err != nil {
		f.replyMine(w, r, pages.RoomMine{Note: roomMessage(err)}, roomStatus(err))
		return
	}
	attendee := cookieValue(r, attendeeCookie)
	if rm.RoleOf("", attendee) != room.Attendee {
		why := room.ErrNotAttendee
		if rm.WasRemoved(attendee) {
			why = room.ErrRemoved
		}
		f.replyMine(w, r, pages.RoomMine{Question: rm.Question, Note: roomMessage(why)}, http.StatusForbidden)
		return
	}
	var sig map[string]json.RawMessage
	r.Body = http.MaxBytesReader(w, r.Body, webplay.MaxSignalBytes)
	if err := datastar.ReadSignals(r, &sig); err != nil {
		if tooBig := (*http.MaxBytesError)(nil); errors.As(err, &tooBig) {
			f.replyMine(w, r, pages.RoomMine{Question: rm.Question, Note: fmt.Sprintf(
				"Your answer was not sent: it is longer than an answer may be (%d KB). Shorten what you typed, then send it again.", webplay.MaxSignalBytes>>10)},
				http.StatusRequestEntityTooLarge)
			return
		}
		f.replyMine(w, r, pages.RoomMine{Question: rm.Question, Note: "Your answer was not sent: this page sent something the room cannot read. Reload the page, then answer again."}, http.StatusBadRequest)
		return
	}
	q := rm.Question
	qid, qerr := strconv.Atoi(r.URL.Query().Get("q"))
	switch {
	case qerr != nil:
		f.replyMine(w, r, pages.RoomMine{Question: q, Note: "Want ?q=<question number>."}, http.StatusBadRequest)
		return
	case qid < 1 || qid > rm.Asked:
		// Never asked: say so, not that it closed.
		note := fmt.Sprintf("There is no question %d in this room.", qid)
		if q != nil {
			note += fmt.Sprintf(" Question %d is open: answer it.", q.ID)
		}
		f.replyMine(w, r, pages.RoomMine{Question: q, Note: note}, http.StatusNotFound)
		return
	case q == nil:
		f.replyMine(w, r, pages.RoomMine{Note: fmt.Sprintf("Question %d has closed, and no question is open now.", qid)}, http.StatusConflict)
		return
	case qid != q.ID:
		// Replaced by a later question, or by an earlier one an undo
		// brought back: either way it has closed.
		f.replyMine(w, r, pages.RoomMine{Question: q, Note: fmt.Sprintf("Question %d has closed; question %d is open now: answer it.", qid, q.ID)}, http.StatusConflict)
		return
	}
	values, missing, err := answerValues(q, sig)
	if err != nil {
		f.replyMine(w, r, pages.RoomMine{Question: q, Note: err.Error()}, http.StatusBadRequest)
		return
	}
	if missing > 0 {
		f.replyMine(w, r, pages.RoomMine{Question: q, Note: fmt.Sprintf("Now answer the other %s: your answer counts once every lane has one.", templates.CountOf(int64(missing), "lane"))}, http.StatusOK)
		return
	}
	if !f.s.Admit(w, r, web.LimitAnswer, attendee) {
		f.replyMine(w, r, pages.RoomMine{Question: q, Note: "Too many answers from this device just now: wait " + w.Header().Get("Retry-After") + " s, then answer again."}, http.StatusTooManyRequests)
		return
	}
	rm, err = f.rooms.Answer(r.Context(), id, attendee, qid, values)
	if web.StoreUnreachable(err) {
		f.notReceived(w, r, q)
		return
	}
	if err != nil {
		f.replyMine(w, r, pages.RoomMine{Question: q, Note: roomMessage(err)}, roomStatus(err))
		return
	}
	a := rm.Question.Answers[attendee]
	f.replyMine(w, r, pages.RoomMine{Question: rm.Question, Answer: &a}, http.StatusOK)
	// The last phone to answer may be what the question waited for.
	f.revealDue(r.Context(), rm)
}

// answerValues reads one value per lane of q from the phone's signals:
// a tap's number, or a typed moment ("40 s", "never"). missing counts the
// lanes with no answer yet.
func answerValues(q *room.Question, sig map[string]json.RawMessage) (values []int64, missing int, err error) {
	kind, asked := q.Ask()
	var bad []error
	for i := range q.Lanes {
		var text string
		if raw, ok := sig[pages.AnswerSignal(q, i)]; ok {
			if json.Unmarshal(raw, &text) != nil {
				return nil, 0, fmt.Errorf("%s: the answer must be text", q.Label(i))
			}
		}
		text = strings.TrimSpace(text)
		if text == "" {
			missing++
			values = append(values, 0)
			continue
		}
		v, err := kind.Value(asked, i, text)
		if err != nil {
			// Every lane that does not read is told at once, not one per send.
			bad = append(bad, err)
			values = append(values, 0)
			continue
		}
		values = append(values, v)
	}
	if len(bad) > 0 {
		return nil, 0, errors.Join(bad...)
	}
	return values, missing, nil
}

// notReceived answers an answer the store could not take: the phone is
// told plainly that it has not been received yet, beside the page's
// notice that the store is out of reach (503, with the Retry-After
// web.SSEReply gives every 503), and the page
// keeps it and sends it again every few seconds (pages.RoomResend) until
// the store takes it or says where it stands (a question closed meanwhile,
// an ended room).
func (f *Feature) notReceived(w http.ResponseWriter, r *http.Request, q *room.Question) {
	qid, err := strconv.Atoi(r.URL.Query().Get("q"))
	resend := err == nil && qid > 0 && qid <= maxResend
	m := pages.RoomMine{Question: q, Note: answerNotReceived}
	if !resend {
		m.Note = answerNotReceivedTapAgain
	}
	sse := web.SSEReply(w, r, http.StatusServiceUnavailable, m.Note)
	if web.MergeComponent(sse, pages.RoomMineView(m)) != nil {
		return
	}
	if web.MergeComponent(sse, templates.ConnectionNotice("refused", web.StoreUnreachableText+" This page carries on by itself once it is back.")) != nil {
		return
	}
	if resend {
		try, _ := strconv.Atoi(r.URL.Query().Get("try"))
		_ = web.MergeComponent(sse, pages.RoomResend(chi.URLParam(r, "id"), qid, try+1))
	}
}

// maxResend bounds the question number a resend names (it comes from the
// request): beyond it there is no question to keep an answer for.
const maxResend = 1 << 20

// What a phone reads when its answer did not reach the room's store: kept
// and sent again, or (the room itself could not be read) to be tapped again.
const (
	answerNotReceived         = "Your answer has not been received yet: the room's store is unreachable just now. This page keeps it and sends it again by itself every few seconds."
	answerNotReceivedTapAgain = "Your answer was not received: the room's store is unreachable just now. Tap your answer again once this page no longer says so."
)

func (f *Feature) replyMine(w http.ResponseWriter, r *http.Request, m pages.RoomMine, status int) {
	sse := web.SSEReply(w, r, status, m.Note)
	if web.MergeComponent(sse, pages.RoomMineView(m)) == nil && r.Method == http.MethodPost {
		// Taken, or refused for good: nothing is left to send again.
		_ = web.MergeComponent(sse, pages.RoomResend("", 0, 0))
	}
}

// mine shows an attendee their own answer (the phone asks after each
// change of the question).
func (f *Feature) mine(w http.ResponseWriter, r *http.Request) {
	rm, err := f.rooms.ByID(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		f.replyMine(w, r, pages.RoomMine{Note: roomMessage(err)}, roomStatus(err))
		return
	}
	m := pages.RoomMine{Question: rm.Question}
	attendee := cookieValue(r, attendeeCookie)
	if rm.RoleOf("", attendee) != room.Attendee && rm.WasRemoved(attendee) {
		// Told as soon as the question region changes, not at its next send.
		m.Note = roomMessage(room.ErrRemoved)
	} else if a, ok := answerOf(rm.Question, attendee); ok {
		m.Answer = &a
	}
	sse := web.SSEReply(w, r, http.StatusOK, "")
	if sig := pages.SentSignals(m.Question, m.Answer); sig != nil && !m.Question.Revealed {
		// A page opened again shows the taps this device sent.
		_ = web.MergeSignals(sse, sig, false)
	}
	_ = web.MergeComponent(sse, pages.RoomMineView(m))
}

func answerOf(q *room.Question, attendee string) (room.Answer, bool) {
	if q == nil || attendee == "" {
		return room.Answer{}, false
	}
	a, ok := q.Answers[attendee]
	return a, ok
}

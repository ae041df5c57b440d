package room

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/windowlab/playground/internal/webtest"
)

// sixAtZero is the reviewer's room: the car park's lanes, then Reset and a
// burst of six at 0 s, the clock at 0 s.
func sixAtZero(t *testing.T) (fx *roomFixture, presenter *device, id string, sess *webtest.LiveSession) {
	t.Helper()
	fx = newRoomFixture(t, nil)
	presenter = fx.device(t)
	id, _, sess = fx.startRoom(t, presenter)
	if err := sess.Reset(); err != nil {
		t.Fatal(err)
	}
	if err := sess.Fire(6); err != nil {
		t.Fatal(err)
	}
	return fx, presenter, id, sess
}

// TestRoomAskAtAnInstantWithRequests: a question typed "At 0 s" beside six
// requests at 0 s was solved as if it came before them (admitted) while
// the lanes drew it after them (refused). Such an instant is refused, the
// message naming the field, the requests there and the instant to ask at;
// a blank At, at that clock, asks a millisecond on, and its truth is what
// the lanes say.
func TestRoomAskAtAnInstantWithRequests(t *testing.T) {
	fx, presenter, id, sess := sixAtZero(t)
	res := presenter.post("/room/"+id+"/ask", `{"askKind":"first-admit","askAt":"0 s","cost":1}`)
	problem := res.header.Get("X-Problem")
	if res.status != http.StatusBadRequest {
		t.Fatalf("ask at 0 s, where 6 requests are: status %d, want 400", res.status)
	}
	for _, want := range []string{"6 requests are already at 0 s", "1 ms"} {
		if !strings.Contains(problem, want) || !strings.Contains(res.body, want) {
			t.Errorf("ask at 0 s: the message %q (body %.300s) does not say %q", problem, res.body, want)
		}
	}
	// The header names the field as the JSON does; the presenter's screen
	// as the controls label it, without the API's "invalid scenario".
	if !strings.Contains(problem, "askAt:") {
		t.Errorf("ask at 0 s: X-Problem %q does not name askAt", problem)
	}
	if !strings.Contains(res.body, ">At: 6 requests") || strings.Contains(res.body, "nvalid scenario") {
		t.Errorf("ask at 0 s: the presenter's message does not start with the control's label At, or says invalid scenario: %.300s", res.body)
	}
	if rm, err := fx.rooms.ByID(t.Context(), id); err != nil || rm.Question != nil {
		t.Fatalf("a refused question is open: %v, %v", rm, err)
	}
	if res := presenter.post("/room/"+id+"/ask", `{"askKind":"admit","cost":1}`); res.status != http.StatusOK {
		t.Fatalf("ask at the clock: status %d: %s", res.status, res.header.Get("X-Problem"))
	}
	if res := presenter.post("/room/"+id+"/reveal", `{}`); res.status != http.StatusOK {
		t.Fatalf("reveal: status %d: %s", res.status, res.header.Get("X-Problem"))
	}
	rm, err := fx.rooms.ByID(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if at := rm.Question.Request.At; at != 1 {
		t.Errorf("a blank At with requests at the clock asked at %d ms, want 1 ms", at)
	}
	for i, l := range sess.View().Lanes {
		// Every default lane holds at most 5 at 0 s, so the lanes say the
		// next request would be refused.
		if !strings.Contains(l.Status(0), "would be refused") {
			t.Fatalf("lane %d says %q: the test's premise is wrong", i, l.Status(0))
		}
		if got := rm.Question.Truth[i]; got != 0 {
			t.Errorf("lane %d: truth %d (admitted) where the lane beside says %q", i, got, l.Status(0))
		}
	}
}

// TestRoomDriveDuringAQuestion: firing before the question's moment while
// it is open would change the truth under answers given for what the room
// was shown; it is refused with a 409 and a message, while firing at or
// after the moment (the asked request itself) is not. A change made where
// the room cannot refuse it (the session's own /play page) makes the
// reveal refuse instead.
func TestRoomDriveDuringAQuestion(t *testing.T) {
	fx := newRoomFixture(t, nil)
	presenter := fx.device(t)
	id, _, sess := fx.startRoom(t, presenter)
	lanes := len(sess.Scenario().Specs())
	if err := sess.Reset(); err != nil {
		t.Fatal(err)
	}
	if err := sess.Fire(1); err != nil {
		t.Fatal(err)
	}
	if res := presenter.post("/room/"+id+"/ask", `{"askKind":"admit","cost":1}`); res.status != http.StatusOK {
		t.Fatalf("ask: status %d: %s", res.status, res.header.Get("X-Problem"))
	}
	phone := fx.joined(t, id)
	if res := phone.post("/room/"+id+"/answer?q=1", signalsFor(1, lanes, "1")); res.status != http.StatusOK {
		t.Fatalf("answer: status %d: %.300s", res.status, res.body)
	}
	before := sess.Scenario()
	for _, tc := range []struct{ path, body, say string }{
		{"/play/burst", `{"cost":1,"burstCount":6}`, "firing at 0 s would add requests before it"},
		{"/play/fire", `{"cost":1}`, "firing at 0 s would add requests before it"},
		{"/play/pattern", `{"cost":1,"pattern":"steady","patternCount":3,"patternSeconds":1}`, "firing at 0 s would add requests before it"},
		{"/play/reset", `{}`, "reset would remove the requests it is about"},
		{"/preset", `{"preset":"car-park"}`, "loading a preset would replace the requests it is about"},
		{"/play/client/rename", `{"clientName":"bob"}`, "renaming the client would change the requests it is about"},
		{"/play/settings", `{"limit":"6","windowSeconds":"30","useFixedWindow":true}`, "changing the settings would change its answer"},
	} {
		res := presenter.post("/room/"+id+tc.path, tc.body)
		if res.status != http.StatusConflict {
			t.Errorf("POST %s during the question: status %d, want 409", tc.path, res.status)
		}
		if !strings.Contains(res.body, tc.say) || !strings.Contains(res.body, `data-testid="room-error"`) {
			t.Errorf("POST %s during the question: the presenter's message slot does not say %q: %.400s", tc.path, tc.say, res.body)
		}
	}
	if got := sess.Scenario(); fmt.Sprint(got.Requests) != fmt.Sprint(before.Requests) {
		t.Fatalf("refused actions changed the requests: %v, want %v", got.Requests, before.Requests)
	}
	// At the question's moment the asked request itself may be fired.
	if res := presenter.post("/room/"+id+"/play/step?ms=1", `{}`); res.status != http.StatusOK {
		t.Fatalf("step: status %d: %s", res.status, res.header.Get("X-Problem"))
	}
	if res := presenter.post("/room/"+id+"/play/fire", `{"cost":1}`); res.status != http.StatusOK {
		t.Errorf("fire at the question's moment: status %d, want 200: %s", res.status, res.header.Get("X-Problem"))
	}
	if res := presenter.post("/room/"+id+"/reveal", `{}`); res.status != http.StatusOK {
		t.Fatalf("reveal: status %d: %s", res.status, res.header.Get("X-Problem"))
	}
	mine := phone.get("/room/" + id + "/mine")
	if n := strings.Count(mine.body, `data-testid="mine-right"`); n != lanes {
		t.Errorf("the phone answered admitted for a second request under a limit of 5: %d lanes marked right, want %d: %.500s", n, lanes, mine.body)
	}

	// The same from the session's /play page, which the room does not
	// guard: the reveal refuses.
	if res := presenter.post("/room/"+id+"/ask", `{"askKind":"admit","askAt":"5 s","cost":1}`); res.status != http.StatusOK {
		t.Fatalf("ask 2: status %d: %s", res.status, res.header.Get("X-Problem"))
	}
	if err := sess.Fire(6); err != nil {
		t.Fatal(err)
	}
	res := presenter.post("/room/"+id+"/reveal", `{}`)
	if res.status != http.StatusConflict || !strings.Contains(res.body, "changed since it was asked") {
		t.Errorf("reveal after requests were added before the question: status %d, want 409 saying they changed: %.300s", res.status, res.body)
	}
}

// An At the presenter typed that ParseMoment refuses says why it was
// refused ("finer than a millisecond"), not only that it is no moment.
func TestRoomAskAtSaysWhyAMomentIsRefused(t *testing.T) {
	_, presenter, id, _ := sixAtZero(t)
	for typed, want := range map[string]string{
		"0.0004 s": "finer than a millisecond",
		"1e3 s":    "exponent",
		"soon":     "write a moment as 35 s",
	} {
		res := presenter.post("/room/"+id+"/ask", `{"askKind":"admit","askAt":"`+typed+`","cost":1}`)
		if res.status != http.StatusBadRequest || !strings.Contains(res.body, want) || !strings.Contains(res.body, ">At: ") {
			t.Errorf("ask at %q: status %d, want 400 saying At: … %q: %.300s", typed, res.status, want, res.body)
		}
	}
}

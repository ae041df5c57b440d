package web

import (
	"net/http"
	"strings"
	"testing"

	"github.com/windowlab/playground/play"
)

// sixAtZero is the reviewer's room: the car park's lanes, then Reset and a
// burst of six at 0 s, the clock at 0 s.
func sixAtZero(t *testing.T) (fx *roomFixture, presenter *device, id string, sess *play.Session) {
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
	for _, want := range []string{"askAt", "6 requests are already at 0 s", "1 ms"} {
		if !strings.Contains(problem, want) || !strings.Contains(res.body, want) {
			t.Errorf("ask at 0 s: the message %q (body %.300s) does not say %q", problem, res.body, want)
		}
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

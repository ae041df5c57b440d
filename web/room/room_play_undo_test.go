package room

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/windowlab/playground/internal/webtest"
)

// TestRoomUndoTakesBackPlaygroundActions: an action taken on /play itself,
// on a session a room shows, gets the same undo checkpoint as the
// presenter's actions on the room's controls; one that changes neither the
// scenario nor the clock gets none, and the room's history keeps its bound.
func TestRoomUndoTakesBackPlaygroundActions(t *testing.T) {
	fx := newRoomFixture(t, nil)
	presenter := fx.device(t)
	id, _, sess := fx.startRoom(t, presenter)
	history := func() int {
		t.Helper()
		rm, err := fx.rooms.ByID(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		return len(rm.History)
	}
	n, clock := len(sess.Scenario().Requests), sess.Now()
	play := "/play/" + sess.ID()
	steps := []struct {
		path    string
		status  int
		history int
	}{
		{play + "/fire", http.StatusOK, 1},
		{play + "/select?i=0", http.StatusOK, 1},   // a selection changes nothing to undo
		{play + "/fire", http.StatusBadRequest, 1}, // refused (cost 0 below): nothing changed
		{play + "/step?ms=1000", http.StatusOK, 2},
	}
	for i, s := range steps {
		body := `{"cost":1}`
		if s.status == http.StatusBadRequest {
			body = `{"cost":0}`
		}
		if res := presenter.post(s.path, body); res.status != s.status {
			t.Fatalf("step %d: POST %s: status %d, want %d (%s)", i+1, s.path, res.status, s.status, res.header.Get("X-Problem"))
		}
		if got := history(); got != s.history {
			t.Fatalf("step %d: POST %s: the room's history holds %d actions, want %d", i+1, s.path, got, s.history)
		}
	}
	for range 2 {
		if res := presenter.post("/room/"+id+"/undo", `{}`); res.status != http.StatusOK {
			t.Fatalf("undo: status %d: %s", res.status, res.header.Get("X-Problem"))
		}
	}
	if got, now := len(sess.Scenario().Requests), sess.Now(); got != n || now != clock {
		t.Errorf("after two undos: %d requests at %d ms, want the %d at %d ms before /play's actions", got, now, n, clock)
	}
	if res := presenter.post("/room/"+id+"/undo", `{}`); res.status != http.StatusBadRequest || !strings.Contains(res.body, "nothing to undo") {
		t.Errorf("a third undo: status %d, want 400 saying there is nothing to undo", res.status)
	}
	// /play's actions count against the history's bound like any other.
	bound := fx.rooms.Bounds().History
	for range bound + 5 {
		if res := presenter.post(play+"/fire", `{"cost":1}`); res.status != http.StatusOK {
			t.Fatalf("fire: status %d: %s", res.status, res.header.Get("X-Problem"))
		}
	}
	if got := history(); got != bound {
		t.Errorf("after %d fires on /play the history holds %d actions, want its bound, %d", bound+5, got, bound)
	}
	// A session no room shows: its actions work and touch no room.
	other := fx.device(t)
	lone := webtest.CarParkSession(t, fx.sessions, 36)
	other.own(lone)
	if res := other.post("/play/"+lone.ID()+"/fire", `{"cost":1}`); res.status != http.StatusOK {
		t.Errorf("fire on a session without a room: status %d: %s", res.status, res.header.Get("X-Problem"))
	}
	if got := history(); got != bound {
		t.Errorf("another session's fire changed the room's history to %d actions", got)
	}
}

// TestRoomControlsCheckpointByTheSameRule: the room's own controls give an
// action an undo checkpoint by the rule /play's actions follow (playMark):
// only once it succeeded and moved the scenario or the clock.
func TestRoomControlsCheckpointByTheSameRule(t *testing.T) {
	fx := newRoomFixture(t, nil)
	presenter := fx.device(t)
	id, _, _ := fx.startRoom(t, presenter)
	controls := "/room/" + id + "/play"
	for i, s := range []struct {
		path    string
		body    string
		status  int
		history int
	}{
		{controls + "/fire", `{"cost":1}`, http.StatusOK, 1},
		{controls + "/select?i=0", `{}`, http.StatusOK, 1},           // a selection changes nothing to undo
		{controls + "/speed", `{"speed":"4"}`, http.StatusOK, 1},     // nor does a speed
		{controls + "/fire", `{"cost":0}`, http.StatusBadRequest, 1}, // refused: nothing changed
		{controls + "/step?ms=1000", `{}`, http.StatusOK, 2},
		{"/room/" + id + "/preset", `{"preset":"boundary-burst"}`, http.StatusOK, 3},
	} {
		if res := presenter.post(s.path, s.body); res.status != s.status {
			t.Fatalf("step %d: POST %s: status %d, want %d (%s)", i+1, s.path, res.status, s.status, res.header.Get("X-Problem"))
		}
		rm, err := fx.rooms.ByID(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(rm.History); got != s.history {
			t.Errorf("step %d: POST %s: the room's history holds %d actions, want %d", i+1, s.path, got, s.history)
		}
	}
}

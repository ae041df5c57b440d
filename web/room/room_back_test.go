package room

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestPlayLeadsBackToTheRunningRoom: once a browser starts a room, its
// /play offers "Back to room <code>", to that room's projector, beside
// starting another; a browser that presents nothing sees only "Start a
// room"; once the room ends the way back goes with it.
func TestPlayLeadsBackToTheRunningRoom(t *testing.T) {
	fx := newRoomFixture(t, nil)
	presenter := fx.device(t)
	back := regexp.MustCompile(`<a class="button" href="([^"]*)" data-testid="back-to-room">Back to room <code>([A-Z2-9]{5})</code></a>`)
	if res := presenter.get("/play"); res.status != http.StatusOK || back.MatchString(res.body) || !strings.Contains(res.body, ">Start a room<") {
		t.Fatalf("/play before any room: status %d, want 200 with only \"Start a room\"", res.status)
	}
	id, code, _ := fx.startRoom(t, presenter)
	for _, tt := range []struct {
		who  string
		d    *device
		back bool
	}{
		{"the presenting browser", presenter, true},
		{"another browser", fx.device(t), false},
		{"an attendee", fx.joined(t, id), false},
	} {
		res := tt.d.get("/play")
		if res.status != http.StatusOK {
			t.Fatalf("%s: /play status %d", tt.who, res.status)
		}
		m := back.FindStringSubmatch(res.body)
		switch {
		case tt.back && m == nil:
			t.Errorf("%s: /play offers no \"Back to room %s\"", tt.who, code)
		case tt.back && (m[1] != "/room/"+id+"/present" || m[2] != code):
			t.Errorf("%s: /play leads back to %q as room %s, want /room/%s/present as %s", tt.who, m[1], m[2], id, code)
		case !tt.back && m != nil:
			t.Errorf("%s: /play offers %q, a way back to a room it does not present", tt.who, m[0])
		}
		if !strings.Contains(res.body, `data-testid="start-room"`) {
			t.Errorf("%s: /play lost its way to start a room", tt.who)
		}
	}
	if res := presenter.post("/room/"+id+"/close", `{}`); res.status != http.StatusOK {
		t.Fatalf("ending the room: status %d", res.status)
	}
	if res := presenter.get("/play"); back.MatchString(res.body) || !strings.Contains(res.body, ">Start a room<") {
		t.Errorf("/play after the room ended still leads back to it, or lost \"Start a room\"")
	}
}

package room

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestRoomScreenWindow: the presenter's page links to the projector-only
// window at an address without the presenter's capability; a device with
// no cookie at all opens it and gets the room's screen (its code, lanes,
// the projector stream) with no control on it, and opening it does not
// join that device to the room.
func TestRoomScreenWindow(t *testing.T) {
	fx := newRoomFixture(t, nil)
	presenter := fx.device(t)
	id, code, _ := fx.startRoom(t, presenter)
	page := presenter.get("/room/" + id + "/present")
	m := regexp.MustCompile(`<a href="([^"]*)"[^>]*data-testid="screen-open"[^>]*>Open projector window</a>`).FindStringSubmatch(page.body)
	if m == nil {
		t.Fatalf("the presenter's page has no \"Open projector window\" link")
	}
	if m[1] != "/room/"+id+"/screen" {
		t.Errorf("the projector window's link is %q, want /room/%s/screen", m[1], id)
	}
	base, err := url.Parse(fx.base + "/room/" + id + "/present")
	if err != nil {
		t.Fatal(err)
	}
	secrets := 0
	for _, c := range presenter.client.Jar.Cookies(base) {
		if c.Name == presenterCookie {
			secrets++
			if strings.Contains(m[1], c.Value) {
				t.Errorf("the projector window's link %q carries the presenter's capability", m[1])
			}
		}
	}
	if secrets != 1 {
		t.Fatalf("the presenter holds %d presenter cookies, want 1", secrets)
	}

	stranger := fx.device(t)
	res := stranger.get(m[1])
	if res.status != http.StatusOK {
		t.Fatalf("a cookie-less device opening the projector window: status %d, want 200; %.300s", res.status, res.body)
	}
	for _, want := range []string{`data-testid="room-screen"`, `data-testid="room-code"`, ">" + code + "<", `data-testid="lane"`, "/room/" + id + "/stream?view=screen"} {
		if !strings.Contains(res.body, want) {
			t.Errorf("the projector window lacks %s", want)
		}
	}
	for _, control := range []string{`data-testid="room-controls"`, "@post(", `data-testid="reveal"`, "/pair/new"} {
		if strings.Contains(res.body, control) {
			t.Errorf("the projector window holds a control: %s", control)
		}
	}
	for _, c := range res.header.Values("Set-Cookie") {
		t.Errorf("opening the projector window set a cookie: %s", c)
	}
	rm, err := fx.rooms.ByID(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(rm.Attendees) != 0 {
		t.Errorf("after the projector window opened: %d devices joined, want 0 (watching is not joining)", len(rm.Attendees))
	}
	if res := stranger.get("/room/nosuchroom/screen"); res.status != http.StatusNotFound {
		t.Errorf("the projector window of no room: status %d, want 404", res.status)
	}
}

package room

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestRoomClosingToJoinsFromThePresentersPage follows the presenter's own
// way to close a room to new devices: the projector page links to the
// devices page, whose form (its action and fields as the page has them)
// closes the room; the page then says so, a new phone can watch but not
// join, and the same page's form opens the room again.
func TestRoomClosingToJoinsFromThePresentersPage(t *testing.T) {
	fx := newRoomFixture(t, nil)
	presenter := fx.device(t)
	id, _, _ := fx.startRoom(t, presenter)
	page := presenter.get("/room/" + id + "/present")
	link := regexp.MustCompile(`<a href="([^"]*)"[^>]*data-testid="devices-open"[^>]*>([^<]*)</a>`).FindStringSubmatch(page.body)
	if link == nil {
		t.Fatal("the presenter's page has no link to the devices page")
	}
	if link[1] != "/room/"+id+"/devices" || !strings.Contains(link[2], "close the room to new ones") {
		t.Errorf("the devices link is %q (%q), want /room/%s/devices saying it closes the room to new devices", link[1], link[2], id)
	}
	form := regexp.MustCompile(`(?s)<form method="post" action="([^"]*)">\s*<input type="hidden" name="open" value="([01])">\s*<button type="submit" data-testid="(joins-[a-z]+)">`)
	submit := func(step, wantButton, wantState string) {
		t.Helper()
		devices := presenter.get(link[1])
		m := form.FindStringSubmatch(devices.body)
		if devices.status != http.StatusOK || m == nil {
			t.Fatalf("%s: the devices page (status %d) has no open/close form", step, devices.status)
		}
		if m[3] != wantButton {
			t.Fatalf("%s: the devices page offers %s, want %s", step, m[3], wantButton)
		}
		res := presenter.post(html.UnescapeString(m[1]), url.Values{"open": {m[2]}}.Encode(), "Content-Type", "application/x-www-form-urlencoded")
		if res.status != http.StatusSeeOther || res.header.Get("Location") != link[1] {
			t.Fatalf("%s: submitting the form: status %d to %q, want 303 back to the devices page", step, res.status, res.header.Get("Location"))
		}
		if after := presenter.get(link[1]); !strings.Contains(after.body, "The room is <strong>"+wantState+"</strong>") {
			t.Errorf("%s: the devices page does not say the room is %s", step, wantState)
		}
	}
	submit("closing", "joins-close", "closed")
	late := fx.device(t)
	if res := late.get("/room/" + id); res.status != http.StatusOK || !strings.Contains(res.body, "This room is closed to new devices") {
		t.Errorf("a phone opening the closed room: status %d, want 200 saying it is closed to new devices", res.status)
	}
	rm, err := fx.rooms.ByID(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(rm.Attendees) != 0 {
		t.Errorf("after a phone opened the closed room: %d devices joined, want none", len(rm.Attendees))
	}
	submit("opening again", "joins-open", "open")
	fx.joined(t, id) // fails the test unless the reopened room lets a phone join
}

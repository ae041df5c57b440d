package room

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/windowlab/playground/room"
	"github.com/windowlab/playground/scenario"
)

// A removed phone is kept out until the presenter lets it back: it cannot
// answer, opening the room's link again does not join it, and its page
// says why; once let back, opening the link joins it again.
func TestRoomRemovedPhoneStaysOutUntilLetBack(t *testing.T) {
	fx := newRoomFixture(t, nil)
	presenter := fx.device(t)
	id, _, sess := fx.startRoom(t, presenter)
	lanes := len(sess.Scenario().Specs())
	phone := fx.joined(t, id)
	name := regexpDevice(t, phone.get("/room/"+id).body)
	if res := presenter.post("/room/"+id+"/devices/remove", "device="+name, "Content-Type", "application/x-www-form-urlencoded"); res.status != http.StatusSeeOther {
		t.Fatalf("remove: status %d", res.status)
	}
	if res := presenter.post("/room/"+id+"/ask", `{"askKind":"admit","askAt":"36 s","cost":1}`); res.status != http.StatusOK {
		t.Fatalf("ask: status %d: %s", res.status, res.header.Get("X-Problem"))
	}
	res := phone.post("/room/"+id+"/answer?q=1", signalsFor(1, lanes, "1"))
	if res.status != http.StatusForbidden || !strings.Contains(res.body, "removed this device") {
		t.Errorf("a removed phone answering: status %d, want 403 saying it was removed: %.300s", res.status, res.body)
	}
	if mine := phone.get("/room/" + id + "/mine"); !strings.Contains(mine.body, "removed this device") {
		t.Errorf("a removed phone's own answer does not say it was removed: %.300s", mine.body)
	}
	page := phone.get("/room/" + id)
	if strings.Contains(page.body, `data-testid="name-form"`) || !strings.Contains(page.body, "removed this device") {
		t.Errorf("opening the room again rejoined a removed phone, or did not say why:\n%.2000s", page.body)
	}
	if got := len(mustRoom(t, fx, id).Attendees); got != 0 {
		t.Errorf("after the removed phone opened the link: %d attendees, want 0", got)
	}
	if res := presenter.post("/room/"+id+"/devices/letback", "device="+name, "Content-Type", "application/x-www-form-urlencoded"); res.status != http.StatusSeeOther {
		t.Fatalf("let back: status %d", res.status)
	}
	if page := phone.get("/room/" + id); !strings.Contains(page.body, `data-testid="name-form"`) {
		t.Errorf("a phone let back could not join again:\n%.2000s", page.body)
	}
}

// Nicknames: given at /join, unique in the room, changed by the presenter.
func TestRoomNicknames(t *testing.T) {
	fx := newRoomFixture(t, nil)
	presenter := fx.device(t)
	id, code, _ := fx.startRoom(t, presenter)
	ana := fx.device(t)
	res := ana.get("/join?code=" + code + "&name=" + url.QueryEscape("  Ana  "))
	if loc := res.header.Get("Location"); res.status != http.StatusSeeOther || loc != "/room/"+id+"?name=Ana" {
		t.Fatalf("join with a name: status %d to %q", res.status, loc)
	}
	ana.get("/room/" + id + "?name=Ana")
	if bad := fx.device(t).get("/join?code=" + code + "&name=" + url.QueryEscape("<b>x</b>")); bad.status != http.StatusBadRequest || !strings.Contains(bad.body, "not allowed in a nickname") {
		t.Errorf("a name with markup: status %d, want 400 saying why", bad.status)
	}
	// A second Ana joins without the name, and is asked for another.
	second := fx.device(t)
	page := second.get("/room/" + id + "?name=ana")
	if !strings.Contains(page.body, "already uses that nickname") {
		t.Errorf("a second ana is not told the name is taken:\n%.2000s", page.body)
	}
	if res := second.post("/room/"+id+"/name", "nickname=Bo", "Content-Type", "application/x-www-form-urlencoded"); res.status != http.StatusSeeOther {
		t.Errorf("naming oneself: status %d", res.status)
	}
	rm := mustRoom(t, fx, id)
	var names []string
	for a := range rm.Attendees {
		names = append(names, rm.Nickname(a))
	}
	if strings.Join(sorted(names), ",") != "Ana,Bo" {
		t.Errorf("nicknames %v, want Ana and Bo", names)
	}
	list := presenter.get("/room/" + id + "/devices")
	if !strings.Contains(list.body, "Ana") || !strings.Contains(list.body, "Bo") || !strings.Contains(list.body, "datetime=") {
		t.Errorf("the devices page lacks the nicknames or the join times:\n%.3000s", list.body)
	}
}

// A wait question is offered, and taken, only where a lane can make a
// request wait; a typed wait is never refused in words that give a lane's
// answer away; a moment question names every bad lane at once; an answer
// too long to send is 413, in words on the phone.
func TestRoomQuestionsThatMakeSense(t *testing.T) {
	fx := newRoomFixture(t, nil)
	presenter := fx.device(t)
	id, _, sess := fx.startRoom(t, presenter)
	// The car park on the four default lanes: no leaky bucket, no queue
	// (/play's own default has one).
	sc := sess.Scenario()
	sc.Policies = scenario.DefaultPolicies()
	if err := sess.Load(sc); err != nil {
		t.Fatal(err)
	}
	lanes := len(sess.Scenario().Specs())
	if page := presenter.get("/room/" + id + "/present"); strings.Contains(page.body, `value="wait"`) {
		t.Error("the car park has no queue, yet the menu offers the wait question")
	}
	res := presenter.post("/room/"+id+"/ask", `{"askKind":"wait","askAt":"36 s","cost":1,"askN":"1"}`)
	if res.status != http.StatusBadRequest || !strings.Contains(res.header.Get("X-Problem"), "o lane asked about makes a request wait") {
		t.Errorf("a wait question without a queue: status %d (%s), want 400 saying no lane queues", res.status, res.header.Get("X-Problem"))
	}

	if res := presenter.post("/room/"+id+"/ask", `{"askKind":"first-admit","cost":1}`); res.status != http.StatusOK {
		t.Fatalf("ask: status %d: %s", res.status, res.header.Get("X-Problem"))
	}
	phone := fx.joined(t, id)
	all := phone.post("/room/"+id+"/answer?q=1", signalsFor(1, lanes, "soon"))
	if all.status != http.StatusBadRequest || strings.Count(all.body, "is not a moment") != lanes {
		t.Errorf("%d unreadable lanes: status %d, %d named; want 400 naming each:\n%.1000s", lanes, all.status, strings.Count(all.body, "is not a moment"), all.body)
	}
	huge, _ := json.Marshal(map[string]string{"q1a0": strings.Repeat("9", 70<<10)})
	big := phone.post("/room/"+id+"/answer?q=1", string(huge))
	if big.status != http.StatusRequestEntityTooLarge || !strings.Contains(big.body, "longer than an answer may be") {
		t.Errorf("an oversized answer: status %d, want 413 in words: %.300s", big.status, big.body)
	}
}

// regexpDevice is the device name a phone's page says it joined as.
func regexpDevice(t *testing.T, page string) string {
	t.Helper()
	m := regexp.MustCompile(`data-testid="phone-device"[^>]*>[^<]*<code>([0-9a-f]+)</code>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the phone's page names no device:\n%.2000s", page)
	}
	return m[1]
}

func mustRoom(t *testing.T, fx *roomFixture, id string) *room.Room {
	t.Helper()
	rm, err := fx.rooms.ByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return rm
}

func sorted(s []string) []string { slices.Sort(s); return s }

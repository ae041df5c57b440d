package room

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/windowlab/playground/internal/storetest"
	"github.com/windowlab/playground/internal/webtest"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/room"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web"
	weblessons "github.com/windowlab/playground/web/lessons"
	webplay "github.com/windowlab/playground/web/play"
	"github.com/windowlab/playground/web/simulate"
)

// newFairFixture is newRoomFixture behind a trusted proxy at loopback, so
// each device may speak from an address of its own (device.from), with the
// play store store(clock) on the fixture's clock (nil: the default bounds).
// With unheld, the rooms see the store only as play.Sessions, so it does
// not keep their sessions (as a store elsewhere might lose them).
func newFairFixture(t *testing.T, bounds *room.Bounds, store func(now func() time.Time) *play.Store, unheld bool, cfg ...func(c *web.Config, clk *storetest.Clock)) *roomFixture {
	t.Helper()
	fx := &roomFixture{clk: storetest.NewClockAt(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))}
	rooms, err := room.New(room.NewMemStore(), room.Config{Now: fx.clk.Now, Bounds: bounds})
	if err != nil {
		t.Fatal(err)
	}
	lib, _, err := weblessons.LoadLessons()
	if err != nil {
		t.Fatal(err)
	}
	if store == nil {
		store = play.NewStore
	}
	fx.sessions, fx.rooms, fx.logs = store(fx.clk.Now), rooms, &webtest.LogBuffer{}
	var shown play.Sessions = fx.sessions
	if unheld {
		shown = struct{ play.Sessions }{fx.sessions}
	}
	rf := Rooms(rooms, shown, lib)
	c := web.Config{DatastarPath: webtest.BundlePath(t), Version: "test-version",
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")},
		Features:       []web.Feature{simulate.API(), webplay.Playground(fx.sessions, rf), rf}}
	for _, f := range cfg {
		f(&c, fx.clk)
	}
	s, err := web.New(c, slog.New(slog.NewTextHandler(fx.logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	fx.base = srv.URL
	return fx
}

func (fx *roomFixture) deviceFrom(t *testing.T, addr string) *device {
	t.Helper()
	d := fx.device(t)
	d.from = addr
	return d
}

// TestRoomCookielessAnswersAreRefused: an answer from a device that did
// not join (no attendee cookie, or a forged one) is refused with a message
// saying to join, and counts for nothing; the answers never outnumber the
// devices that joined, however often each one answers.
func TestRoomCookielessAnswersAreRefused(t *testing.T) {
	fx := newRoomFixture(t, nil)
	presenter := fx.device(t)
	id, _, sess := fx.startRoom(t, presenter)
	lanes := len(sess.Scenario().Specs())
	if res := presenter.post("/room/"+id+"/ask", `{"askKind":"admit","cost":1}`); res.status != http.StatusOK {
		t.Fatalf("ask: status %d: %s", res.status, res.header.Get("X-Problem"))
	}
	for i := range 20 {
		res := fx.device(t).post("/room/"+id+"/answer?q=1", signalsFor(1, lanes, "1"))
		if res.status != http.StatusForbidden || !strings.Contains(res.body, "has not joined the room") || !strings.Contains(res.body, "/join") {
			t.Fatalf("step %d: a cookie-less answer: status %d, want 403 saying to join; %.300s", i+1, res.status, res.body)
		}
		for _, c := range res.header.Values("Set-Cookie") {
			if strings.HasPrefix(c, attendeeCookie+"=") {
				t.Fatalf("step %d: a refused answer set the attendee cookie", i+1)
			}
		}
	}
	forged := fx.device(t)
	forged.client.Jar.SetCookies(mustURL(t, fx.base+"/room/"+id+"/"), []*http.Cookie{{Name: attendeeCookie, Value: "forged", Path: "/room/" + id}})
	if res := forged.post("/room/"+id+"/answer?q=1", signalsFor(1, lanes, "1")); res.status != http.StatusForbidden {
		t.Errorf("an answer with a forged attendee cookie: status %d, want 403", res.status)
	}
	phones := []*device{fx.joined(t, id), fx.joined(t, id), fx.joined(t, id)}
	for round := range 3 {
		for i, p := range phones {
			if res := p.post("/room/"+id+"/answer?q=1", signalsFor(1, lanes, fmt.Sprint(round%2))); res.status != http.StatusOK {
				t.Fatalf("round %d, phone %d: status %d: %.300s", round+1, i, res.status, res.body)
			}
		}
	}
	rm, err := fx.rooms.ByID(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if got, joined := len(rm.Question.Answers), len(rm.Attendees); got != 3 || joined != 3 {
		t.Errorf("after 20 cookie-less answers and 3 rounds from 3 joined phones: %d answers of %d joined devices, want 3 of 3", got, joined)
	}
	// A phone that opens its page again stays the device it was.
	if res := phones[0].get("/room/" + id); !strings.Contains(res.body, room.DeviceName(attendeeOf(t, phones[0], fx.base, id))) {
		t.Error("reopening the page does not name the device that joined")
	}
	if rm, _ := fx.rooms.ByID(t.Context(), id); len(rm.Attendees) != 3 {
		t.Errorf("reopening a joined phone's page: %d devices joined, want still 3", len(rm.Attendees))
	}
	proj := readStream(t, presenter, "/room/"+id+"/stream?view=projector", false, `data-testid="answered"`)
	if !strings.Contains(proj, ">3 answered") {
		t.Errorf("the projector does not say 3 answered: %.400s", proj)
	}
}

func attendeeOf(t *testing.T, d *device, base, id string) string {
	t.Helper()
	for _, c := range d.client.Jar.Cookies(mustURL(t, base+"/room/"+id+"/")) {
		if c.Name == attendeeCookie {
			return c.Value
		}
	}
	t.Fatal("the device holds no attendee cookie")
	return ""
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestRoomPresenterClosesJoinsAndRemovesADevice: the devices page lists
// the devices that joined; closed to joins, a new phone watches but cannot
// answer; a removed device's answer goes and its cookie answers no more.
func TestRoomPresenterClosesJoinsAndRemovesADevice(t *testing.T) {
	fx := newRoomFixture(t, nil)
	presenter := fx.device(t)
	id, _, sess := fx.startRoom(t, presenter)
	lanes := len(sess.Scenario().Specs())
	phone := fx.joined(t, id)
	name := room.DeviceName(attendeeOf(t, phone, fx.base, id))
	if res := fx.joined(t, id).get("/room/" + id + "/devices"); res.status != http.StatusForbidden {
		t.Errorf("an attendee opening the devices page: status %d, want 403", res.status)
	}
	if res := presenter.get("/room/" + id + "/devices"); res.status != http.StatusOK || !strings.Contains(res.body, name) || !strings.Contains(res.body, "2 devices joined") {
		t.Fatalf("the devices page: status %d, want 200 listing %s of 2 devices; %.500s", res.status, name, res.body)
	}
	form := "Content-Type"
	if res := phone.post("/room/"+id+"/joins", "open=0", form, "application/x-www-form-urlencoded"); res.status != http.StatusForbidden {
		t.Errorf("an attendee closing the room: status %d, want 403", res.status)
	}
	if res := presenter.post("/room/"+id+"/joins", "open=0", form, "application/x-www-form-urlencoded"); res.status != http.StatusSeeOther {
		t.Fatalf("closing the room to joins: status %d, want 303; %.300s", res.status, res.body)
	}
	late := fx.device(t)
	if res := late.get("/room/" + id); res.status != http.StatusOK || !strings.Contains(res.body, "This room is closed to new devices") {
		t.Errorf("a phone opening a closed room: status %d, want 200 saying it is closed to new devices; %.300s", res.status, res.body)
	}
	if res := presenter.post("/room/"+id+"/ask", `{"askKind":"admit","cost":1}`); res.status != http.StatusOK {
		t.Fatalf("ask: status %d: %s", res.status, res.header.Get("X-Problem"))
	}
	if res := late.post("/room/"+id+"/answer?q=1", signalsFor(1, lanes, "1")); res.status != http.StatusForbidden {
		t.Errorf("a phone that could not join answering: status %d, want 403", res.status)
	}
	if res := phone.post("/room/"+id+"/answer?q=1", signalsFor(1, lanes, "1")); res.status != http.StatusOK {
		t.Fatalf("a phone that joined before the close: status %d", res.status)
	}
	if res := presenter.post("/room/"+id+"/devices/remove", "device=nobody", form, "application/x-www-form-urlencoded"); res.status != http.StatusNotFound {
		t.Errorf("removing an unknown device: status %d, want 404", res.status)
	}
	if res := presenter.post("/room/"+id+"/devices/remove", "device="+name, form, "application/x-www-form-urlencoded"); res.status != http.StatusSeeOther {
		t.Fatalf("removing the device: status %d, want 303; %.300s", res.status, res.body)
	}
	rm, _ := fx.rooms.ByID(t.Context(), id)
	if len(rm.Question.Answers) != 0 || len(rm.Attendees) != 1 {
		t.Errorf("after the removal: %d answers, %d devices; want 0 and 1", len(rm.Question.Answers), len(rm.Attendees))
	}
	if res := phone.post("/room/"+id+"/answer?q=1", signalsFor(1, lanes, "1")); res.status != http.StatusForbidden {
		t.Errorf("the removed device answering: status %d, want 403", res.status)
	}
}

// TestRoomsSurviveAPlayFlood: five addresses, each within its share of
// sessions, open playgrounds until the store is full twice over while no
// screen follows any room: every room still shows its session, its
// presenter can still end it, and the place it frees takes a new room.
func TestRoomsSurviveAPlayFlood(t *testing.T) {
	b := room.DefaultBounds()
	b.Rooms = 5
	const maxSessions, perClient = 25, 10
	fx := newFairFixture(t, &b, func(now func() time.Time) *play.Store {
		return play.NewStoreWithBounds(now, maxSessions, play.IdleTimeout).WithPerClient(perClient)
	}, false)
	type workshop struct {
		id        string
		presenter *device
	}
	var rooms []workshop
	for i := range b.Rooms {
		p := fx.deviceFrom(t, fmt.Sprintf("192.0.2.%d", i+1))
		id, _, _ := fx.startRoom(t, p)
		rooms = append(rooms, workshop{id, p})
	}
	// The screens close; the sessions idle past the store's wait.
	fx.clk.Advance(2 * play.MinIdleForEviction)
	for a := range 5 {
		d := fx.deviceFrom(t, fmt.Sprintf("198.51.100.%d", a+1))
		for i := range perClient {
			if res := d.get("/play"); res.status != http.StatusOK && res.status != http.StatusServiceUnavailable {
				t.Fatalf("address %d, /play %d: status %d", a+1, i+1, res.status)
			}
		}
	}
	for i, w := range rooms {
		if res := fx.device(t).get("/room/" + w.id); res.status != http.StatusOK {
			t.Errorf("room %d after the flood: status %d, want 200; %.200s", i+1, res.status, res.body)
		}
	}
	first := rooms[0]
	if res := first.presenter.post("/room/"+first.id+"/close", `{}`); res.status != http.StatusOK {
		t.Fatalf("the presenter ending their room after the flood: status %d, want 200", res.status)
	}
	if res := fx.device(t).get("/room/" + first.id); res.status != http.StatusNotFound {
		t.Errorf("the ended room: status %d, want 404", res.status)
	}
	// A newcomer's playground, opened from an address holding none, takes
	// a flood's place; its room takes the ended room's.
	next := fx.deviceFrom(t, "203.0.113.1")
	sess, err := fx.sessions.NewFor(context.Background(), "203.0.113.1", scenario.Scenario{})
	if err != nil {
		t.Fatalf("a newcomer's playground after the flood: %v", err)
	}
	next.own(sess)
	if res := next.startOver(sess.ID()); res.status != http.StatusSeeOther {
		t.Errorf("a room in the ended room's place: status %d, want 303; %.300s", res.status, res.body)
	}
}

// TestRoomPresenterCanAlwaysEndTheirRoom: a room whose session is gone
// (a store that does not hold it, as after a restart) still ends for its
// presenter, and one that a visitor finds so ends at once, freeing its
// place for a new room.
func TestRoomPresenterCanAlwaysEndTheirRoom(t *testing.T) {
	b := room.DefaultBounds()
	b.Rooms = 1
	fx := newFairFixture(t, &b, func(now func() time.Time) *play.Store {
		return play.NewStoreWithBounds(now, 1, play.IdleTimeout)
	}, true)
	presenter := fx.device(t)
	id, _, _ := fx.startRoom(t, presenter)
	// The store, full, forgets the room's idle session for a new one.
	fx.clk.Advance(2 * play.MinIdleForEviction)
	if _, err := fx.sessions.New(scenario.Scenario{}); err != nil {
		t.Fatal(err)
	}
	if res := presenter.post("/room/"+id+"/close", `{}`); res.status != http.StatusOK {
		t.Fatalf("ending a room whose session is gone: status %d, want 200; %s", res.status, res.header.Get("X-Problem"))
	}

	fx.clk.Advance(2 * play.MinIdleForEviction)
	id, _, _ = fx.startRoom(t, presenter)
	fx.clk.Advance(2 * play.MinIdleForEviction)
	if _, err := fx.sessions.New(scenario.Scenario{}); err != nil {
		t.Fatal(err)
	}
	if res := fx.device(t).get("/room/" + id); res.status != http.StatusNotFound {
		t.Fatalf("a room whose session is gone: status %d, want 404", res.status)
	}
	fx.clk.Advance(2 * play.MinIdleForEviction)
	fx.startRoom(t, fx.device(t)) // fails unless the orphan freed its place
}

// holdStream opens a stream for d and returns its status and headers; the
// stream stays open until the test ends.
func holdStream(t *testing.T, d *device, path string) *http.Response {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.from != "" {
		req.Header.Set("X-Forwarded-For", d.from)
	}
	res, err := d.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); res.Body.Close() })
	return res
}

// TestRoomProjectorServedWhileOneAddressHoldsEveryAttendeePlace: one
// address takes every place of a room anyone may take; the next is refused
// for capacity with Retry-After, and the presenter's projector, from
// another address, is still served.
func TestRoomProjectorServedWhileOneAddressHoldsEveryAttendeePlace(t *testing.T) {
	b := room.DefaultBounds()
	b.Followers, b.Devices = 4, 1
	fx := newFairFixture(t, &b, nil, false)
	presenter := fx.deviceFrom(t, "192.0.2.1")
	id, _, _ := fx.startRoom(t, presenter)
	hog := fx.deviceFrom(t, "198.51.100.9")
	for i := range b.Followers {
		if res := holdStream(t, hog, "/room/"+id+"/stream?view=projector"); res.StatusCode != http.StatusOK {
			t.Fatalf("step %d: the hog's stream: status %d, want 200", i+1, res.StatusCode)
		}
	}
	res := holdStream(t, hog, "/room/"+id+"/stream")
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
		t.Errorf("a stream past the attendees' places: status %d, Retry-After %q; want 503 with Retry-After", res.StatusCode, res.Header.Get("Retry-After"))
	}
	for i := range 2 * b.Devices {
		if res := holdStream(t, presenter, "/room/"+id+"/stream?view=projector"); res.StatusCode != http.StatusOK {
			t.Fatalf("step %d: the presenter's projector with every attendee place taken: status %d, want 200", i+1, res.StatusCode)
		}
	}
}

// TestStreamsPerClient: one address holds at most its share of streams,
// whatever it streams; another address is served meanwhile.
func TestStreamsPerClient(t *testing.T) {
	fx := newFairFixture(t, nil, nil, false, func(c *web.Config, _ *storetest.Clock) { c.StreamsPerClient = 3 })
	id, _, sess := fx.startRoom(t, fx.deviceFrom(t, "192.0.2.1"))
	hog := fx.deviceFrom(t, "198.51.100.9")
	paths := []string{"/room/" + id + "/stream", "/play/" + sess.ID() + "/stream", "/room/" + id + "/stream"}
	for i, p := range paths {
		if res := holdStream(t, hog, p); res.StatusCode != http.StatusOK {
			t.Fatalf("step %d: GET %s within the share: status %d", i+1, p, res.StatusCode)
		}
	}
	res := holdStream(t, hog, "/play/"+sess.ID()+"/stream")
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") != "10" || !strings.Contains(string(body), "open streams") {
		t.Errorf("a fourth stream from one address: status %d, Retry-After %q, %q; want 503, 10 and a message", res.StatusCode, res.Header.Get("Retry-After"), body)
	}
	if res := holdStream(t, fx.deviceFrom(t, "203.0.113.5"), "/room/"+id+"/stream"); res.StatusCode != http.StatusOK {
		t.Errorf("another address's stream: status %d, want 200", res.StatusCode)
	}
}

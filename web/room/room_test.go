package room

import (
	"bufio"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/windowlab/playground/internal/storetest"
	"github.com/windowlab/playground/internal/webtest"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/room"
	"github.com/windowlab/playground/scenario"
	weblessons "github.com/windowlab/playground/web/lessons"
	webplay "github.com/windowlab/playground/web/play"
	"github.com/windowlab/playground/web/simulate"
)

// roomFixture is a site with the playground and rooms, on a clock the test
// moves.
type roomFixture struct {
	base     string
	sessions *play.Store
	rooms    *room.Rooms
	logs     *webtest.LogBuffer
	clk      *storetest.Clock
}

func newRoomFixture(t *testing.T, bounds *room.Bounds) *roomFixture {
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
	fx.sessions = play.NewStore(time.Now)
	fx.rooms = rooms
	rf := Rooms(rooms, fx.sessions, lib)
	_, fx.base, fx.logs = newTestServer(t, simulate.API(), webplay.Playground(fx.sessions, rf), rf)
	return fx
}

// device is one browser: its own cookies, redirects not followed.
type device struct {
	t      *testing.T
	client *http.Client
	base   string
	from   string // the X-Forwarded-For a trusted proxy would add, or ""
}

func (fx *roomFixture) device(t *testing.T) *device {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &device{t: t, base: fx.base, client: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (d *device) do(method, path, body string, header ...string) response {
	d.t.Helper()
	req, err := http.NewRequest(method, d.base+path, strings.NewReader(body))
	if err != nil {
		d.t.Fatal(err)
	}
	if method == http.MethodPost && strings.HasPrefix(body, "session=") {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Datastar-Request", "true")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	if d.from != "" {
		req.Header.Set("X-Forwarded-For", d.from)
	}
	res, err := d.client.Do(req)
	if err != nil {
		d.t.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		d.t.Fatal(err)
	}
	return response{status: res.StatusCode, header: res.Header, body: string(data)}
}

// own gives d the control cookie of sess, as the browser that opened the
// playground holds it.
func (d *device) own(sess webtest.Owned) {
	d.t.Helper()
	u, err := url.Parse(d.base + "/play/" + sess.ID() + "/")
	if err != nil {
		d.t.Fatal(err)
	}
	d.client.Jar.SetCookies(u, []*http.Cookie{{Name: webplay.ControlCookie, Value: sess.ControlToken(), Path: "/play/" + sess.ID()}})
}

// startOver posts the playground's "Start a room" form for session id.
func (d *device) startOver(id string) response {
	d.t.Helper()
	return d.do(http.MethodPost, "/play/"+id+"/room", "", "Content-Type", "application/x-www-form-urlencoded", "Datastar-Request", "")
}

// joined is a new device that opened room id's page, which joins it.
func (fx *roomFixture) joined(t *testing.T, id string) *device {
	t.Helper()
	d := fx.device(t)
	if res := d.get("/room/" + id); res.status != http.StatusOK || !strings.Contains(res.body, `data-testid="phone-device"`) {
		t.Fatalf("GET /room/%s: status %d, want 200 naming the device that joined", id, res.status)
	}
	return d
}

func (d *device) get(path string) response { d.t.Helper(); return d.do(http.MethodGet, path, "") }
func (d *device) post(path, body string, header ...string) response {
	d.t.Helper()
	return d.do(http.MethodPost, path, body, header...)
}

// startRoom opens a playground session with the car park's first cars and
// starts a room over it from presenter; it returns the room's id, code and
// the session.
func (fx *roomFixture) startRoom(t *testing.T, presenter *device) (id, code string, sess *webtest.LiveSession) {
	t.Helper()
	sess = webtest.CarParkSession(t, fx.sessions, 36)
	presenter.own(sess)
	res := presenter.startOver(sess.ID())
	if res.status != http.StatusSeeOther {
		t.Fatalf("POST /play/{id}/room: status %d, want 303; body %s", res.status, res.body)
	}
	loc := res.header.Get("Location")
	m := regexp.MustCompile(`^/room/([A-Za-z0-9_-]+)/present$`).FindStringSubmatch(loc)
	if m == nil {
		t.Fatalf("POST /play/{id}/room redirected to %q, want /room/<id>/present", loc)
	}
	id = m[1]
	page := presenter.get(loc)
	if page.status != http.StatusOK {
		t.Fatalf("GET %s: status %d, want 200", loc, page.status)
	}
	c := regexp.MustCompile(`data-testid="room-code"[^>]*>([A-Z2-9]{5})<`).FindStringSubmatch(page.body)
	if c == nil {
		t.Fatalf("the projector shows no join code")
	}
	return id, c[1], sess
}

// TestRoomStartNeedsTheSessionsControl: a session's id lets its holder watch
// it, not present it, since a room's presenter drives the session.
func TestRoomStartNeedsTheSessionsControl(t *testing.T) {
	fx := newRoomFixture(t, nil)
	sess := webtest.CarParkSession(t, fx.sessions, 36)
	stranger := fx.device(t)
	res := stranger.startOver(sess.ID())
	if res.status != http.StatusForbidden {
		t.Fatalf("start a room over another browser's session: status %d, want 403", res.status)
	}
	for _, c := range res.header.Values("Set-Cookie") {
		if strings.HasPrefix(c, presenterCookie+"=") {
			t.Errorf("a refused start set the presenter cookie: %s", c)
		}
	}
}

func TestRoomStartSetsAPresenterCookieNeverAURL(t *testing.T) {
	fx := newRoomFixture(t, nil)
	presenter := fx.device(t)
	sess := webtest.CarParkSession(t, fx.sessions, 36)
	presenter.own(sess)
	res := presenter.startOver(sess.ID())
	if res.status != http.StatusSeeOther {
		t.Fatalf("status %d, want 303", res.status)
	}
	var cookie *http.Cookie
	for _, c := range (&http.Response{Header: res.header}).Cookies() {
		if c.Name == presenterCookie {
			cookie = c
		}
	}
	if cookie == nil {
		t.Fatal("no presenter cookie set")
	}
	loc := res.header.Get("Location")
	if !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode || cookie.Path != strings.TrimSuffix(loc, "/present") {
		t.Errorf("presenter cookie = %+v, want HttpOnly, SameSite=Strict, Path of the room", cookie)
	}
	if strings.Contains(loc, cookie.Value) {
		t.Errorf("the redirect %q carries the capability", loc)
	}
	page := presenter.get(loc)
	if strings.Contains(page.body, cookie.Value) {
		t.Error("the projector page carries the capability")
	}
}

func TestRoomJoinNormalisesTheCode(t *testing.T) {
	fx := newRoomFixture(t, nil)
	id, code, _ := fx.startRoom(t, fx.device(t))
	phone := fx.device(t)
	spaced := strings.ToLower(code[:2] + " " + code[2:])
	for _, tc := range []struct {
		path   string
		status int
		where  string
	}{
		{"/join?code=" + url.QueryEscape(spaced), http.StatusSeeOther, "/room/" + id},
		{"/join/" + strings.ToLower(code), http.StatusSeeOther, "/room/" + id},
		{"/join?code=ABCDE", http.StatusNotFound, ""}, // letters of the alphabet, but no such room (or a 1 in 28 million chance)
		{"/join?code=0O1", http.StatusBadRequest, ""},
	} {
		res := phone.get(tc.path)
		if res.status != tc.status && !(tc.path == "/join?code=ABCDE" && code == "ABCDE") {
			t.Errorf("GET %s: status %d, want %d", tc.path, res.status, tc.status)
		}
		if tc.where != "" && res.header.Get("Location") != tc.where {
			t.Errorf("GET %s: Location %q, want %q", tc.path, res.header.Get("Location"), tc.where)
		}
		if tc.status >= 400 && !strings.Contains(res.body, `data-testid="join-error"`) {
			t.Errorf("GET %s: no message on the page", tc.path)
		}
	}
}

// readStream reads a room stream until it has seen every one of wants and
// the end of an event (or fails after a while), decoding gzip itself.
func readStream(t *testing.T, d *device, path string, gz bool, wants ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if gz {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	res, err := d.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body io.Reader = res.Body
	if gz {
		if res.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("GET %s with Accept-Encoding gzip: Content-Encoding %q", path, res.Header.Get("Content-Encoding"))
		}
		zr, err := gzip.NewReader(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		body = zr
	}
	var got strings.Builder
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		got.WriteString(sc.Text() + "\n")
		all := sc.Text() == ""
		for _, w := range wants {
			all = all && strings.Contains(got.String(), w)
		}
		if all {
			return got.String()
		}
	}
	t.Fatalf("GET %s: the stream ended (%v) without all of %q; got:\n%.2000s", path, sc.Err(), wants, got.String())
	return ""
}

func TestRoomAttendeePagesNeverCarryTheSessionID(t *testing.T) {
	fx := newRoomFixture(t, nil)
	id, _, sess := fx.startRoom(t, fx.device(t))
	phone := fx.device(t)
	page := phone.get("/room/" + id)
	if page.status != http.StatusOK {
		t.Fatalf("attendee page: status %d", page.status)
	}
	if strings.Contains(page.body, sess.ID()) {
		t.Error("the attendee page holds the play session id")
	}
	events := readStream(t, phone, "/room/"+id+"/stream", true, `id="room-lanes"`)
	if strings.Contains(events, sess.ID()) {
		t.Error("the attendee stream holds the play session id")
	}
	// Explanations go to the one phone that asked, through the room.
	expl := phone.get("/room/" + id + "/explain?i=0")
	if expl.status != http.StatusOK || !strings.Contains(expl.body, "Request 1 at") || strings.Contains(expl.body, sess.ID()) {
		t.Errorf("explain: status %d, body %.300s", expl.status, expl.body)
	}
}

func TestRoomPresenterActionsAreRefusedToOthers(t *testing.T) {
	fx := newRoomFixture(t, nil)
	presenter := fx.device(t)
	id, _, sess := fx.startRoom(t, presenter)
	stranger := fx.device(t)
	attendee := fx.joined(t, id)
	if res := presenter.post("/room/"+id+"/ask", `{"askKind":"admit","cost":1}`); res.status != http.StatusOK {
		t.Fatalf("ask: status %d: %s", res.status, res.header.Get("X-Problem"))
	}
	if res := attendee.post("/room/"+id+"/answer?q=1", signalsFor(1, 4, "1")); res.status != http.StatusOK {
		t.Fatalf("answer: status %d: %s", res.status, res.header.Get("X-Problem"))
	}
	before := sess.Scenario()
	for _, path := range []string{"/play/fire", "/play/reset", "/ask", "/reveal", "/dismiss", "/undo", "/point?i=0", "/preset", "/pair/new", "/close"} {
		for name, d := range map[string]*device{"stranger": stranger, "attendee": attendee} {
			res := d.post("/room/"+id+path, `{"askKind":"admit","cost":1,"preset":"car-park"}`)
			if res.status != http.StatusForbidden {
				t.Errorf("%s POST %s: status %d, want 403", name, path, res.status)
			}
			if !strings.Contains(res.body, "Only the presenter") {
				t.Errorf("%s POST %s: no message saying why; body %.200s", name, path, res.body)
			}
		}
		// The presenter's own cookie from another site is refused too.
		res := presenter.post("/room/"+id+path, `{}`, "Sec-Fetch-Site", "cross-site")
		if res.status != http.StatusForbidden {
			t.Errorf("cross-site POST %s: status %d, want 403", path, res.status)
		}
		res = presenter.post("/room/"+id+path, `{}`, "Origin", "http://evil.example")
		if res.status != http.StatusForbidden {
			t.Errorf("POST %s from another origin: status %d, want 403", path, res.status)
		}
	}
	if got := sess.Scenario(); len(got.Requests) != len(before.Requests) {
		t.Errorf("refused actions changed the session: %d requests, want %d", len(got.Requests), len(before.Requests))
	}
	if res := stranger.get("/room/" + id + "/present"); res.status != http.StatusForbidden || !strings.Contains(res.body, "Only the presenter") {
		t.Errorf("a stranger's GET /present: status %d, want 403 with a message", res.status)
	}
}

// signalsFor is the phone's answer to question q about lanes lanes, every
// lane answered v.
func signalsFor(q, lanes int, v string) string {
	parts := make([]string, lanes)
	for i := range parts {
		parts[i] = fmt.Sprintf(`"q%da%d": %q`, q, i, v)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func TestRoomAskAnswerReveal(t *testing.T) {
	fx := newRoomFixture(t, nil)
	presenter := fx.device(t)
	id, _, sess := fx.startRoom(t, presenter)
	lanes := len(sess.Scenario().Specs())
	// The car park before 36 s: the next car at 36 s, asked of every lane.
	if res := presenter.post("/room/"+id+"/ask", `{"askKind":"admit","askAt":"36 s","cost":1}`); res.status != http.StatusOK {
		t.Fatalf("ask: status %d: %s", res.status, res.header.Get("X-Problem"))
	}
	sc := sess.Scenario()
	var truth []int64
	for _, spec := range sc.Specs() {
		base := sc
		base.Requests = nil
		for _, r := range sc.Requests {
			if r.At < 36000 {
				base.Requests = append(base.Requests, r)
			}
		}
		d, err := scenario.WhatIf(base, spec, scenario.Request{At: 36000, Key: scenario.DefaultKey, Cost: 1, Count: 1})
		if err != nil {
			t.Fatal(err)
		}
		if d.Allowed() {
			truth = append(truth, 1)
		} else {
			truth = append(truth, 0)
		}
	}
	phones := []*device{fx.joined(t, id), fx.joined(t, id), fx.joined(t, id)}
	answers := []string{"1", "0", "1"}
	for i, p := range phones {
		res := p.post("/room/"+id+"/answer?q=1", signalsFor(1, lanes, answers[i]))
		if res.status != http.StatusOK || !strings.Contains(res.body, "Sent.") {
			t.Fatalf("phone %d: answer status %d: %.300s", i, res.status, res.body)
		}
	}
	// One lane at a time: a partial answer is a nudge, not recorded.
	partial := fx.joined(t, id).post("/room/"+id+"/answer?q=1", `{"q1a0": "1"}`)
	if partial.status != http.StatusOK || !strings.Contains(partial.body, "answer the other") {
		t.Errorf("partial answer: status %d, body %.300s", partial.status, partial.body)
	}
	bad := phones[0].post("/room/"+id+"/answer?q=1", signalsFor(1, lanes, "7"))
	if bad.status != http.StatusBadRequest {
		t.Errorf("answer 7 to an admit question: status %d, want 400", bad.status)
	}
	projector := readStream(t, presenter, "/room/"+id+"/stream?view=projector", false, "3 answered")
	if strings.Contains(projector, `data-testid="tally"`) {
		t.Error("the projector shows the distribution before the reveal")
	}
	if res := presenter.post("/room/"+id+"/reveal", `{}`); res.status != http.StatusOK {
		t.Fatalf("reveal: status %d: %s", res.status, res.header.Get("X-Problem"))
	}
	projector = readStream(t, presenter, "/room/"+id+"/stream?view=projector", false, `data-testid="tally"`)
	for i, p := range phones {
		mine := p.get("/room/" + id + "/mine")
		rights := strings.Count(mine.body, `data-testid="mine-right"`)
		want := 0
		for _, tv := range truth {
			if fmt.Sprint(tv) == answers[i] {
				want++
			}
		}
		if rights != want || strings.Count(mine.body, `data-testid="mine-wrong"`) != lanes-want {
			t.Errorf("phone %d (answered %s, truth %v): %d marked right, want %d", i, answers[i], truth, rights, want)
		}
	}
	// Lane 0's bars: two said admitted, one refused.
	if !strings.Contains(projector, `data-count="2"`) || !strings.Contains(projector, `data-count="1"`) {
		t.Errorf("the projector's tally lacks the counts 2 and 1:\n%.3000s", projector)
	}
	late := phones[0].post("/room/"+id+"/answer?q=1", signalsFor(1, lanes, "1"))
	if late.status != http.StatusBadRequest || !strings.Contains(late.body, "revealed") {
		t.Errorf("an answer after the reveal: status %d, want 400 saying answers are closed", late.status)
	}
}

func TestRoomOpenQuestionHidesTheNextRequest(t *testing.T) {
	fx := newRoomFixture(t, nil)
	presenter := fx.device(t)
	id, _, sess := fx.startRoom(t, presenter)
	phone := fx.device(t)
	lanesOf := func(events string) string {
		t.Helper()
		i := strings.LastIndex(events, `id="room-lanes"`)
		if i < 0 {
			t.Fatalf("no lanes in %.500s", events)
		}
		lanes := events[i:]
		return lanes[:strings.Index(lanes, "\n\n")]
	}
	ask := func(q int) {
		t.Helper()
		if res := presenter.post("/room/"+id+"/ask", `{"askKind":"admit","cost":1}`); res.status != http.StatusOK {
			t.Fatalf("ask: status %d: %s", res.status, res.header.Get("X-Problem"))
		}
	}
	before := lanesOf(readStream(t, phone, "/room/"+id+"/stream", false, `id="room-question"`))
	if !strings.Contains(before, "the next request would be") {
		t.Fatalf("with no question open the lanes should say what the next request would get; got:\n%.2000s", before)
	}
	ask(1)
	open := lanesOf(readStream(t, phone, "/room/"+id+"/stream", false, "is hidden while a question is open", `id="room-question"`))
	if strings.Contains(open, "the next request would be") {
		t.Errorf("while a question is open the lanes say what the next request would get:\n%.2000s", open)
	}
	if res := presenter.post("/room/"+id+"/dismiss", `{}`); res.status != http.StatusOK {
		t.Fatalf("dismiss: status %d", res.status)
	}
	// A request later than the clock: fired, then the clock jumped back.
	if err := sess.Jump(50_000); err != nil {
		t.Fatal(err)
	}
	if err := sess.Fire(1); err != nil {
		t.Fatal(err)
	}
	if err := sess.Jump(36_000); err != nil {
		t.Fatal(err)
	}
	// With no question open the lanes draw the later request, faded
	// (readStream fails unless it comes).
	readStream(t, phone, "/room/"+id+"/stream", false, ` future"`, `id="room-question"`)
	ask(2)
	open = lanesOf(readStream(t, phone, "/room/"+id+"/stream", false, "is hidden while a question is open", `id="room-question"`))
	if strings.Contains(open, ` future"`) {
		t.Errorf("while a question is open the lanes draw the later request:\n%.2000s", open)
	}
	last := expandedTotal(sess.Scenario()) - 1
	hidden := phone.get(fmt.Sprintf("/room/%s/explain?i=%d", id, last))
	if !strings.Contains(hidden.body, "stays hidden") {
		t.Errorf("the later request's explanation is not hidden: %.300s", hidden.body)
	}
}

func TestRoomUndoPresetAndPoint(t *testing.T) {
	fx := newRoomFixture(t, nil)
	presenter := fx.device(t)
	id, _, sess := fx.startRoom(t, presenter)
	n := len(sess.Scenario().Requests)
	if res := presenter.post("/room/"+id+"/play/fire", `{"cost":0}`); res.status != http.StatusBadRequest || !strings.Contains(res.body, "Cost:") {
		t.Fatalf("fire at cost 0: status %d, want 400 naming the Cost field: %.300s", res.status, res.body)
	}
	if res := presenter.post("/room/"+id+"/play/fire", `{"cost":1}`); res.status != http.StatusOK {
		t.Fatalf("fire: status %d: %s", res.status, res.header.Get("X-Problem"))
	}
	if got := len(sess.Scenario().Requests); got != n+1 {
		t.Fatalf("after fire: %d requests, want %d", got, n+1)
	}
	if res := presenter.post("/room/"+id+"/undo", `{}`); res.status != http.StatusOK {
		t.Fatalf("undo: status %d: %s", res.status, res.header.Get("X-Problem"))
	}
	if got := len(sess.Scenario().Requests); got != n {
		t.Errorf("after undo: %d requests, want %d", got, n)
	}
	// The refused fire left nothing to undo.
	if res := presenter.post("/room/"+id+"/undo", `{}`); res.status != http.StatusBadRequest || !strings.Contains(res.body, "nothing to undo") {
		t.Errorf("a second undo: status %d, want 400 saying there is nothing to undo", res.status)
	}
	if res := presenter.post("/room/"+id+"/preset", `{"preset":"boundary-burst"}`); res.status != http.StatusOK {
		t.Fatalf("preset: status %d: %s", res.status, res.header.Get("X-Problem"))
	}
	lib, _, err := weblessons.LoadLessons()
	if err != nil {
		t.Fatal(err)
	}
	want, err := lib.Scenario("boundary-burst")
	if err != nil {
		t.Fatal(err)
	}
	if got := sess.Scenario(); got.Limit != want.Limit || len(got.Requests) != len(want.Requests) {
		t.Errorf("after the preset: limit %d, %d requests; want the lessons' boundary-burst (%d, %d)", got.Limit, len(got.Requests), want.Limit, len(want.Requests))
	}
	if res := presenter.post("/room/"+id+"/preset", `{"preset":"../secrets"}`); res.status != http.StatusBadRequest {
		t.Errorf("an unknown preset: status %d, want 400", res.status)
	}
	// The last request: the lanes draw the latest ones.
	last := expandedTotal(sess.Scenario())
	if res := presenter.post(fmt.Sprintf("/room/%s/point?i=%d", id, last-1), `{}`); res.status != http.StatusOK {
		t.Fatalf("point: status %d: %s", res.status, res.header.Get("X-Problem"))
	}
	projector := readStream(t, presenter, "/room/"+id+"/stream?view=projector", false, fmt.Sprintf("Request %d at", last))
	phone := readStream(t, fx.device(t), "/room/"+id+"/stream", false, "selected-ring")
	if !strings.Contains(projector, "selected-ring") || !strings.Contains(phone, "selected-ring") {
		t.Error("the pointed-at request is not ringed on every screen")
	}
	// Next from the last request wraps round to the first.
	if res := presenter.post("/room/"+id+"/point?d=1", `{}`); res.status != http.StatusOK {
		t.Fatalf("point at next: status %d: %s", res.status, res.header.Get("X-Problem"))
	}
	if rm, err := fx.rooms.ByID(context.Background(), id); err != nil || rm.Pointer != 0 {
		t.Errorf("after pointing at the next of the last request the pointer is %d, want 0", rm.Pointer)
	}
	if res := presenter.post("/room/"+id+"/point?i=9999", `{}`); res.status != http.StatusBadRequest {
		t.Errorf("pointing at no request: status %d, want 400", res.status)
	}
}

// TestRoomPairingGivesASecondDeviceControl: the pairing code gives full
// control of the room to whoever redeems it first, so it is never on the
// projector: the projector's controls link to a presenter-only page, which
// shows a code only when asked (a POST), with the full address for the
// other device and its QR code.
func TestRoomPairingGivesASecondDeviceControl(t *testing.T) {
	fx := newRoomFixture(t, nil)
	presenter := fx.device(t)
	id, _, _ := fx.startRoom(t, presenter)
	codeRe := regexp.MustCompile(`data-testid="pair-code"[^>]*>([A-Z2-9]{8})<`)
	projector := presenter.get("/room/" + id + "/present")
	if !strings.Contains(projector.body, `href="/room/`+id+`/pair/new"`) {
		t.Errorf("the presenter's controls do not link to the pairing page: %.300s", projector.body)
	}
	page := presenter.get("/room/" + id + "/pair/new")
	if page.status != http.StatusOK || codeRe.MatchString(page.body) || !strings.Contains(page.body, "not on the projector") {
		t.Errorf("GET pair/new: status %d; want 200, no code until asked, and a warning to keep it off the projector: %.2000s", page.status, page.body)
	}
	form := []string{"Content-Type", "application/x-www-form-urlencoded", "Datastar-Request", ""}
	for name, d := range map[string]*device{"stranger": fx.device(t)} {
		if res := d.get("/room/" + id + "/pair/new"); res.status != http.StatusForbidden {
			t.Errorf("%s GET pair/new: status %d, want 403", name, res.status)
		}
		if res := d.post("/room/"+id+"/pair/new", "", form...); res.status != http.StatusForbidden || codeRe.MatchString(res.body) {
			t.Errorf("%s POST pair/new: status %d, want 403 and no code", name, res.status)
		}
	}
	if res := presenter.get("/room/nosuchroom/pair/new"); res.status != http.StatusNotFound || !strings.Contains(res.body, "This room has ended") {
		t.Errorf("pair/new of no room: status %d, want 404 saying the room has ended", res.status)
	}
	// Asked for at the laptop's address on the room's network.
	req, err := http.NewRequest(http.MethodPost, presenter.base+"/room/"+id+"/pair/new", strings.NewReader(""))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "192.168.1.20:8080"
	// The client sends the jar's cookies only to the URL's own host.
	for _, c := range presenter.client.Jar.Cookies(req.URL) {
		req.AddCookie(c)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := presenter.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	m := codeRe.FindStringSubmatch(string(body))
	if res.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("POST pair/new: status %d, no code in %.2000s", res.StatusCode, body)
	}
	link := "http://192.168.1.20:8080/room/" + id + "/pair?code=" + m[1]
	if !strings.Contains(string(body), link) || !strings.Contains(string(body), `data-testid="pair-qr"`) {
		t.Errorf("the pairing page lacks the full link %s or its QR code: %.2000s", link, body)
	}
	if strings.Contains(presenter.get("/room/"+id+"/present").body, m[1]) {
		t.Error("the projector shows the pairing code")
	}
	remote := fx.device(t)
	if got := remote.get("/room/" + id + "/pair?code=" + m[1]); !strings.Contains(got.body, `value="`+m[1]+`"`) {
		t.Errorf("the link from the QR code does not fill the code in: %.2000s", got.body)
	}
	if got := remote.get("/room/nosuchroom/pair?code=" + m[1]); got.status != http.StatusNotFound || !strings.Contains(got.body, "This room has ended") {
		t.Errorf("a pairing link to a room that does not exist: status %d, want 404 saying the room has ended: %.500s", got.status, got.body)
	}
	if bad := remote.do(http.MethodPost, "/room/"+id+"/pair/redeem", "code=ZZZZZZZZ", form...); bad.status != http.StatusForbidden {
		t.Errorf("a wrong pairing code: status %d, want 403", bad.status)
	}
	ok := remote.do(http.MethodPost, "/room/"+id+"/pair/redeem", "code="+strings.ToLower(m[1]), form...)
	if ok.status != http.StatusSeeOther {
		t.Fatalf("redeeming the code: status %d, want 303", ok.status)
	}
	if res := remote.post("/room/"+id+"/play/fire", `{"cost":1}`); res.status != http.StatusOK {
		t.Errorf("the paired device's fire: status %d, want 200", res.status)
	}
	again := fx.device(t).do(http.MethodPost, "/room/"+id+"/pair/redeem", "code="+m[1], form...)
	if again.status != http.StatusForbidden {
		t.Errorf("a used pairing code: status %d, want 403", again.status)
	}
}

func TestRoomBounds(t *testing.T) {
	b := room.DefaultBounds()
	b.Rooms, b.Followers, b.Answers, b.Devices = 1, 2, 1, 1
	fx := newRoomFixture(t, &b)
	presenter := fx.device(t)
	id, _, roomSess := fx.startRoom(t, presenter)

	t.Run("rooms per server", func(t *testing.T) {
		sess := webtest.CarParkSession(t, fx.sessions, 36)
		d := fx.device(t)
		d.own(sess)
		res := d.startOver(sess.ID())
		if res.status != http.StatusServiceUnavailable || !strings.Contains(res.body, "at most 1 rooms") {
			t.Errorf("a second room on a one-room server: status %d, want 503 with a message", res.status)
		}
	})
	t.Run("answers per question", func(t *testing.T) {
		if res := presenter.post("/room/"+id+"/ask", `{"askKind":"count","askN":3,"cost":1}`); res.status != http.StatusOK {
			t.Fatalf("ask: status %d: %s", res.status, res.header.Get("X-Problem"))
		}
		lanes := len(roomSess.Scenario().Specs())
		if res := fx.joined(t, id).post("/room/"+id+"/answer?q=1", signalsFor(1, lanes, "2")); res.status != http.StatusOK {
			t.Fatalf("first answer: status %d: %s", res.status, res.header.Get("X-Problem"))
		}
		res := fx.joined(t, id).post("/room/"+id+"/answer?q=1", signalsFor(1, lanes, "2"))
		if res.status != http.StatusConflict || !strings.Contains(res.body, "maximum of answers") {
			t.Errorf("an answer past the bound: status %d, want 409 with a message; %.300s", res.status, res.body)
		}
	})
	t.Run("followers per room", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		// Followers = 2 streams without the presenter's capability; a third
		// is refused whatever its address (the presenter's places stay).
		for range 2 {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fx.base+"/room/"+id+"/stream", nil)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			if res.StatusCode != http.StatusOK {
				t.Fatalf("stream within the bound: status %d", res.StatusCode)
			}
		}
		res := fx.device(t).get("/room/" + id + "/stream")
		if res.status != http.StatusServiceUnavailable || !strings.Contains(res.body, "as many screens") {
			t.Errorf("a stream past the bound: status %d, want 503 with a message; %.300s", res.status, res.body)
		}
	})
	t.Run("room lifetime after the presenter leaves", func(t *testing.T) {
		fx.clk.Advance(b.Linger + time.Second)
		res := fx.device(t).get("/room/" + id)
		if res.status != http.StatusNotFound || !strings.Contains(res.body, "has ended") {
			t.Errorf("a room past its linger: status %d, want 404 saying it ended", res.status)
		}
		if res := presenter.post("/room/"+id+"/play/fire", `{"cost":1}`); res.status != http.StatusNotFound {
			t.Errorf("the presenter's action in an ended room: status %d, want 404", res.status)
		}
	})
}

// Every follower of a view is sent the same compressed bytes, and each
// decodes them (TestRoomStreamDecodesInChromium checks a browser does).
func TestRoomStreamSharesCompressedBytes(t *testing.T) {
	fx := newRoomFixture(t, nil)
	presenter := fx.device(t)
	id, _, _ := fx.startRoom(t, presenter)
	a := readStream(t, fx.device(t), "/room/"+id+"/stream", true, `id="room-question"`)
	b := readStream(t, fx.device(t), "/room/"+id+"/stream", true, `id="room-question"`)
	if a != b {
		t.Error("two phones got different first updates")
	}
}

// TestRoomFollowerMemory opens many followers of one room, each reading
// gzip, and bounds what each costs the process (server and test client
// together, so the figure is an upper bound): the budget of a room is its
// followers, and a follower must stay well under 1 MB.
func TestRoomFollowerMemory(t *testing.T) {
	const followers = 200
	fx := newRoomFixture(t, nil)
	presenter := fx.device(t)
	id, _, sess := fx.startRoom(t, presenter)
	afterFire := fmt.Sprintf("%d requests", expandedTotal(sess.Scenario())+1)
	client := &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: followers}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var ready, done sync.WaitGroup
	updates := make(chan int, followers)
	for range followers {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fx.base+"/room/"+id+"/stream", nil)
			req.Header.Set("Accept-Encoding", "gzip")
			res, err := client.Do(req)
			if err != nil {
				ready.Done()
				return
			}
			defer res.Body.Close()
			zr, err := gzip.NewReader(res.Body)
			if err != nil {
				ready.Done()
				return
			}
			sc := bufio.NewScanner(zr)
			sc.Buffer(make([]byte, 4<<10), 1<<20)
			first := true
			for sc.Scan() {
				if first && strings.Contains(sc.Text(), `id="room-question"`) {
					first = false
					ready.Done()
				}
				if strings.Contains(sc.Text(), afterFire) {
					updates <- 1
					return
				}
			}
			if first {
				ready.Done()
			}
		}()
	}
	ready.Wait()
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := (int64(after.HeapInuse+after.StackInuse) - int64(before.HeapInuse+before.StackInuse)) / followers
	t.Logf("%d followers: %d KB each (server and client, heap and stacks)", followers, per>>10)
	if per > 1<<20 {
		t.Errorf("a follower costs %d KB, want well under 1 MB", per>>10)
	}
	// One action reaches every follower.
	if res := presenter.post("/room/"+id+"/play/fire", `{"cost":1}`); res.status != http.StatusOK {
		t.Fatalf("fire: status %d", res.status)
	}
	timeout := time.After(10 * time.Second)
	for n := 0; n < followers; n++ {
		select {
		case <-updates:
		case <-timeout:
			t.Fatalf("%d of %d followers got the update", n, followers)
		}
	}
	cancel()
	done.Wait()
}

func TestRoomFirstAdmitAnswersAreTypedMoments(t *testing.T) {
	fx := newRoomFixture(t, nil)
	presenter := fx.device(t)
	id, _, sess := fx.startRoom(t, presenter)
	lanes := len(sess.Scenario().Specs())
	if res := presenter.post("/room/"+id+"/ask", `{"askKind":"first-admit","cost":1}`); res.status != http.StatusOK {
		t.Fatalf("ask: status %d: %s", res.status, res.header.Get("X-Problem"))
	}
	phone := fx.joined(t, id)
	for _, tc := range []struct {
		typed  string
		status int
		shown  string
	}{
		{"40.5 s", http.StatusOK, "40.5 s"},
		{"never", http.StatusOK, "never"},
		{"soon", http.StatusBadRequest, `&#34;soon&#34; is not a moment`},
		{"1 s", http.StatusBadRequest, "Lane fixed-window: 1 s is before the question&#39;s moment, 36 s"},
		// Three windows of 30 s after 36 s: the moment said as meant,
		// never in raw ms beside formatted times.
		{"5 minutes", http.StatusBadRequest, "300 s is after 126 s, the last moment this question looks at"},
	} {
		res := phone.post("/room/"+id+"/answer?q=1", signalsFor(1, lanes, tc.typed))
		if res.status != tc.status || !strings.Contains(res.body, tc.shown) {
			t.Errorf("answer %q: status %d, want %d showing %q; body %.300s", tc.typed, res.status, tc.status, tc.shown, res.body)
		}
		for _, m := range regexp.MustCompile(`\b(\d{4,})\b( ms)?`).FindAllStringSubmatch(res.body, -1) {
			if m[2] == "" {
				t.Errorf("answer %q: the reply says %s, a number of ms with no unit: %.300s", tc.typed, m[1], res.body)
			}
		}
	}
}

func TestRoomClosedEndsEveryStream(t *testing.T) {
	fx := newRoomFixture(t, nil)
	presenter := fx.device(t)
	id, _, _ := fx.startRoom(t, presenter)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fx.base+"/room/"+id+"/stream", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	res, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	zr, err := gzip.NewReader(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	// The first frame arrives before the room closes: the stream follows
	// the room by then.
	first := bufio.NewReader(zr)
	line, err := first.ReadString('\n')
	if err != nil {
		t.Fatalf("the stream's first line: %v", err)
	}
	got := make(chan string, 1)
	go func() {
		all, err := io.ReadAll(first) // to the end, the gzip trailer checked
		all = append([]byte(line), all...)
		if err != nil {
			all = append(all, "\nread error: "+err.Error()...)
		}
		got <- string(all)
	}()
	if r := presenter.post("/room/"+id+"/close", `{}`); r.status != http.StatusOK {
		t.Fatalf("close: status %d: %s", r.status, r.header.Get("X-Problem"))
	}
	select {
	case s := <-got:
		if !strings.Contains(s, "This room has ended") || strings.Contains(s, "read error") {
			t.Errorf("the stream ended without saying so, or broken:\n%.500s", s[max(0, len(s)-500):])
		}
	case <-ctx.Done():
		t.Fatal("the stream stayed open after the room closed")
	}
	if page := fx.device(t).get("/room/" + id); page.status != http.StatusNotFound {
		t.Errorf("a closed room's page: status %d, want 404", page.status)
	}
}

func TestRoomProjectorOffersAddressesAtLocalhost(t *testing.T) {
	fx := newRoomFixture(t, nil)
	presenter := fx.device(t)
	sess := webtest.CarParkSession(t, fx.sessions, 36)
	presenter.own(sess)
	res := presenter.startOver(sess.ID())
	page := presenter.get(res.header.Get("Location"))
	// The test server listens on 127.0.0.1, which no phone can reach: no
	// QR code, but the machine's addresses (or why there are none).
	if strings.Contains(page.body, `data-testid="room-qr"`) || !strings.Contains(page.body, `data-testid="join-candidates"`) {
		t.Errorf("at 127.0.0.1 the projector should offer addresses instead of a QR code")
	}
	if res := presenter.startOver("nosuchsession"); res.status != http.StatusNotFound {
		t.Errorf("a room over no session: status %d, want 404", res.status)
	}
}

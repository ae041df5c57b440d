package room

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5"
	"github.com/starfederation/datastar-go/datastar"

	"github.com/windowlab/playground/ask"
	"github.com/windowlab/playground/decks"
	"github.com/windowlab/playground/internal/qrsvg"
	"github.com/windowlab/playground/lessons"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/room"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web"
	"github.com/windowlab/playground/web/fanout"
	webplay "github.com/windowlab/playground/web/play"
	playpages "github.com/windowlab/playground/web/play/pages"
	"github.com/windowlab/playground/web/room/pages"
	"github.com/windowlab/playground/web/templates"
)

// ScenarioCatalog gives a named scenario: the lessons' library is one
// (lessons.Library.Scenario), so the presets are the lessons' own files.
type ScenarioCatalog interface {
	Scenario(name string) (scenario.Scenario, error)
}

// roomPresets are the scenarios the presenter's menu loads, by their names
// in lessons/scenarios: the lessons' presets, which the playground offers
// too.
var roomPresets = presetsOf(lessons.Presets)

// The cookies a room sets, each scoped to the room's own path: the
// presenter's capability (SameSite=Strict: never sent by another site's
// request) and an attendee's id (Lax, so that a scanned link still finds
// it). Neither is ever in a URL.
const (
	presenterCookie = "wl-presenter"
	attendeeCookie  = "wl-attendee"
)

// Rooms is the workshop rooms feature: a presenter starts a room from the
// playground, attendees join with a code and follow on their phones.
//
//	POST /play/{id}/room           start a room over playground session id; only the browser that controls it
//	GET  /join, /join/{code}       type a code, or follow a join link → the room's page
//	GET  /room/{id}                an attendee's page (phone first); opening it joins the device
//	GET  /room/{id}/devices        the devices that joined; presenter only
//	GET  /room/{id}/question.csv   the revealed question's tally and answers; presenter only
//	POST /room/{id}/joins, /room/{id}/devices/remove  close to new devices, remove one; presenter only
//	GET  /room/{id}/present        the projector; presenter only
//	GET  /room/{id}/screen         the projector-only window: no controls, no cookie needed
//	GET  /room/{id}/stream         the shared SSE stream (?view=phone|projector); no cookie needed
//	GET  /room/{id}/explain?i=     an attendee's own explanation of request i
//	GET  /room/{id}/mine           an attendee's own answer
//	POST /room/{id}/answer?q=      an attendee's answer to question q; joined devices only
//	POST /room/{id}/play/{action}  a playground action (the /play routes'), presenter only
//	POST /room/{id}/{ask,reveal,dismiss,undo,point,preset,close}  presenter only
//	GET, POST /room/{id}/pair/new  the presenter's pairing page; POST issues a code
//	GET  /room/{id}/pair, POST /room/{id}/pair/redeem  pair a presenter's second device
//
// Every POST refuses cross-site requests with 403 (the site-wide crossOrigin
// middleware).
func Rooms(rooms *room.Rooms, sessions play.Sessions, catalog ScenarioCatalog) *Feature {
	return &Feature{rooms: rooms, sessions: sessions, catalog: catalog}
}

// Feature is the rooms: their routes, and the undo checkpoint of an action
// taken on /play itself (BeforeAction), which the playground is given as
// its webplay.ActionObserver.
type Feature struct {
	rooms    *room.Rooms
	sessions play.Sessions
	catalog  ScenarioCatalog
	f        *roomFeature // set by SetupRoutes, before any request
}

// BeforeAction implements webplay.ActionObserver.
func (rf *Feature) BeforeAction(ctx context.Context, sess *play.Session, label string) func(*play.Session) {
	if rf.f == nil {
		return nil // the server did not set the rooms up: no room shows sess
	}
	return rf.f.beforeAction(ctx, sess, label)
}

// SetupRoutes implements web.Feature.
func (rf *Feature) SetupRoutes(s *web.Server, r chi.Router) error {
	rooms, sessions, catalog := rf.rooms, rf.sessions, rf.catalog
	if rooms == nil || sessions == nil || catalog == nil {
		return errors.New("web: Rooms expects rooms, a play store and a scenario catalog")
	}
	for _, p := range roomPresets {
		if _, err := catalog.Scenario(p.Name); err != nil {
			return fmt.Errorf("web: room preset %q: %w", p.Name, err)
		}
	}
	f := &roomFeature{s: s, rooms: rooms, sessions: sessions, catalog: catalog}
	rf.f = f
	if s.PublicURL() != "" {
		u, err := room.ParsePublicURL(s.PublicURL())
		if err != nil {
			return err
		}
		f.public = u
	}
	// A session a live room shows is never forgotten while the room
	// lives: a flood of /play sessions must not end workshops.
	if h, ok := sessions.(interface{ HoldWith(func(id string) bool) }); ok {
		h.HoldWith(func(id string) bool { return rooms.Holds(context.Background(), id) })
	}
	var setupErr error
	r.Post("/play/{id}/room", f.start)
	r.Get("/join", f.joinPage)
	r.Get("/join/{code}", f.joinCode)
	r.Route("/room", func(r chi.Router) {
		r.Route("/{id}", func(r chi.Router) {
			r.Get("/", f.phone)
			r.Get("/present", f.present)
			r.Get("/screen", f.screen)
			r.Get("/remote", f.remote)
			r.Get("/stream", f.stream)
			r.Get("/explain", f.explain)
			r.Get("/mine", f.mine)
			r.Get("/pair", f.pairPage)
			r.Get("/pair/new", f.pairNew)
			r.Post("/pair/new", f.pairNew)
			r.Post("/answer", f.answer)
			r.Post("/pair/redeem", f.redeem)
			for _, a := range webplay.Actions() {
				r.Post("/play/"+a.Path(), f.drive(a))
			}
			r.Post("/ask", f.presenterAction(f.ask))
			r.Post("/reveal", f.presenterAction(f.reveal))
			r.Post("/dismiss", f.presenterAction(f.dismiss))
			r.Post("/undo", f.presenterAction(f.undo))
			r.Post("/point", f.presenterAction(f.point))
			r.Post("/preset", f.presenterAction(f.preset))
			r.Post("/close", f.closeRoom)
			r.Get("/devices", f.devices)
			r.Get("/devices/live", f.devicesLive)
			r.Get("/question.csv", f.questionCSV)
			r.Post("/joins", f.devicesAction)
			r.Post("/devices/remove", f.devicesAction)
			r.Post("/devices/letback", f.devicesAction)
			r.Post("/devices/rename", f.devicesAction)
			if err := f.setupWorkshop(r); err != nil {
				setupErr = err
			}
		})
	})
	return setupErr
}

type roomFeature struct {
	s        *web.Server
	rooms    *room.Rooms
	sessions play.Sessions
	catalog  ScenarioCatalog
	public   *url.URL // -public-url, or nil

	hubs fanout.Hubs[*roomHub] // one per room with followers; at most Bounds.Rooms

	decks []decks.Shipped // the ready workshops, loaded once
}

// roomStatus is the HTTP status for a room error.
func roomStatus(err error) int {
	switch {
	case web.StoreUnreachable(err):
		return http.StatusServiceUnavailable
	case errors.Is(err, room.ErrNotPresenter), errors.Is(err, room.ErrNotAttendee), errors.Is(err, room.ErrJoinsClosed),
		errors.Is(err, room.ErrPairTries), errors.Is(err, room.ErrRemoved):
		return http.StatusForbidden
	case errors.Is(err, room.ErrNoDevice), errors.Is(err, room.ErrNotRemoved), errors.Is(err, room.ErrNoDeck), errors.Is(err, room.ErrNoStep):
		return http.StatusNotFound
	case errors.Is(err, room.ErrNicknameTaken), errors.Is(err, room.ErrDeckFull):
		return http.StatusConflict
	case errors.Is(err, room.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, room.ErrFull), errors.Is(err, room.ErrStreamsFull), errors.Is(err, room.ErrClientRooms):
		return http.StatusServiceUnavailable
	case errors.Is(err, room.ErrRoomFull), errors.Is(err, room.ErrTooManyAnswers), errors.Is(err, room.ErrTooManyDevices),
		errors.Is(err, room.ErrRequestsChanged), errors.Is(err, errChangesQuestion):
		return http.StatusConflict
	}
	return http.StatusBadRequest
}

// roomMessage is a room error as a sentence for a visitor.
func roomMessage(err error) string {
	msg := err.Error()
	var errs scenario.Errors
	if errors.As(err, &errs) {
		msg = playpages.LabelledMessage(errs)
	}
	msg = strings.TrimPrefix(msg, "room: ")
	msg = strings.TrimPrefix(msg, "play: ")
	switch {
	case web.StoreUnreachable(err):
		msg = web.StoreUnreachableText
	case errors.Is(err, room.ErrNotPresenter):
		msg = "Only the presenter's devices can do that: this device is not one of them."
	case errors.Is(err, room.ErrNotFound):
		msg = "This room has ended (its presenter closed it, or left it for too long), or its address is wrong."
	case errors.Is(err, room.ErrNotAttendee):
		msg = "This device has not joined the room: open the room's join link, or type its code at /join, on this device, then answer."
	}
	if r, n := utf8.DecodeRuneInString(msg); n > 0 {
		msg = string(unicode.ToUpper(r)) + msg[n:]
	}
	return msg
}

// messagePage answers with a page saying why.
func (f *roomFeature) messagePage(w http.ResponseWriter, r *http.Request, status int, heading, msg string) {
	if status == http.StatusServiceUnavailable && w.Header().Get("Retry-After") == "" {
		// Capacity refusals set their own; any other 503 is the store
		// being out of reach (roomStatus).
		w.Header().Set("Retry-After", strconv.Itoa(web.StoreRetryAfter))
	}
	f.s.Render(w, r, status, pages.RoomMessageView(pages.RoomMessage{
		Page: f.s.Page(r, heading, templates.SectionPlay), Heading: heading, Message: msg}))
}

func setRoomCookie(w http.ResponseWriter, r *http.Request, name, roomID, value string, site http.SameSite) {
	http.SetCookie(w, &http.Cookie{
		Name: name, Value: value, Path: "/room/" + roomID,
		HttpOnly: true, SameSite: site, Secure: r.TLS != nil,
		MaxAge: 24 * 3600, // a room lives a day at most (room.Bounds.Lifetime)
	})
}

func cookieValue(r *http.Request, name string) string {
	c, err := r.Cookie(name)
	if err != nil {
		return ""
	}
	return c.Value
}

// start opens a room over a playground session. The session id only lets
// its holder watch; presenting drives the session, so it takes the same
// control cookie as the playground's own actions (scoped to /play/{id},
// which is why the route lives under it).
func (f *roomFeature) start(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	sess, err := f.sessions.Get(r.Context(), id)
	if web.StoreUnreachable(err) {
		f.s.StoreUnreachablePage(w, r)
		return
	}
	if err == nil && !webplay.Controls(r, sess) {
		webplay.RefuseControl(w, r)
		return
	}
	if err != nil {
		f.messagePage(w, r, http.StatusNotFound, "No playground to present",
			"That playground session has ended (it was idle, or the server restarted). Open the playground again and start the room from there.")
		return
	}
	if !f.s.Admit(w, r, web.LimitRooms, f.s.ClientAddress(r)) {
		f.messagePage(w, r, http.StatusTooManyRequests, "Too many rooms opened",
			"Too many rooms were opened from this network just now: wait "+w.Header().Get("Retry-After")+" s, then start the room again.")
		return
	}
	rm, token, err := f.rooms.OpenFor(r.Context(), id, f.s.ClientAddress(r))
	if err != nil {
		b := f.rooms.Bounds()
		switch {
		case errors.Is(err, room.ErrFull):
			f.s.NoteCapacity(w, r, web.PlaceRetryAfter)
			f.messagePage(w, r, http.StatusServiceUnavailable, "Too many rooms",
				fmt.Sprintf("This server holds at most %d rooms at once and all are in use. Try again when a workshop has ended.", b.Rooms))
			return
		case errors.Is(err, room.ErrClientRooms):
			f.s.NoteCapacity(w, r, web.PlaceRetryAfter)
			f.messagePage(w, r, http.StatusServiceUnavailable, "Too many rooms from this network",
				fmt.Sprintf("One network address may hold at most %d of this server's rooms at once, and yours holds them all. End one of them (its projector's \"End the room\"), or wait for one to end.", b.RoomsPerClient))
			return
		}
		f.s.Fail(w, r, err)
		return
	}
	setRoomCookie(w, r, presenterCookie, rm.ID, token, http.SameSiteStrictMode)
	notePresenting(w, r, rm)
	http.Redirect(w, r, "/room/"+rm.ID+"/present", http.StatusSeeOther)
}

// joinPage asks for a code; with ?code= it looks the room up.
func (f *roomFeature) joinPage(w http.ResponseWriter, r *http.Request) {
	typed := r.URL.Query().Get("code")
	name := web.Truncate(r.URL.Query().Get("name"), 64)
	page := pages.RoomJoin{Page: f.s.Page(r, "Join a room", templates.SectionNone), Code: typed, Name: name}
	if !r.URL.Query().Has("code") {
		f.s.Render(w, r, http.StatusOK, pages.RoomJoinView(page))
		return
	}
	if !f.s.Admit(w, r, web.LimitJoin, f.s.ClientAddress(r)) {
		page.Error = "Too many codes were tried from this network just now: wait " + w.Header().Get("Retry-After") + " s, then try the code again."
		f.s.Render(w, r, http.StatusTooManyRequests, pages.RoomJoinView(page))
		return
	}
	rm, err := f.rooms.ByCode(r.Context(), typed)
	if web.StoreUnreachable(err) {
		f.s.StoreUnreachablePage(w, r)
		return
	}
	if err != nil {
		page.Error = roomMessage(err)
		if errors.Is(err, room.ErrNotFound) {
			page.Error = "No room has that code: check it against the presenter's screen (the room may also have ended)."
		}
		f.s.Render(w, r, roomStatus(err), pages.RoomJoinView(page))
		return
	}
	to := "/room/" + rm.ID
	if n, err := room.NormaliseNickname(name); err != nil {
		page.Error = roomMessage(err)
		f.s.Render(w, r, http.StatusBadRequest, pages.RoomJoinView(page))
		return
	} else if n != "" {
		to += "?name=" + url.QueryEscape(n)
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// joinCode follows a join link or QR code.
func (f *roomFeature) joinCode(w http.ResponseWriter, r *http.Request) {
	if !f.s.Admit(w, r, web.LimitJoin, f.s.ClientAddress(r)) {
		f.s.Render(w, r, http.StatusTooManyRequests, pages.RoomJoinView(pages.RoomJoin{Page: f.s.Page(r, "Join a room", templates.SectionNone),
			Error: "Too many codes were tried from this network just now: wait " + w.Header().Get("Retry-After") + " s, then open the link again."}))
		return
	}
	rm, err := f.rooms.ByCode(r.Context(), chi.URLParam(r, "code"))
	if web.StoreUnreachable(err) {
		f.s.StoreUnreachablePage(w, r)
		return
	}
	if err != nil {
		page := pages.RoomJoin{Page: f.s.Page(r, "Join a room", templates.SectionNone), Error: roomMessage(err)}
		if errors.Is(err, room.ErrNotFound) {
			page.Error = "No room has the code in this link: type the code on the presenter's screen (the room may also have ended)."
		}
		f.s.Render(w, r, roomStatus(err), pages.RoomJoinView(page))
		return
	}
	http.Redirect(w, r, "/room/"+rm.ID, http.StatusSeeOther)
}

// liveRoom returns the room and its session, or answers with a page.
func (f *roomFeature) liveRoom(w http.ResponseWriter, r *http.Request) (*room.Room, *play.Session, bool) {
	rm, err := f.rooms.ByID(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		if errors.Is(err, room.ErrNotFound) {
			f.messagePage(w, r, http.StatusNotFound, "This room has ended", roomMessage(err))
		} else {
			f.s.Fail(w, r, err)
		}
		return nil, nil, false
	}
	sess, err := f.sessions.Get(r.Context(), rm.Session)
	if web.StoreUnreachable(err) {
		// Out of reach is not gone: the room stays.
		f.s.StoreUnreachablePage(w, r)
		return nil, nil, false
	}
	if err != nil {
		f.endOrphan(r.Context(), rm)
		f.messagePage(w, r, http.StatusNotFound, "This room has ended", "The playground this room showed has closed.")
		return nil, nil, false
	}
	return rm, sess, true
}

// endOrphan ends a room whose session is gone (the server held it while
// the room lived, so only a restart or a store elsewhere loses it): it can
// show nothing, so it frees its place in the bound at once.
func (f *roomFeature) endOrphan(ctx context.Context, rm *room.Room) {
	if err := f.rooms.End(ctx, rm.ID); err != nil {
		f.s.Log().Warn("ending a room whose session is gone", "room", rm.ID, slog.Any("error", err))
	}
}

// phone is an attendee's page. Opening it joins the device, once: the
// attendee cookie it sets is what lets the device answer, so a script
// posting answers without it is refused, and the room's answers can never
// outnumber the devices that joined. A device the presenter removed stays
// out (its old cookie says who it was) until let back.
func (f *roomFeature) phone(w http.ResponseWriter, r *http.Request) {
	rm, sess, ok := f.liveRoom(w, r)
	if !ok {
		return
	}
	attendee := cookieValue(r, attendeeCookie)
	var note string
	if rm.RoleOf("", attendee) != room.Attendee {
		if !f.s.Admit(w, r, web.LimitJoin, f.s.ClientAddress(r)) {
			note = "This device has not joined: too many devices joined from this network just now. Open this page again in a minute to join."
		} else if joined, id, err := f.rooms.JoinAs(r.Context(), rm.ID, attendee, r.URL.Query().Get("name")); errors.Is(err, room.ErrNicknameTaken) || errors.As(err, new(*room.NicknameError)) {
			// The name typed at /join cannot be taken: join without it,
			// and say so beside the field to choose another.
			if joined, id, err = f.rooms.JoinAs(r.Context(), rm.ID, attendee, ""); err == nil {
				rm, attendee = joined, id
				setRoomCookie(w, r, attendeeCookie, rm.ID, id, http.SameSiteLaxMode)
			}
			note = "name:" + roomMessage(room.ErrNicknameTaken)
		} else if errors.Is(err, room.ErrJoinsClosed) {
			// Said at once, at the top: not after the attendee has
			// tapped every lane of a question.
			note = "This room is closed to new devices: this device can watch, but not answer. To take part, ask the presenter to open the room to new devices, then open this page again."
		} else if err != nil {
			note = "This device could not join, so it can watch but not answer: " + roomMessage(err)
		} else {
			rm, attendee = joined, id
			setRoomCookie(w, r, attendeeCookie, rm.ID, id, http.SameSiteLaxMode)
		}
	}
	w.Header().Del("Retry-After") // the page is served: the limit's headers only say why it did not join
	p := f.phonePage(r, rm, sess, attendee)
	if name, ok := strings.CutPrefix(note, "name:"); ok {
		p.NameError = name
	} else if note != "" {
		p.JoinNote = note
	}
	f.s.Render(w, r, http.StatusOK, pages.RoomPhoneView(p))
}

// phonePage is the attendee's page for the device holding attendee.
func (f *roomFeature) phonePage(r *http.Request, rm *room.Room, sess *play.Session, attendee string) pages.RoomPhone {
	p := pages.RoomPhone{Page: f.s.Page(r, "Room "+rm.Code, templates.SectionNone), Code: rm.Code}
	if rm.RoleOf("", attendee) == room.Attendee {
		p.Device, p.Nickname = room.DeviceName(attendee), rm.Nickname(attendee)
	}
	p.Shared = f.shared(rm, sess, 0, f.askedCache(rm.ID))
	return p
}

// present is the projector, for the presenter's devices only.
func (f *roomFeature) present(w http.ResponseWriter, r *http.Request) {
	rm, sess, ok := f.liveRoom(w, r)
	if !ok {
		return
	}
	token := cookieValue(r, presenterCookie)
	if rm.RoleOf(token, "") != room.Presenter {
		f.messagePage(w, r, http.StatusForbidden, "Presenter only",
			"Only the presenter's devices can open the projector view. To follow this room, open its join link or type its code at /join. A presenter's second device is paired from the presenting device.")
		return
	}
	_ = f.rooms.Touch(r.Context(), rm.ID, token)
	p := pages.RoomPresent{
		Page:    f.s.Page(r, "Room "+rm.Code, templates.SectionPlay),
		Shared:  f.shared(rm, sess, 0, f.askedCache(rm.ID)),
		Code:    rm.Code,
		Presets: roomPresets,
	}
	p.Page.Presentation = true
	p.Page.PresentationExit = "/room/" + rm.ID // the same room, outside the projector
	if err := f.joinLink(r, &p); err != nil {
		f.s.Fail(w, r, err)
		return
	}
	f.s.Render(w, r, http.StatusOK, pages.RoomPresentView(p))
}

// joinLink fills in where attendees join the room p shows, and its QR code,
// for the projector and the projector-only window alike.
func (f *roomFeature) joinLink(r *http.Request, p *pages.RoomPresent) error {
	p.JoinURL, p.Candidates, p.AddrNote = f.reachable(r, "/join/"+p.Code)
	if p.JoinURL == "" {
		return nil
	}
	var err error
	p.QR, err = qrsvg.SVG(p.JoinURL, "QR code of the join link "+p.JoinURL)
	return err
}

// asPresenter is the room the request names, when the request comes
// from one of its presenter's devices; room.ErrNotPresenter otherwise.
func (f *roomFeature) asPresenter(r *http.Request) (*room.Room, error) {
	rm, err := f.rooms.ByID(r.Context(), chi.URLParam(r, "id"))
	if err == nil && rm.RoleOf(cookieValue(r, presenterCookie), "") != room.Presenter {
		err = room.ErrNotPresenter
	}
	return rm, err
}

// notPresenterPage answers a presenter-only page that asPresenter
// refused: the room has ended, or the device is not its presenter's.
func (f *roomFeature) notPresenterPage(w http.ResponseWriter, r *http.Request, err error) {
	heading := "Presenter only"
	if errors.Is(err, room.ErrNotFound) {
		heading = "This room has ended"
	}
	f.messagePage(w, r, roomStatus(err), heading, roomMessage(err))
}

// reachable is where another device opens path: the public URL's, the
// request host's, or at localhost the machine's address picked by ?via=
// (candidates lists them, and note says why there is no URL yet).
func (f *roomFeature) reachable(r *http.Request, path string) (u string, candidates []string, note string) {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	urls, err := room.Resolve(f.public, scheme, r.Host, path, f.s.ListenIP(), net.InterfaceAddrs)
	if err != nil {
		return "", nil, roomMessage(err)
	}
	if urls.URL == "" {
		note = "This page was opened at localhost, an address only this machine can reach, so there is no QR code to scan yet."
		if i, err := strconv.Atoi(r.URL.Query().Get("via")); err == nil && i >= 0 && i < len(urls.Candidates) {
			urls.URL = urls.Candidates[i]
		}
	}
	return urls.URL, urls.Candidates, note
}

// presenterCall is one presenter action: it returns the fragment to show,
// or an error.
type presenterCall func(r *http.Request, rm *room.Room, sess *play.Session, token string, sig roomSignals) (reply templateReply, err error)

type templateReply struct {
	html string // a fragment beside the cleared error slot, or ""
}

// roomSignals are the presenter page's signals besides the playground's.
type roomSignals struct {
	webplay.Signals
	AskKind string              `json:"askKind"`
	AskAt   string              `json:"askAt"`
	AskN    webplay.NumberField `json:"askN"`
	Preset  string              `json:"preset"`
	// The countdown of the next question, and a new step's title.
	AskSeconds *webplay.NumberField `json:"askSeconds"` // nil when the page sends none: no countdown
	AskOnTime  bool                 `json:"askOnTime"`
	AskWhenAll bool                 `json:"askWhenAll"`
	StepTitle  string               `json:"stepTitle"`
}

// presenterAction checks the presenter's cookie, reads the signals, runs
// call, and answers with the error slot (and call's fragment).
func (f *roomFeature) presenterAction(call presenterCall) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rm, sess, ok := f.presenterRoom(w, r)
		if !ok {
			return
		}
		var sig roomSignals
		r.Body = http.MaxBytesReader(w, r.Body, webplay.MaxSignalBytes)
		if err := webplay.ReadSignals(r, &sig, &sig.Signals); err != nil {
			http.Error(w, "malformed signals: want the page's signals as a JSON object", http.StatusBadRequest)
			return
		}
		reply, err := call(r, rm, sess, cookieValue(r, presenterCookie), sig)
		f.replyPresenter(w, r, reply, err)
	}
}

func (f *roomFeature) replyPresenter(w http.ResponseWriter, r *http.Request, reply templateReply, err error) {
	if web.StoreUnreachable(err) {
		f.s.StoreUnreachablePage(w, r)
		return
	}
	status, msg, problem := http.StatusOK, "", ""
	if err != nil {
		status, msg = roomStatus(err), roomMessage(err)
		// The header names fields as the JSON does, as /play's does; the
		// presenter reads the controls' labels.
		problem = msg
		var errs scenario.Errors
		if errors.As(err, &errs) {
			problem = errs.Error()
		}
	}
	sse := web.SSEReply(w, r, status, problem)
	if e := web.MergeComponent(sse, pages.RoomError(msg)); e != nil {
		return
	}
	if reply.html != "" {
		_ = web.MergeFragments(sse, reply.html)
	}
}

// presenterRoom returns the room when the request carries its presenter's
// capability, or answers 403 (404 for a room that has ended).
func (f *roomFeature) presenterRoom(w http.ResponseWriter, r *http.Request) (*room.Room, *play.Session, bool) {
	rm, err := f.asPresenter(r)
	var sess *play.Session
	if err == nil {
		if sess, err = f.sessions.Get(r.Context(), rm.Session); err != nil && !web.StoreUnreachable(err) {
			err = room.ErrNotFound
		}
	}
	if err != nil {
		f.replyPresenter(w, r, templateReply{}, err)
		return nil, nil, false
	}
	return rm, sess, true
}

// playMark is a session's state before a playground action, and the one
// rule, for the room's controls and /play's alike, for when the action
// earns a room's undo checkpoint: it succeeded and moved the scenario or
// the clock. A refused action, a selection or a speed leaves nothing to
// undo, and an undo spent on one would seem to do nothing.
type playMark struct {
	before room.PlayState
	rev    uint64
}

func markPlay(sess *play.Session) playMark {
	return playMark{before: room.PlayState{Scenario: sess.Scenario(), ClockMs: sess.Now()}, rev: sess.ScenarioRev()}
}

// changed reports whether the session's scenario or clock moved since the
// mark.
func (m playMark) changed(sess *play.Session) bool {
	return sess.Now() != m.before.ClockMs || sess.ScenarioRev() != m.rev
}

// errChangesQuestion refuses a presenter's action that would change the
// requests an open question is about (room.ErrRequestsChanged says why).
var errChangesQuestion = errors.New("a question is open")

// guardQuestion refuses, while a question is open, a playground action
// that would add, remove or replace requests before its moment: the
// attendees answered for the requests they were shown. It is checked
// before the action, since a change taken back afterwards would already
// have reached the screens. Firing at or after the moment (the asked
// request itself) and moving the clock change nothing before it; a
// change of limit or window is refused at the reveal
// (room.ErrSettingsChanged), and any other change reaching the session,
// from its own /play page say, too (room.ErrRequestsChanged).
func guardQuestion(rm *room.Room, sess *play.Session, action string) error {
	q := rm.Question
	if q == nil || q.Revealed {
		return nil
	}
	at, now := q.Request.At, sess.Now()
	var why string
	switch action {
	case "fire", "burst", "pattern":
		if now < at {
			why = fmt.Sprintf("firing at %s would add requests before it and change its answer; reveal or close it first, or move the clock to %s or later",
				scenario.FormatMs(now), scenario.FormatMs(at))
		}
	case "reset":
		if q.Prior > 0 {
			why = "reset would remove the requests it is about; reveal or close it first"
		}
	case "preset":
		why = "loading a preset would replace the requests it is about; reveal or close it first"
	case "client/rename":
		// Renaming rewrites the keys of requests already fired.
		if q.Prior > 0 {
			why = "renaming the client would change the requests it is about; reveal or close it first"
		}
	case "settings":
		why = "changing the settings would change its answer; reveal or close it first"
	}
	if why == "" {
		return nil
	}
	return fmt.Errorf("%w about the requests before %s: %s", errChangesQuestion, scenario.FormatMs(at), why)
}

// drive runs a playground action for the presenter and then records the
// session as it was before, so that undo can take the action back.
func (f *roomFeature) drive(a webplay.Action) http.HandlerFunc {
	return f.presenterAction(func(r *http.Request, rm *room.Room, sess *play.Session, token string, sig roomSignals) (templateReply, error) {
		if err := guardQuestion(rm, sess, a.Path()); err != nil {
			return templateReply{}, err
		}
		var mark playMark
		q := r.URL.Query()
		changed, err := f.sessions.Update(r.Context(), sess.ID(), func(s *play.Session) error {
			mark = markPlay(s) // the session as the action found it, however often a store runs this
			return a.Run(s, sig.Signals, q)
		})
		if err != nil || !mark.changed(changed) {
			return templateReply{}, err
		}
		_, err = f.rooms.Checkpoint(r.Context(), rm.ID, token, a.Path(), mark.before)
		return templateReply{}, err
	})
}

// beforeAction gives an action taken on /play itself, on a session a
// room shows, the undo checkpoint the presenter's own actions get, so the
// room's Undo takes it back too. A session no room shows costs one look.
func (f *roomFeature) beforeAction(ctx context.Context, sess *play.Session, label string) func(*play.Session) {
	ids, err := f.rooms.Showing(ctx, sess.ID())
	if err != nil || len(ids) == 0 {
		return nil
	}
	mark := markPlay(sess)
	return func(changed *play.Session) {
		if !mark.changed(changed) {
			return
		}
		if _, err := f.rooms.CheckpointSession(ctx, sess.ID(), label, mark.before); err != nil {
			f.s.Log().Warn("room checkpoint of a playground action", "session", sess.ID(), slog.Any("error", err))
		}
	}
}

func (f *roomFeature) ask(r *http.Request, rm *room.Room, sess *play.Session, token string, sig roomSignals) (templateReply, error) {
	v := sess.View()
	// "The next request" at the clock comes after any request the lanes
	// already show at the clock: a question is about the requests before
	// its instant (room.Question.Solve), so it is asked a millisecond on.
	at := v.Clock.Now
	for _, req := range v.Scenario.Requests {
		if req.At == at {
			at++
			break
		}
	}
	a := room.Ask{Kind: room.Kind(sig.AskKind), At: at, Key: v.Client}
	var err error
	if strings.TrimSpace(sig.AskAt) != "" {
		if a.At, err = scenario.ParseMoment(sig.AskAt, 1000); err != nil {
			return templateReply{}, scenario.Errors{{Field: "askAt", Reason: fmt.Sprintf("%v: write a moment as 35 s, 35.5 s or 35500 ms", err)}}
		}
	}
	if a.Cost, err = webplay.Whole("cost", sig.Cost, 1, scenario.MaxCost); err != nil {
		return templateReply{}, err
	}
	if ask.AsksAboutN(string(a.Kind)) {
		if a.N, err = webplay.Whole("askN", sig.AskN, 1, f.rooms.Bounds().QuestionN); err != nil {
			return templateReply{}, err
		}
	}
	if sig.AskSeconds != nil {
		secs, err := webplay.Whole("askSeconds", *sig.AskSeconds, 0, int64(f.rooms.Bounds().Countdown.Seconds()))
		if err != nil {
			return templateReply{}, err
		}
		a.Timer = room.Timer{Seconds: int(secs), OnTime: secs > 0 && sig.AskOnTime, WhenAll: sig.AskWhenAll}
	} else {
		a.Timer.WhenAll = sig.AskWhenAll
	}
	_, err = f.rooms.Ask(r.Context(), rm.ID, token, a, v.Scenario)
	if taken := (*room.InstantTakenError)(nil); errors.As(err, &taken) {
		return templateReply{}, scenario.Errors{{Field: "askAt", Reason: strings.TrimPrefix(taken.Error(), "room: ")}}
	}
	return templateReply{}, err
}

func (f *roomFeature) reveal(r *http.Request, rm *room.Room, sess *play.Session, token string, _ roomSignals) (templateReply, error) {
	_, _, err := f.rooms.Reveal(r.Context(), rm.ID, token, sess.Scenario())
	return templateReply{}, err
}

func (f *roomFeature) dismiss(r *http.Request, rm *room.Room, _ *play.Session, token string, _ roomSignals) (templateReply, error) {
	_, err := f.rooms.Dismiss(r.Context(), rm.ID, token)
	return templateReply{}, err
}

func (f *roomFeature) undo(r *http.Request, rm *room.Room, sess *play.Session, token string, _ roomSignals) (templateReply, error) {
	_, ps, err := f.rooms.Undo(r.Context(), rm.ID, token)
	if err != nil || ps == nil {
		return templateReply{}, err
	}
	_, err = f.sessions.Update(r.Context(), sess.ID(), func(s *play.Session) error {
		if err := s.Load(ps.Scenario); err != nil {
			return err
		}
		return s.Jump(ps.ClockMs)
	})
	return templateReply{}, err
}

func (f *roomFeature) point(r *http.Request, rm *room.Room, sess *play.Session, token string, _ roomSignals) (templateReply, error) {
	total := int(expandedTotal(sess.Scenario()))
	q := r.URL.Query()
	i, err := strconv.Atoi(q.Get("i"))
	if d, derr := strconv.Atoi(q.Get("d")); q.Has("d") && derr == nil && (d == 1 || d == -1) && total > 0 {
		// From the pointer, or from the end when none: wrapping round.
		i, err = rm.Pointer+d, nil
		if rm.Pointer < 0 && d < 0 {
			i = total - 1
		}
		i = (i%total + total) % total
	}
	if err != nil {
		return templateReply{}, scenario.Errors{{Field: "i", Reason: "want ?i=<request index> (-1 for none), or ?d=1 or ?d=-1"}}
	}
	_, err = f.rooms.Point(r.Context(), rm.ID, token, i, total)
	return templateReply{}, err
}

func (f *roomFeature) preset(r *http.Request, rm *room.Room, sess *play.Session, token string, sig roomSignals) (templateReply, error) {
	known := false
	for _, p := range roomPresets {
		known = known || p.Name == sig.Preset
	}
	if !known {
		return templateReply{}, scenario.Errors{{Field: "preset", Reason: fmt.Sprintf("there is no preset %q", web.Truncate(sig.Preset, 64))}}
	}
	if err := guardQuestion(rm, sess, "preset"); err != nil {
		return templateReply{}, err
	}
	sc, err := f.catalog.Scenario(sig.Preset)
	if err != nil {
		return templateReply{}, err
	}
	var mark playMark
	changed, err := f.sessions.Update(r.Context(), sess.ID(), func(s *play.Session) error {
		mark = markPlay(s)
		return s.Load(sc)
	})
	if err != nil || !mark.changed(changed) {
		return templateReply{}, err
	}
	_, err = f.rooms.Checkpoint(r.Context(), rm.ID, token, "preset", mark.before)
	return templateReply{}, err
}

// closeRoom ends the room for its presenter. Unlike the other controls it
// needs only the room, not its session: a presenter can always end their
// own room.
func (f *roomFeature) closeRoom(w http.ResponseWriter, r *http.Request) {
	err := f.rooms.Close(r.Context(), chi.URLParam(r, "id"), cookieValue(r, presenterCookie))
	f.replyPresenter(w, r, templateReply{}, err)
}

// devices is the presenter's list of the devices that joined.
func (f *roomFeature) devices(w http.ResponseWriter, r *http.Request) {
	f.devicesPage(w, r, http.StatusOK, "")
}

func (f *roomFeature) devicesPage(w http.ResponseWriter, r *http.Request, status int, problem string) {
	rm, err := f.asPresenter(r)
	if err != nil {
		f.notPresenterPage(w, r, err)
		return
	}
	p := devicesModel(rm)
	p.Page, p.Error = f.s.Page(r, "Devices in the room", templates.SectionNone), problem
	w.Header().Set("Cache-Control", "no-store")
	f.s.Render(w, r, status, pages.RoomDevicesView(p))
}

// devicesLive sends the devices page its list again (it asks every few
// seconds), so the presenter sees who joins and answers as it happens.
func (f *roomFeature) devicesLive(w http.ResponseWriter, r *http.Request) {
	rm, err := f.asPresenter(r)
	if err != nil {
		sse := web.SSEReply(w, r, roomStatus(err), roomMessage(err))
		_ = web.MergeFragments(sse, `<div id="devices-list" data-testid="devices-list"><p role="alert">`+templ.EscapeString(roomMessage(err))+`</p></div>`)
		return
	}
	sse := web.SSEReply(w, r, http.StatusOK, "")
	_ = web.MergeComponent(sse, pages.RoomDevicesList(devicesModel(rm)))
}

func devicesModel(rm *room.Room) pages.RoomDevices {
	p := pages.RoomDevices{Room: rm.ID, JoinsClosed: rm.JoinsClosed, Open: rm.Question != nil && !rm.Question.Revealed}
	for id, at := range rm.Attendees {
		_, answered := answerOf(rm.Question, id)
		p.Devices = append(p.Devices, pages.RoomDevice{Name: room.DeviceName(id), Nickname: rm.Nickname(id),
			Joined: at.UTC().Format(time.RFC3339), Answered: answered})
	}
	slices.SortFunc(p.Devices, func(a, b pages.RoomDevice) int {
		return cmp.Or(cmp.Compare(a.Joined, b.Joined), cmp.Compare(a.Name, b.Name))
	})
	for _, d := range rm.RemovedDevices() {
		p.Removed = append(p.Removed, pages.RoomDevice{Name: d.Name, Nickname: d.Nickname})
	}
	return p
}

// devicesAction closes or opens the room to new devices (POST .../joins,
// open=0 or 1) or removes one (POST .../devices/remove, device=<name>),
// then shows the list again (POST, redirect, GET).
func (f *roomFeature) devicesAction(w http.ResponseWriter, r *http.Request) {
	id, token := chi.URLParam(r, "id"), cookieValue(r, presenterCookie)
	r.Body = http.MaxBytesReader(w, r.Body, webplay.MaxSignalBytes)
	var err error
	if strings.HasSuffix(r.URL.Path, "/joins") {
		switch r.PostFormValue("open") {
		case "0", "1":
			_, err = f.rooms.SetJoins(r.Context(), id, token, r.PostFormValue("open") == "1")
		default:
			f.devicesPage(w, r, http.StatusBadRequest, "Want open=1 (open the room to new devices) or open=0 (close it).")
			return
		}
	} else {
		switch device := r.PostFormValue("device"); {
		case strings.HasSuffix(r.URL.Path, "/letback"):
			_, err = f.rooms.LetBack(r.Context(), id, token, device)
		case strings.HasSuffix(r.URL.Path, "/rename"):
			_, err = f.rooms.Rename(r.Context(), id, token, device, r.PostFormValue("nickname"))
		default:
			_, err = f.rooms.RemoveDevice(r.Context(), id, token, device)
		}
	}
	switch {
	case err != nil:
		f.devicesPage(w, r, roomStatus(err), roomMessage(err))
	default:
		http.Redirect(w, r, "/room/"+id+"/devices", http.StatusSeeOther)
	}
}

// pairPage asks a second device for the pairing code, filled in when the
// link of the pairing page's QR code carries it.
func (f *roomFeature) pairPage(w http.ResponseWriter, r *http.Request) {
	// A link to a room that has ended says so at once, not after the
	// person has typed or sent the code.
	if _, err := f.rooms.ByID(r.Context(), chi.URLParam(r, "id")); err != nil {
		f.messagePage(w, r, roomStatus(err), "This room has ended", roomMessage(err))
		return
	}
	f.s.Render(w, r, http.StatusOK, pages.RoomPairView(pages.RoomPair{
		Page: f.s.Page(r, "Pair a device", templates.SectionNone), Room: chi.URLParam(r, "id"),
		Code: web.Truncate(r.URL.Query().Get("code"), 16)}))
}

// pairNew is the presenter's pairing page: GET shows it with no code, POST
// issues one (voiding the last). It is a page of its own, opened on the
// presenter's screen, because the code gives the room's control to
// whoever redeems it first and the projector's page is seen by the room.
func (f *roomFeature) pairNew(w http.ResponseWriter, r *http.Request) {
	rm, err := f.asPresenter(r)
	if err != nil {
		f.notPresenterPage(w, r, err)
		return
	}
	token := cookieValue(r, presenterCookie)
	p := pages.RoomPairNew{
		Page: f.s.Page(r, "Pair a device", templates.SectionNone), Room: rm.ID,
		Action:  "/room/" + rm.ID + "/pair/new",
		Minutes: strconv.Itoa(int(f.rooms.Bounds().PairTTL.Minutes())),
	}
	if via := r.URL.Query().Get("via"); via != "" {
		p.Action += "?via=" + url.QueryEscape(via)
	}
	p.URL, p.Candidates, p.AddrNote = f.reachable(r, "/room/"+rm.ID+"/pair")
	if r.Method == http.MethodPost {
		if p.Code, err = f.rooms.IssuePairing(r.Context(), rm.ID, token); err != nil {
			f.messagePage(w, r, roomStatus(err), "No pairing code", roomMessage(err))
			return
		}
		if p.URL != "" {
			p.URL += "?code=" + p.Code
			if p.QR, err = qrsvg.SVG(p.URL, "QR code of the pairing link "+p.URL); err != nil {
				f.s.Fail(w, r, err)
				return
			}
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	f.s.Render(w, r, http.StatusOK, pages.RoomPairNewView(p))
}

// redeem turns a pairing code into the presenter's capability on this device.
func (f *roomFeature) redeem(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	r.Body = http.MaxBytesReader(w, r.Body, webplay.MaxSignalBytes)
	client := f.s.ClientAddress(r)
	if !f.s.Admit(w, r, web.LimitPair, client) {
		f.s.Render(w, r, http.StatusTooManyRequests, pages.RoomPairView(pages.RoomPair{
			Page: f.s.Page(r, "Pair a device", templates.SectionNone), Room: id,
			Error: "Too many pairing codes were tried from this network just now: wait " + w.Header().Get("Retry-After") + " s, then type the code again."}))
		return
	}
	token, err := f.rooms.PairFrom(r.Context(), id, r.PostFormValue("code"), client)
	if err != nil {
		status := roomStatus(err)
		if errors.Is(err, room.ErrPairing) {
			status = http.StatusForbidden
		}
		f.s.Render(w, r, status, pages.RoomPairView(pages.RoomPair{
			Page: f.s.Page(r, "Pair a device", templates.SectionNone), Room: id, Error: roomMessage(err)}))
		return
	}
	setRoomCookie(w, r, presenterCookie, id, token, http.SameSiteStrictMode)
	// A paired device is the presenter's remote; the remote links to the
	// projector page, for a device that is to show it.
	http.Redirect(w, r, "/room/"+id+"/remote", http.StatusSeeOther)
}

// answer records the answer of a device that joined (phone). The phone
// sends one signal per lane (pages.AnswerSignal); a tap
// question sends as soon as one lane is tapped, so an answer with lanes
// still open is not an error, only a nudge.
func (f *roomFeature) answer(w http.ResponseWriter, r *http.Request) {
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
func (f *roomFeature) notReceived(w http.ResponseWriter, r *http.Request, q *room.Question) {
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

func (f *roomFeature) replyMine(w http.ResponseWriter, r *http.Request, m pages.RoomMine, status int) {
	sse := web.SSEReply(w, r, status, m.Note)
	if web.MergeComponent(sse, pages.RoomMineView(m)) == nil && r.Method == http.MethodPost {
		// Taken, or refused for good: nothing is left to send again.
		_ = web.MergeComponent(sse, pages.RoomResend("", 0, 0))
	}
}

// mine shows an attendee their own answer (the phone asks after each
// change of the question).
func (f *roomFeature) mine(w http.ResponseWriter, r *http.Request) {
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

// explain explains request ?i= to the one attendee who asked, wrapping
// round the list (so previous/next never run off its ends). While a
// question is open it follows the lanes' rule (roomFeature.shared): a
// request from the question's moment on, or later than the clock, stays
// hidden, and of an earlier one only the verdicts are given.
func (f *roomFeature) explain(w http.ResponseWriter, r *http.Request) {
	rm, err := f.rooms.ByID(r.Context(), chi.URLParam(r, "id"))
	var sess *play.Session
	if err == nil {
		if sess, err = f.sessions.Get(r.Context(), rm.Session); err != nil && !web.StoreUnreachable(err) {
			err = room.ErrNotFound
		}
	}
	if err != nil {
		sse := web.SSEReply(w, r, roomStatus(err), roomMessage(err))
		_ = web.MergeComponent(sse, pages.RoomExplainView(pages.RoomExplain{Note: roomMessage(err)}))
		return
	}
	i, err := strconv.Atoi(r.URL.Query().Get("i"))
	if err != nil {
		sse := web.SSEReply(w, r, http.StatusBadRequest, "want ?i=<request index>")
		_ = web.MergeComponent(sse, pages.RoomExplainView(pages.RoomExplain{Note: "Want ?i=<request index>."}))
		return
	}
	sc, now := sess.Scenario(), sess.Now()
	v := pages.RoomExplain{}
	total := int(expandedTotal(sc))
	switch {
	case total == 0:
		v.Note = "There are no requests yet."
	default:
		i = ((i % total) + total) % total
		v.Selected, err = explainRequest(sc, now, i)
		if err != nil {
			f.s.Fail(w, r, err)
			return
		}
		// As on every shared screen (roomFeature.shared): nothing from the
		// question's moment on, nor later than the clock.
		// Of an earlier one, only its verdicts, as the lanes draw.
		if q := rm.Question; q != nil && !q.Revealed && v.Selected != nil {
			v.Asked = true
			if v.Selected.At >= questionCut(q, now) {
				v.Selected, v.Note = nil, "That request is not earlier than the question, or is later than the clock: it stays hidden while the question is open."
			}
		}
	}
	sse := web.SSEReply(w, r, http.StatusOK, "")
	if err := web.MergeComponent(sse, pages.RoomExplainView(v)); err != nil {
		return
	}
	_ = web.MergeSignals(sse, fmt.Appendf(nil, `{"sel": %d}`, i), false)
}

func answerOf(q *room.Question, attendee string) (room.Answer, bool) {
	if q == nil || attendee == "" {
		return room.Answer{}, false
	}
	a, ok := q.Answers[attendee]
	return a, ok
}

func expandedTotal(sc scenario.Scenario) int64 {
	var n int64
	for _, r := range sc.Requests {
		n += r.Count
	}
	return n
}

// explainRequest explains request i of sc in every lane, with the
// playground's own replay on a session of its own (nobody else's selection
// changes).
func explainRequest(sc scenario.Scenario, now int64, i int) (*play.Selection, error) {
	s, err := play.NewSession("", sc)
	if err != nil {
		return nil, err
	}
	if err := s.Jump(now); err != nil {
		return nil, err
	}
	if err := s.Select(i); err != nil {
		return nil, err
	}
	return s.View().Selected, nil
}

// roomCtx is a context that ends with the request or with the server.
func (f *roomFeature) roomCtx(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	stop := context.AfterFunc(f.s.Closing(), cancel)
	return ctx, func() { stop(); cancel() }
}

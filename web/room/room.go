package room

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/windowlab/playground/decks"
	"github.com/windowlab/playground/lessons"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/room"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web"
	"github.com/windowlab/playground/web/fanout"
	webplay "github.com/windowlab/playground/web/play"
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
	return &Feature{rooms: rooms, sessions: sessions, catalog: catalog, log: slog.Default()}
}

// Feature is the rooms: their routes, and the undo checkpoint of an action
// taken on /play itself (BeforeAction), which the playground is given as
// its webplay.ActionObserver before the server exists. What BeforeAction
// and PresentingRoom read is given to Rooms, so they hold whether or not
// SetupRoutes has run; what SetupRoutes adds serves only the routes it
// sets up.
type Feature struct {
	rooms    *room.Rooms
	sessions play.Sessions
	catalog  ScenarioCatalog
	log      *slog.Logger // the server's, once SetupRoutes ran

	// Set by SetupRoutes, for its handlers.
	s      *web.Server
	public *url.URL        // -public-url, or nil
	decks  []decks.Shipped // the ready workshops, loaded once

	hubs fanout.Hubs[*roomHub] // one per room with followers; at most Bounds.Rooms
}

// sessionHolder is a session store that can be told which sessions to
// keep (play.Store.HoldWith, and the NATS store's guard passing it on).
type sessionHolder interface {
	HoldWith(held func(id string) bool)
}

// SetupRoutes implements web.Feature.
func (f *Feature) SetupRoutes(s *web.Server, r chi.Router) error {
	rooms, sessions, catalog := f.rooms, f.sessions, f.catalog
	if rooms == nil || sessions == nil || catalog == nil {
		return errors.New("web: Rooms expects rooms, a play store and a scenario catalog")
	}
	if f.s != nil {
		return errors.New("web: the rooms' routes are set up already: one Rooms feature serves one server")
	}
	for _, p := range roomPresets {
		if _, err := catalog.Scenario(p.Name); err != nil {
			return fmt.Errorf("web: room preset %q: %w", p.Name, err)
		}
	}
	if s.PublicURL() != "" {
		u, err := room.ParsePublicURL(s.PublicURL())
		if err != nil {
			return err
		}
		f.public = u
	}
	f.s, f.log = s, s.Log()
	// A session a live room shows is never forgotten while the room
	// lives: a flood of /play sessions must not end workshops.
	if h, ok := sessions.(sessionHolder); ok {
		h.HoldWith(func(id string) bool { return rooms.Holds(context.Background(), id) })
	}
	if err := f.loadDecks(); err != nil {
		return err
	}
	r.Post("/play/{id}/room", f.start)
	r.Get("/join", f.joinPage)
	r.Get("/join/{code}", f.joinCode)
	r.Route("/room/{id}", func(r chi.Router) {
		// Anyone's: watching needs no capability, answering an
		// attendee's cookie, pairing a code.
		r.Get("/", f.phone)
		r.Get("/screen", f.screen)
		r.Get("/stream", f.stream)
		r.Get("/explain", f.explain)
		r.Get("/mine", f.mine)
		r.Post("/answer", f.answer)
		r.Post("/name", f.setName)
		r.Get("/pair", f.pairPage)
		r.Post("/pair/redeem", f.redeem)

		// The presenter's pages and forms: refused with a page.
		r.Group(func(r chi.Router) {
			r.Use(f.presenterOnly(f.notPresenterPage))
			r.Get("/pair/new", f.pairNew)
			r.Post("/pair/new", f.pairNew)
			r.Get("/devices", f.devices)
			r.Post("/joins", f.devicesAction)
			r.Post("/devices/remove", f.devicesAction)
			r.Post("/devices/letback", f.devicesAction)
			r.Post("/devices/rename", f.devicesAction)
			f.workshopPages(r)
		})
		// The presenter's controls (Datastar requests): refused in the
		// controls' error slot.
		r.Group(func(r chi.Router) {
			r.Use(f.presenterOnly(f.refuseControl))
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
			f.workshopControls(r)
		})
		// The presenter's routes that refuse in words of their own.
		r.With(f.presenterOnly(f.refuseScreen(
			"Only the presenter's devices can open the projector view. To follow this room, open its join link or type its code at /join. A presenter's second device is paired from the presenting device."))).
			Get("/present", f.present)
		r.With(f.presenterOnly(f.refuseScreen(
			"Only the presenter's devices can open the remote. Pair this device from the presenter's projector page (\"Pair a device as a remote\")."))).
			Get("/remote", f.remote)
		r.With(f.presenterOnly(f.refuseLive)).Get("/devices/live", f.devicesLive)
		r.With(f.presenterOnly(f.noResults)).Get("/question.csv", f.questionCSV)
	})
	return nil
}

// messagePage answers with a page saying why.
func (f *Feature) messagePage(w http.ResponseWriter, r *http.Request, status int, heading, msg string) {
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

// liveRoom returns the room and its session, or answers with a page.
func (f *Feature) liveRoom(w http.ResponseWriter, r *http.Request) (*room.Room, *play.Session, bool) {
	rm, err := f.rooms.ByID(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		if errors.Is(err, room.ErrNotFound) {
			f.messagePage(w, r, http.StatusNotFound, "This room has ended", roomMessage(err))
		} else {
			f.s.Fail(w, r, err)
		}
		return nil, nil, false
	}
	sess, ok := f.sessionOf(w, r, rm)
	return rm, sess, ok
}

// sessionOf returns the session rm shows, or answers with a page.
func (f *Feature) sessionOf(w http.ResponseWriter, r *http.Request, rm *room.Room) (*play.Session, bool) {
	sess, err := f.sessions.Get(r.Context(), rm.Session)
	if web.StoreUnreachable(err) {
		// Out of reach is not gone: the room stays.
		f.s.StoreUnreachablePage(w, r)
		return nil, false
	}
	if err != nil {
		f.endOrphan(r.Context(), rm)
		f.messagePage(w, r, http.StatusNotFound, "This room has ended", "The playground this room showed has closed.")
		return nil, false
	}
	return sess, true
}

// endOrphan ends a room whose session is gone (the server held it while
// the room lived, so only a restart or a store elsewhere loses it): it can
// show nothing, so it frees its place in the bound at once.
func (f *Feature) endOrphan(ctx context.Context, rm *room.Room) {
	if err := f.rooms.End(ctx, rm.ID); err != nil {
		f.s.Log().Warn("ending a room whose session is gone", "room", rm.ID, slog.Any("error", err))
	}
}

// roomCtx is a context that ends with the request or with the server.
func (f *Feature) roomCtx(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	stop := context.AfterFunc(f.s.Closing(), cancel)
	return ctx, func() { stop(); cancel() }
}

package room

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/windowlab/playground/internal/qrsvg"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/room"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web"
	webplay "github.com/windowlab/playground/web/play"
	"github.com/windowlab/playground/web/room/pages"
	"github.com/windowlab/playground/web/templates"
)

// start opens a room over a playground session. The session id only lets
// its holder watch; presenting drives the session, so it takes the same
// control cookie as the playground's own actions (scoped to /play/{id},
// which is why the route lives under it).
func (f *Feature) start(w http.ResponseWriter, r *http.Request) {
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

// present is the projector, for the presenter's devices only
// (presenterOnly with refuseScreen).
func (f *Feature) present(w http.ResponseWriter, r *http.Request) {
	rm, token := presenterOf(r)
	sess, ok := f.sessionOf(w, r, rm)
	if !ok {
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
func (f *Feature) joinLink(r *http.Request, p *pages.RoomPresent) error {
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
func (f *Feature) asPresenter(r *http.Request) (*room.Room, error) {
	rm, err := f.rooms.ByID(r.Context(), chi.URLParam(r, "id"))
	if err == nil && rm.RoleOf(cookieValue(r, presenterCookie), "") != room.Presenter {
		err = room.ErrNotPresenter
	}
	return rm, err
}

// A refusal answers a request to a presenter-only route that asPresenter
// refused, in the way its page reads an answer: a page, an SSE reply to
// a control, a fragment of a live list.
type refusal func(w http.ResponseWriter, r *http.Request, err error)

type presenterKey struct{}

type presenterCap struct {
	room  *room.Room
	token string
}

// presenterOnly lets through only requests from one of the room's
// presenter's devices (its cookie), having read the room once; handlers
// behind it take the room and the capability from presenterOf. Any other
// request is refused, the room's end or an unreachable store included.
func (f *Feature) presenterOnly(refuse refusal) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rm, err := f.asPresenter(r)
			if err != nil {
				refuse(w, r, err)
				return
			}
			ctx := context.WithValue(r.Context(), presenterKey{}, presenterCap{room: rm, token: cookieValue(r, presenterCookie)})
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}

// presenterOf is the room presenterOnly read for r, and the presenter's
// capability r carries. Only handlers behind presenterOnly call it.
func presenterOf(r *http.Request) (*room.Room, string) {
	c := r.Context().Value(presenterKey{}).(presenterCap)
	return c.room, c.token
}

// notPresenterPage answers a presenter-only page that asPresenter
// refused: the room has ended, or the device is not its presenter's.
func (f *Feature) notPresenterPage(w http.ResponseWriter, r *http.Request, err error) {
	heading := "Presenter only"
	if errors.Is(err, room.ErrNotFound) {
		heading = "This room has ended"
	}
	f.messagePage(w, r, roomStatus(err), heading, roomMessage(err))
}

// refuseScreen answers a presenter's screen (the projector, the remote)
// opened elsewhere with why: only a presenter's device opens it, and how
// another device follows the room instead.
func (f *Feature) refuseScreen(why string) refusal {
	return func(w http.ResponseWriter, r *http.Request, err error) {
		switch {
		case errors.Is(err, room.ErrNotPresenter):
			f.messagePage(w, r, http.StatusForbidden, "Presenter only", why)
		case errors.Is(err, room.ErrNotFound):
			f.messagePage(w, r, http.StatusNotFound, "This room has ended", roomMessage(err))
		default:
			f.s.Fail(w, r, err)
		}
	}
}

// roomNow reads again the room a presenter's form acted on, to show it as
// the refused action left it, or answers with a page.
func (f *Feature) roomNow(w http.ResponseWriter, r *http.Request) (*room.Room, bool) {
	rm, err := f.rooms.ByID(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		f.notPresenterPage(w, r, err)
		return nil, false
	}
	return rm, true
}

// refuseControl answers a presenter's control (a Datastar request) that
// asPresenter refused, in the controls' error slot.
func (f *Feature) refuseControl(w http.ResponseWriter, r *http.Request, err error) {
	f.replyPresenter(w, r, templateReply{}, err)
}

// reachable is where another device opens path: the public URL's, the
// request host's, or at localhost the machine's address picked by ?via=
// (candidates lists them, and note says why there is no URL yet).
func (f *Feature) reachable(r *http.Request, path string) (u string, candidates []string, note string) {
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

// presenterCall is one presenter control: it returns the fragment to
// show, or an error.
type presenterCall func(c control) (reply templateReply, err error)

// control is a presenter's control request: the room presenterOnly read,
// the session it shows, the presenter's capability and the page's signals.
type control struct {
	r     *http.Request
	room  *room.Room
	sess  *play.Session
	token string
	sig   roomSignals
}

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

// presenterAction reads the room's session and the page's signals for a
// control behind presenterOnly, runs call, and answers with the error
// slot (and call's fragment).
func (f *Feature) presenterAction(call presenterCall) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rm, token := presenterOf(r)
		sess, err := f.sessions.Get(r.Context(), rm.Session)
		if err != nil && !web.StoreUnreachable(err) {
			err = room.ErrNotFound
		}
		if err != nil {
			f.replyPresenter(w, r, templateReply{}, err)
			return
		}
		c := control{r: r, room: rm, sess: sess, token: token}
		r.Body = http.MaxBytesReader(w, r.Body, webplay.MaxSignalBytes)
		if err := webplay.ReadSignals(r, &c.sig, &c.sig.Signals); err != nil {
			http.Error(w, "malformed signals: want the page's signals as a JSON object", http.StatusBadRequest)
			return
		}
		reply, err := call(c)
		f.replyPresenter(w, r, reply, err)
	}
}

func (f *Feature) replyPresenter(w http.ResponseWriter, r *http.Request, reply templateReply, err error) {
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

// closeRoom ends the room for its presenter. Unlike the other controls it
// needs only the room, not its session: a presenter can always end their
// own room.
func (f *Feature) closeRoom(w http.ResponseWriter, r *http.Request) {
	rm, token := presenterOf(r)
	err := f.rooms.Close(r.Context(), rm.ID, token)
	f.replyPresenter(w, r, templateReply{}, err)
}

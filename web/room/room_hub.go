package room

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5"

	"github.com/windowlab/playground/lane"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/room"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web"
	"github.com/windowlab/playground/web/fanout"
	"github.com/windowlab/playground/web/room/pages"
	"github.com/windowlab/playground/web/templates"
)

// A room's hub (fanout.Hub) watches the room and its playground session,
// renders again every web.UpdateInterval while the session's clock plays
// (once per room, not per screen, reading the clock at that instant:
// nothing stores a tick), and publishes each view (phone, projector) once
// per change; every screen's stream writes the same bytes (fanout.Hub.Follow).

// roomSettle is how long a hub waits after a change before rendering, so
// that the changes one action makes reach the screens as one update. A
// room's playground action changes the session and then the room (its
// undo checkpoint) a moment later, and undo changes the room, the
// scenario and the clock: rendering at the first change spent the update
// on half the action, and the rest then waited out UpdateInterval.
const roomSettle = 10 * time.Millisecond

// The views of a room's shared stream.
const (
	viewPhone = iota
	viewProjector
	viewRemote
	// viewScreen is the projector-only window's: the projector's regions
	// but the presenter's deck line, which that window has no place for.
	viewScreen
	numViews
)

// hubCheckEvery is how often a hub looks whether its room has ended by
// time (a change ends it at once).
const hubCheckEvery = 5 * time.Second

// roomHub is what a room's fanout.Hub renders from, its goroutine's own but
// for presenters and asked.
type roomHub struct {
	*fanout.Hub
	f  *Feature
	id string

	// phones is how many phones follow the room on every replica (the
	// room store's count, read again when it changes).
	phones atomic.Int32

	solved *solvedQuestion
	expl   *pointedCache
	// open is the question the last frame showed, while it is open and
	// counts down (nil otherwise): the hub's goroutine's own.
	open *room.Question

	// asked is shared with the room's page loads (Feature.askedCache),
	// so that a room full of phones opening during a question replays it
	// once, not once each; it locks itself.
	asked askedCache
}

type solvedQuestion struct {
	id, rev uint64
	sol     *room.Solution
}

type pointedCache struct {
	rev     uint64
	pointer int
	sel     *play.Selection
}

// follow counts a new follower of room id, starting its hub if needed.
// Streams count against the room's bound on every replica together
// (room.Rooms.Follow); (streamShares bounds each address's streams
// across every room.)
func (f *Feature) follow(id string, v int, token string) (h *roomHub, presenter bool, leave func(), err error) {
	rm, err := f.rooms.ByID(context.Background(), id)
	if err != nil {
		return nil, false, nil, err
	}
	sess, err := f.sessions.Get(context.Background(), rm.Session)
	if errors.Is(err, play.ErrNotFound) {
		err = room.ErrNotFound
	}
	if err != nil {
		return nil, false, nil, err
	}
	presenter = rm.RoleOf(token, "") == room.Presenter
	// Only a phone's stream is a phone following; the projector, the
	// projector-only window and the presenter's remote are the room's
	// other screens.
	d := room.Screens{Phones: 1}
	if v != viewPhone {
		d = room.Screens{Projectors: 1}
	}
	if presenter {
		d.Presenters = 1
	}
	total, err := f.rooms.Follow(context.Background(), id, d)
	if err != nil {
		return nil, false, nil, err
	}
	start := func(ctx context.Context, hub *fanout.Hub) (*roomHub, error) {
		h := &roomHub{Hub: hub, f: f, id: id}
		h.phones.Store(int32(total.Phones))
		h.render(ctx, rm, sess) // the first frame is there before the first follower reads
		go h.run(ctx, sess)
		return h, nil
	}
	fl, err := f.hubs.Join(f.s.Closing(), id, fanout.JoinOptions[*roomHub]{View: v, Views: numViews, Start: start})
	if err != nil {
		f.rooms.Unfollow(id, d)
		return nil, false, nil, err
	}
	return fl.State, presenter, func() { fl.Leave(); f.rooms.Unfollow(id, d) }, nil
}

// screens reads how many phones follow the room on every replica.
func (h *roomHub) screens(ctx context.Context) {
	if s, err := h.f.rooms.Screens(ctx, h.id); err == nil {
		h.phones.Store(int32(s.Phones))
	}
}

// run renders after each change of the room or the session, paced by a
// pacer (web.Pacer), and while the session's clock plays. sess is the session as the
// first frame showed it. It counts on the server's clock (web.Server.Now),
// which moves with its ticker and timer; a question's countdown counts on
// the rooms' (room.Rooms.Now).
func (h *roomHub) run(ctx context.Context, sess *play.Session) {
	log := h.f.s.Log()
	now := h.f.s.Now
	roomChanges, err := h.f.rooms.Watch(ctx, h.id)
	if err != nil {
		h.endOrLose(ctx, err, "This room has ended.")
		return
	}
	// A session the store forgets leaves the room showing it as it was
	// last read (the presenter's playground has ended; the room lingers
	// until its own end).
	changes, err := h.f.sessions.Watch(ctx, sess.ID())
	if err != nil {
		changes = nil
	}
	ticker := time.NewTicker(web.UpdateInterval)
	defer ticker.Stop()
	// The first frame was rendered as the hub started (follow).
	pace := web.NewPacer(web.UpdateInterval, now())
	render := time.NewTimer(time.Hour)
	render.Stop()
	defer render.Stop()
	changed := func(settle time.Duration) {
		at := now()
		render.Reset(pace.Change(at, settle).Sub(at))
	}
	checked, kept := now(), now()
	var touched time.Time
	// countdown is what the last frame's countdown said; a question with
	// one renders again each time it would say another second.
	var countdown string
	// The session changed since it was last read; true at first, since
	// follow read it before this Watch began.
	stale := true
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-roomChanges:
			if !ok {
				// Deleted, or the watch was lost (NATS went away): only
				// a room the store says is gone has ended.
				if ctx.Err() == nil {
					_, err := h.f.rooms.ByID(ctx, h.id)
					h.endOrLose(ctx, err, "This room has ended: the presenter closed it, or left it for too long.")
				}
				return
			}
			h.screens(ctx) // a change may be of its followers on any replica
			changed(roomSettle)
		case _, open := <-changes:
			if !open {
				changes = nil
				continue
			}
			stale = true
			changed(roomSettle)
		case <-h.Poked():
			changed(roomSettle)
		case <-ticker.C:
			now := now()
			if now.Sub(touched) >= web.TouchEvery {
				// The touch is also how a hub learns that its store went
				// out of reach while nothing changed: its pages then
				// reconnect, and say so, until it is back.
				if err := h.f.sessions.Touch(ctx, sess.ID()); web.StoreUnreachable(err) {
					h.endOrLose(ctx, err, "")
					return
				}
				touched = now
			}
			// The clock's own move is whole at once: it need not settle.
			if sess.Playing() {
				changed(0)
			}
			if now.Sub(kept) >= room.FollowersRefresh {
				kept = now
				_ = h.f.rooms.KeepFollowing(ctx, h.id)
			}
			if q := h.question(); q != nil {
				// A countdown counts on the rooms' clock, which tests set.
				at := h.f.rooms.Now()
				if c := pages.Countdown(q, at); c != countdown {
					countdown = c
					changed(0)
				}
				if !at.Before(q.Deadline) {
					if rm, err := h.f.rooms.ByID(ctx, h.id); err == nil {
						h.f.revealDue(ctx, rm)
					}
				}
			}
			if now.Sub(checked) >= hubCheckEvery {
				checked = now
				if _, err := h.f.rooms.ByID(ctx, h.id); errors.Is(err, room.ErrNotFound) {
					h.end(ctx, "This room has ended: its presenter left it for too long.")
					return
				}
			}
		case <-render.C:
			if now := now(); !pace.Ready(now) {
				if due := pace.Due(); !due.IsZero() { // the timer was early: wait out the rest
					render.Reset(due.Sub(now))
				}
				continue
			}
			rm, err := h.f.rooms.ByID(ctx, h.id)
			if err != nil {
				h.endOrLose(ctx, err, "This room has ended.")
				return
			}
			read := false
			if stale {
				if latest, err := h.f.sessions.Get(ctx, sess.ID()); err == nil {
					sess, stale, read = latest, false, true
				}
			}
			if !read {
				// Only the clock moved (or the store forgot the
				// session): read it at this instant.
				sess = sess.At(now())
			}
			if err := h.render(ctx, rm, sess); err != nil {
				log.Error("room render", "room", h.id, slog.Any("error", err))
			}
		}
	}
}

// end publishes a last frame saying the room ended; followers send it and
// close their streams, and every page says "This room has ended"
// (stream-connection.js reads the frame's data-stream-ended) instead of
// reconnecting.
func (h *roomHub) end(ctx context.Context, why string) {
	h.End(endedRegions(ctx, why)...)
}

// endOrLose ends the hub after the room could not be read (err): with
// the "ended" frame when the store says the room is gone (or err is
// nil: the watch closed on a deletion), else (the store out of reach, a
// watch lost with its NATS server) by closing its streams without a word,
// so that every page reconnects and learns from the store, when it is
// back, whether the room is still there.
func (h *roomHub) endOrLose(ctx context.Context, err error, why string) {
	if ctx.Err() != nil {
		return
	}
	if err == nil || errors.Is(err, room.ErrNotFound) {
		h.end(ctx, why)
		return
	}
	h.f.s.Log().Warn("room stream lost its store; its pages reconnect", "room", h.id, slog.Any("error", err))
	h.End()
}

// endedRegions are what every screen of an ended room shows: the status
// saying why, and no question (a phone's "Sent." would suggest it still
// counts).
func endedRegions(ctx context.Context, why string) []fanout.Region {
	var status, question strings.Builder
	_ = pages.RoomStatus(pages.RoomShared{Ended: why}).Render(ctx, &status)
	_ = pages.RoomQuestionPhone(pages.RoomShared{Ended: why}).Render(ctx, &question)
	return []fanout.Region{{ID: "room-status", HTML: status.String()}, {ID: "room-question", HTML: question.String()}}
}

// questionCut is the first instant an open question hides on every
// screen: its own moment, or just after the clock if that is earlier.
func questionCut(q *room.Question, now int64) int64 { return min(q.Request.At, now+1) }

// shared is what every screen shows. While a question is open it must
// give the answer away on no screen, in no form. The rule:
//
//   - Nothing from the question's moment on, nor later than the clock, is
//     shown: the lanes are a replay of only the requests before the cut
//     (askedView), so no mark, window count, total, disagreement, latest
//     decision, pointed-at request or curve can hold a later request.
//     Filtering the full view's fields instead would leak through the next
//     field someone adds, as the window labels did.
//   - Of the requests before the cut, the lanes show the history a learner
//     reasons from (when each came, whether it got in, the counts of
//     windows that ended before the cut), and nothing that states what the
//     policy holds at the cut or later: for every kind of question, that
//     state is the answer or one step from it (the room left for "how
//     many of the next N", left ≥ cost for "admitted?", the window's end
//     or the TAT for "first moment"). See lane.Options.Asked.
//
// asked, when not nil, keeps that replay from one call to the next (a
// hub's renders, and the page loads of a room it follows), so a moving
// clock continues it.

func (f *Feature) shared(rm *room.Room, sess *play.Session, phones int, asked *askedCache) pages.RoomShared {
	v := sess.View()
	v.Selected = nil
	s := pages.RoomShared{Room: rm.ID, Question: rm.Question, Attendees: phones,
		Now: f.rooms.Now(), Joined: len(rm.Attendees), Waiting: rm.Waiting()}
	s = pages.DeckShared(s, rm.Deck, rm.Step)
	if q := rm.Question; q != nil && !q.Revealed {
		s.Asked, s.Cut = true, questionCut(q, v.Clock.Now)
		s.LanesAt = lanesAt(q, v.Clock.Now)
		av, err := askedView(v, s.Cut, s.LanesAt, asked)
		if err != nil {
			// Draw no lanes rather than the full ones.
			f.s.Log().Error("room: replay before the question", "room", rm.ID, slog.Any("error", err))
			av = v
			av.Lanes, av.Total = nil, 0
		}
		v = av
	} else if asked != nil {
		asked.reset() // its replay can be a few hundred KB
	}
	lanes := make([]play.Lane, len(v.Lanes))
	for i, l := range v.Lanes {
		marks := make([]play.Mark, 0, len(l.Marks))
		for _, m := range l.Marks {
			if s.Asked && (m.Future || m.At >= s.Cut) {
				continue // askedView drew none; kept as a guard
			}
			m.Selected = m.Index == rm.Pointer
			marks = append(marks, m)
		}
		l.Marks = marks
		if s.Asked {
			l.NextKnown = false
		}
		lanes[i] = l
	}
	v.Lanes = lanes
	s.View = v
	return s
}

// askedView is v replayed over only the requests before cut, at instant at
// (lanesAt: v's clock, held at the question's moment), for the viewed
// client; the view keeps v's clock. Requests are in time order, so the
// kept ones are a prefix and keep their indexes (a mark's data-index, the
// pointer).
func askedView(v play.View, cut, at int64, c *askedCache) (play.View, error) {
	sc := v.Scenario
	n, _ := slices.BinarySearchFunc(sc.Requests, cut, func(r scenario.Request, t int64) int { return cmp.Compare(r.At, t) })
	key := askedKey{rev: v.ScenarioRev, n: n, client: v.Client, cost: v.Cost}
	if c == nil {
		c = &askedCache{}
	}
	// Locked through the Jump and the View: a page load and the hub may
	// ask at two clocks at once.
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sess == nil || c.key != key {
		sc.Requests = slices.Clone(sc.Requests[:n])
		sess, err := play.NewSession("", sc)
		if err != nil {
			return play.View{}, err
		}
		if err := errors.Join(sess.SelectClient(v.Client), sess.SetCost(v.Cost)); err != nil {
			return play.View{}, err
		}
		c.key, c.sess = key, sess
	}
	if err := c.sess.Jump(at); err != nil {
		return play.View{}, err
	}
	av := c.sess.View()
	av.ID, av.Version, av.ScenarioRev, av.Clock, av.Notice = v.ID, v.Version, v.ScenarioRev, v.Clock, v.Notice
	return av, nil
}

// askedCache is a hub's replay of the requests before an open question
// (askedView), kept while they stay the same.
type askedCache struct {
	mu   sync.Mutex
	key  askedKey
	sess *play.Session
}

func (c *askedCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.key, c.sess = askedKey{}, nil
}

// askedCache is the replay cache of room id's hub, for a page load, or nil
// when no screen follows the room (the page then replays on its own).
func (f *Feature) askedCache(id string) *askedCache {
	if h, ok := f.hubs.State(id); ok {
		return &h.asked
	}
	return nil
}

type askedKey struct {
	rev    uint64 // the scenario's
	n      int    // requests kept
	client string
	cost   int64
}

// render renders every region of both views once and publishes the ones
// that changed.
func (h *roomHub) render(ctx context.Context, rm *room.Room, sess *play.Session) error {
	s := h.f.shared(rm, sess, int(h.phones.Load()), &h.asked)
	h.open = nil
	if q := rm.Question; q != nil && !q.Revealed && !q.Deadline.IsZero() {
		h.open = q
	}
	if q := s.Question; q != nil && q.Revealed {
		rev := s.View.ScenarioRev
		if h.solved == nil || h.solved.id != uint64(q.ID) || h.solved.rev != rev {
			h.solved = &solvedQuestion{id: uint64(q.ID), rev: rev}
			if sol, err := q.Solve(s.View.Scenario); err == nil {
				h.solved.sol = &sol
			}
		}
		s.Solution = h.solved.sol
	}
	if rm.Pointer >= 0 && rm.Pointer < int(s.View.Total) {
		if h.expl == nil || h.expl.rev != s.View.ScenarioRev || h.expl.pointer != rm.Pointer {
			sel, err := explainRequest(s.View.Scenario, s.View.Clock.Now, rm.Pointer)
			if err != nil {
				return err
			}
			h.expl = &pointedCache{rev: s.View.ScenarioRev, pointer: rm.Pointer, sel: sel}
		}
		s.Pointed = h.expl.sel
		if q := s.Question; q != nil && !q.Revealed && s.Pointed != nil && s.Pointed.At > s.View.Clock.Now {
			s.Pointed = nil
		}
	}
	var errs []error
	render := func(c templ.Component) string {
		var b strings.Builder
		errs = append(errs, c.Render(ctx, &b))
		return b.String()
	}
	lanes := func(o lane.Options) string { return render(pages.RoomLanes(s, o)) }
	clock, status := render(pages.RoomClock(s)), render(pages.RoomStatus(s))
	step := fanout.Region{ID: "room-step-line", HTML: render(pages.RoomStepLine(s))}
	projector := []fanout.Region{
		{ID: "room-clock", HTML: clock}, {ID: "room-status", HTML: status}, step,
		{ID: "room-lanes", HTML: lanes(pages.RoomProjectorLaneOptions(s))},
		{ID: "room-question", HTML: render(pages.RoomQuestionProjector(s))},
		{ID: "room-pointed", HTML: render(pages.RoomPointed(s))},
	}
	var screen []fanout.Region // nil, not rendered, while no window follows it
	if h.Followers(viewScreen) > 0 {
		screen = projector
	}
	views := [][]fanout.Region{
		viewPhone: {
			{ID: "room-clock", HTML: clock}, {ID: "room-status", HTML: status}, step,
			{ID: "room-lanes", HTML: lanes(lane.Options{Width: lane.PhoneWidth})},
			{ID: "room-question", HTML: render(pages.RoomQuestionPhone(s))},
		},
		viewProjector: append(projector[:len(projector):len(projector)], fanout.Region{ID: "room-deck-line", HTML: render(pages.RoomDeckLine(s))}),
		viewRemote: {
			{ID: "room-clock", HTML: clock}, {ID: "room-status", HTML: status}, step,
			{ID: "room-remote-next", HTML: render(pages.RoomRemoteNext(s))},
			{ID: "room-question", HTML: render(pages.RoomQuestionRemote(s))},
		},
		viewScreen: screen,
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return h.Publish(views)
}

// presenterTouchEvery is how often a presenter's open projector tells the
// room its presenter is still there (room.Bounds.Linger is 30 minutes).
const presenterTouchEvery = time.Minute

// stream is a room's shared SSE stream: GET /room/{id}/stream?view=phone
// (the default), ?view=projector, ?view=remote or ?view=screen (the
// projector-only window). It needs no cookie: watching is no
// capability. With a presenter's cookie it also keeps the room alive.
func (f *Feature) stream(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	v := viewPhone
	switch r.URL.Query().Get("view") {
	case "projector":
		v = viewProjector
	case "remote":
		v = viewRemote
	case "screen":
		v = viewScreen
	}
	token := cookieValue(r, presenterCookie)
	h, presenter, leave, err := f.follow(id, v, token)
	if web.StoreUnreachable(err) {
		// Not ended: the page keeps retrying until the store is back.
		f.s.StoreUnreachablePage(w, r)
		return
	}
	if err != nil {
		if errors.Is(err, room.ErrStreamsFull) {
			// Not ended either: the page says why and tries again.
			f.s.NoteCapacity(w, r, web.StreamRetryAfter)
			sse := web.SSEReply(w, r, roomStatus(err), roomMessage(err))
			_ = web.MergeComponent(sse, templates.ConnectionNotice("refused", roomMessage(err)+" This page tries again by itself."))
			return
		}
		sse := web.SSEReply(w, r, roomStatus(err), roomMessage(err))
		for _, rg := range endedRegions(r.Context(), roomMessage(err)) {
			_ = web.MergeFragments(sse, rg.HTML)
		}
		return
	}
	defer leave()
	if presenter {
		// A stale or another room's cookie keeps nothing alive.
		ctx, done := f.roomCtx(r.Context())
		defer done()
		go func() {
			t := time.NewTicker(presenterTouchEvery)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					_ = f.rooms.Touch(ctx, id, token)
				}
			}
		}()
	}
	h.Follow(f.s.Closing(), w, r, v, 0)
}

// question is the open question with a countdown that the last frame
// showed, or nil.
func (h *roomHub) question() *room.Question { return h.open }

package room

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/windowlab/playground/scenario"
)

// Rooms opens rooms and carries out what devices ask of them, checking each
// device's role. Handlers call it; it keeps nothing itself but the store.
type Rooms struct {
	store  Store
	now    func() time.Time
	rand   io.Reader
	bounds Bounds
}

// Config configures Rooms. The zero value gives time.Now, crypto/rand and
// DefaultBounds.
type Config struct {
	Now    func() time.Time // tests inject a fixed clock
	Rand   io.Reader        // tests inject a seeded source; never anything but crypto/rand in production
	Bounds *Bounds          // nil means DefaultBounds()
}

// New returns Rooms over store. It fails on bounds that are not positive.
func New(store Store, cfg Config) (*Rooms, error) {
	if store == nil {
		return nil, errors.New("room: New expects a store")
	}
	rs := &Rooms{store: store, now: cfg.Now, rand: cfg.Rand, bounds: DefaultBounds()}
	if rs.now == nil {
		rs.now = time.Now
	}
	if rs.rand == nil {
		rs.rand = rand.Reader
	}
	if cfg.Bounds != nil {
		rs.bounds = *cfg.Bounds
	}
	if err := rs.bounds.validate(); err != nil {
		return nil, err
	}
	return rs, nil
}

// Now is the rooms' clock: what a countdown counts against.
func (rs *Rooms) Now() time.Time { return rs.now() }

// Bounds are the bounds the rooms run with, for pages to state them.
func (rs *Rooms) Bounds() Bounds { return rs.bounds }

// codeTries is how many join codes Open draws before giving up: with at
// most Bounds.Rooms of 28.6 million codes in use, a second try is already
// rare.
const codeTries = 10

// Open starts a room showing the play session session and returns it with
// the presenter capability, which the caller hands to the presenter's
// browser (an HttpOnly, SameSite=Strict cookie) and never puts in a URL.
// It is OpenFor with no owner: every such room shares one owner's share.
func (rs *Rooms) Open(ctx context.Context, session string) (*Room, string, error) {
	return rs.OpenFor(ctx, session, "")
}

// OpenFor is Open for a client (its network address), which may hold at
// most Bounds.RoomsPerClient live rooms (ErrClientRooms).
func (rs *Rooms) OpenFor(ctx context.Context, session, client string) (*Room, string, error) {
	if session == "" {
		return nil, "", errors.New("room: a room needs a play session to show")
	}
	if _, err := rs.Sweep(ctx); err != nil {
		return nil, "", err
	}
	id, err := newSecret(rs.rand)
	if err != nil {
		return nil, "", err
	}
	token, err := newSecret(rs.rand)
	if err != nil {
		return nil, "", err
	}
	now := rs.now()
	r := &Room{ID: id, Session: session, Owner: hashSecret(client), Created: now, PresenterSeen: now, Presenters: []string{hashSecret(token)}, Pointer: -1}
	for range codeTries {
		if r.Code, err = newCode(rs.rand, CodeLen); err != nil {
			return nil, "", err
		}
		err = rs.store.Create(ctx, r, rs.bounds.Rooms, rs.bounds.RoomsPerClient)
		if !errors.Is(err, ErrCodeTaken) {
			break
		}
	}
	if err != nil {
		return nil, "", err
	}
	return r, token, nil
}

// ByCode returns the live room with the join code, typed in any case and
// spacing. A code that cannot be one says why.
func (rs *Rooms) ByCode(ctx context.Context, typed string) (*Room, error) {
	code, err := NormaliseCode(typed, CodeLen)
	if err != nil {
		return nil, err
	}
	r, err := rs.store.GetByCode(ctx, code)
	if err != nil {
		return nil, err
	}
	return rs.live(ctx, r)
}

// ByID returns the live room with id.
func (rs *Rooms) ByID(ctx context.Context, id string) (*Room, error) {
	r, err := rs.store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	return rs.live(ctx, r)
}

// live forgets an ended room and reports it as not found.
func (rs *Rooms) live(ctx context.Context, r *Room) (*Room, error) {
	if r.Expired(rs.bounds, rs.now()) {
		if err := rs.store.Delete(ctx, r.ID); err != nil {
			return nil, err
		}
		return nil, ErrNotFound
	}
	return r, nil
}

// Watch reports changes of the room with id (see Store.Watch) until ctx
// ends or the room ends. Anyone may watch: watching is no capability.
func (rs *Rooms) Watch(ctx context.Context, id string) (<-chan struct{}, error) {
	return rs.store.Watch(ctx, id)
}

// Sweep forgets every ended room; Open calls it, and a server may call it
// on a timer so ended rooms do not wait for the next Open.
func (rs *Rooms) Sweep(ctx context.Context) (int, error) {
	now := rs.now()
	return rs.store.DeleteIf(ctx, func(r *Room) bool { return r.Expired(rs.bounds, now) })
}

// update runs fn on the live room id, for a device whose role must allow
// the action, and counts the change.
func (rs *Rooms) update(ctx context.Context, id, presenter, attendee string, act Action, fn func(r *Room, now time.Time) error) (*Room, error) {
	return rs.store.Update(ctx, id, func(r *Room) error {
		now := rs.now()
		if r.Expired(rs.bounds, now) {
			return ErrNotFound
		}
		role := r.RoleOf(presenter, attendee)
		if !role.Can(act) {
			if act == ActAnswer || act == ActName {
				if r.isRemoved(attendee) {
					return ErrRemoved
				}
				return ErrNotAttendee
			}
			return ErrNotPresenter
		}
		if role == Presenter {
			r.PresenterSeen = now
		}
		if err := fn(r, now); err != nil {
			return err
		}
		r.Version++
		return nil
	})
}

// Touch marks the presenter present without changing the room: the
// presenter's open page calls it, so the room lives while it is shown even
// with no action for longer than Bounds.Linger.
func (rs *Rooms) Touch(ctx context.Context, id, presenter string) error {
	_, err := rs.store.Update(ctx, id, func(r *Room) error {
		now := rs.now()
		if r.Expired(rs.bounds, now) {
			return ErrNotFound
		}
		if r.RoleOf(presenter, "") != Presenter {
			return ErrNotPresenter
		}
		r.PresenterSeen = now
		return nil
	})
	return err
}

// Join makes a device an attendee and returns its attendee id, which the
// caller keeps in the device's cookie. Anyone who can see the room may join.
func (rs *Rooms) Join(ctx context.Context, id string) (*Room, string, error) {
	return rs.JoinAs(ctx, id, "", "")
}

// JoinAs is Join with a nickname (typed; "" for none, see
// NormaliseNickname) for a device that held the attendee id previous
// before ("" for none): a device the presenter removed is refused
// (ErrRemoved) until let back.
func (rs *Rooms) JoinAs(ctx context.Context, id, previous, nickname string) (*Room, string, error) {
	name, err := NormaliseNickname(nickname)
	if err != nil {
		return nil, "", err
	}
	attendee, err := newSecret(rs.rand)
	if err != nil {
		return nil, "", err
	}
	r, err := rs.store.Update(ctx, id, func(r *Room) error {
		now := rs.now()
		if r.Expired(rs.bounds, now) {
			return ErrNotFound
		}
		if err := r.join(rs.bounds, attendee, previous, name, now); err != nil {
			return err
		}
		r.Version++
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	return r, attendee, nil
}

// Ask opens a question about sc, the room's scenario as it is now. The
// question is checked and solved once before the store is touched, so the
// replay never runs inside a store update (which may be retried).
func (rs *Rooms) Ask(ctx context.Context, id, presenter string, a Ask, sc scenario.Scenario) (*Room, error) {
	if _, err := rs.presenterRoom(ctx, id, presenter); err != nil {
		return nil, err
	}
	q, err := newQuestion(0, a, sc, rs.bounds, rs.now())
	if err != nil {
		return nil, err
	}
	return rs.update(ctx, id, presenter, "", ActAsk, func(r *Room, now time.Time) error {
		r.ask(rs.bounds, q, now)
		return nil
	})
}

// presenterRoom returns the live room if presenter drives it, so costly
// work for a request that would be refused is not done.
func (rs *Rooms) presenterRoom(ctx context.Context, id, presenter string) (*Room, error) {
	r, err := rs.ByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if r.RoleOf(presenter, "") != Presenter {
		return nil, ErrNotPresenter
	}
	return r, nil
}

// Answer records an attendee's answer to question (its id, so an answer
// sent as a new question opens is not counted for the new one).
func (rs *Rooms) Answer(ctx context.Context, id, attendee string, question int, values []int64) (*Room, error) {
	return rs.update(ctx, id, "", attendee, ActAnswer, func(r *Room, now time.Time) error {
		return r.answer(rs.bounds, attendee, question, values, now)
	})
}

// Reveal computes the open question's truth from sc, the room's scenario as
// it is now, and closes the answers. The Solution carries the working for
// the pages; the room keeps only the truth. As with Ask, the replay runs
// before the store update.
func (rs *Rooms) Reveal(ctx context.Context, id, presenter string, sc scenario.Scenario) (*Room, Solution, error) {
	r, err := rs.presenterRoom(ctx, id, presenter)
	if err != nil {
		return nil, Solution{}, err
	}
	q := r.Question
	switch {
	case q == nil:
		return nil, Solution{}, ErrNoQuestion
	case q.Revealed:
		return nil, Solution{}, ErrRevealed
	}
	sol, err := q.Solve(sc)
	if err != nil {
		return nil, Solution{}, err
	}
	r, err = rs.update(ctx, id, presenter, "", ActReveal, func(r *Room, now time.Time) error {
		return r.reveal(rs.bounds, q.ID, sol.Truth, now)
	})
	if err != nil {
		return nil, Solution{}, err
	}
	return r, sol, nil
}

// Dismiss closes the question, revealed or not.
func (rs *Rooms) Dismiss(ctx context.Context, id, presenter string) (*Room, error) {
	return rs.update(ctx, id, presenter, "", ActDismiss, func(r *Room, now time.Time) error {
		return r.dismiss(rs.bounds, now)
	})
}

// Point points every screen at request index (after expanding counts) of
// the session's total, or at none for -1.
func (rs *Rooms) Point(ctx context.Context, id, presenter string, index, total int) (*Room, error) {
	return rs.update(ctx, id, presenter, "", ActPoint, func(r *Room, now time.Time) error {
		return r.point(rs.bounds, index, total, now)
	})
}

// Checkpoint checks that the device may drive and records before, the
// session's state before a playground action (label names it: "fire",
// "jump"), so Undo can restore it. Call it once the action has changed the
// session: one that changed nothing leaves nothing to undo.
func (rs *Rooms) Checkpoint(ctx context.Context, id, presenter, label string, before PlayState) (*Room, error) {
	return rs.update(ctx, id, presenter, "", ActDrive, func(r *Room, now time.Time) error {
		r.checkpoint(rs.bounds, label, before, now)
		return nil
	})
}

// Showing returns the ids of the live rooms over the play session session.
func (rs *Rooms) Showing(ctx context.Context, session string) ([]string, error) {
	return rs.store.ShowingSession(ctx, session)
}

// CheckpointSession records before, the session's state before a
// playground action taken on the playground itself (label names it), in
// every live room over session, so that the room's Undo takes it back as
// it does the presenter's own actions (its history bounded as theirs). It
// checks no device: the caller has checked that the request controls the
// session, whose changes these are. It returns how many rooms recorded it.
func (rs *Rooms) CheckpointSession(ctx context.Context, session, label string, before PlayState) (int, error) {
	ids, err := rs.store.ShowingSession(ctx, session)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range ids {
		_, err := rs.store.Update(ctx, id, func(r *Room) error {
			now := rs.now()
			if r.Expired(rs.bounds, now) || r.Session != session {
				return ErrNotFound
			}
			r.checkpoint(rs.bounds, label, before, now)
			r.Version++
			return nil
		})
		switch {
		case err == nil:
			n++
		case !errors.Is(err, ErrNotFound): // a room that ended meanwhile is no error
			return n, err
		}
	}
	return n, nil
}

// Undo takes back the last action. When it was a playground action, the
// returned PlayState is the session to load back (scenario and clock).
func (rs *Rooms) Undo(ctx context.Context, id, presenter string) (*Room, *PlayState, error) {
	var play *PlayState
	r, err := rs.update(ctx, id, presenter, "", ActUndo, func(r *Room, _ time.Time) error {
		var err error
		play, err = r.undo()
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	if play != nil {
		// The caller loads this into a session, which may reorder it; the
		// store's copies must not change with it.
		c := *play
		c.Scenario.Policies = slices.Clone(play.Scenario.Policies)
		c.Scenario.Requests = slices.Clone(play.Scenario.Requests)
		play = &c
	}
	return r, play, nil
}

// IssuePairing returns a one-time code that gives the presenter capability
// to the device that redeems it within Bounds.PairTTL. A new code voids the
// previous one.
func (rs *Rooms) IssuePairing(ctx context.Context, id, presenter string) (string, error) {
	code, err := newCode(rs.rand, PairCodeLen)
	if err != nil {
		return "", err
	}
	_, err = rs.update(ctx, id, presenter, "", ActPair, func(r *Room, now time.Time) error {
		if len(r.Presenters) >= rs.bounds.Devices {
			return ErrTooManyDevices
		}
		r.Pairing = &Pairing{Hash: hashSecret(code), Expires: now.Add(rs.bounds.PairTTL)}
		return nil
	})
	if err != nil {
		return "", err
	}
	return code, nil
}

// Pair redeems a pairing code, typed in any case and spacing, and returns a
// new presenter capability for the redeeming device: PairFrom with no
// client, so every such caller shares one client's tries.
func (rs *Rooms) Pair(ctx context.Context, id, typed string) (string, error) {
	return rs.PairFrom(ctx, id, typed, "")
}

// PairFrom is Pair for a client (its network address). A code works once.
// A client that has tried Bounds.PairAttempts wrong codes is refused for
// this code (ErrPairTries), which stays good for every other client, so an
// attendee guessing cannot void it; Bounds.PairGuesses wrong codes in all
// void it.
func (rs *Rooms) PairFrom(ctx context.Context, id, typed, client string) (string, error) {
	code, err := NormaliseCode(typed, PairCodeLen)
	if err != nil {
		return "", fmt.Errorf("room: %w", err)
	}
	token, err := newSecret(rs.rand)
	if err != nil {
		return "", err
	}
	var refused error
	_, err = rs.store.Update(ctx, id, func(r *Room) error {
		refused = nil
		now := rs.now()
		if r.Expired(rs.bounds, now) {
			return ErrNotFound
		}
		p := r.Pairing
		if p == nil || now.After(p.Expires) {
			r.Pairing = nil
			refused = ErrPairing
			return nil
		}
		who := hashSecret(client)
		if p.Tries[who] >= rs.bounds.PairAttempts {
			refused = ErrPairTries
			return nil
		}
		if !sameHash(p.Hash, hashSecret(code)) {
			// The wrong try is stored (fn returns nil) so the count holds.
			p.Attempts++
			if p.Tries == nil {
				p.Tries = map[string]int{}
			}
			p.Tries[who]++
			if p.Attempts >= rs.bounds.PairGuesses {
				r.Pairing = nil
			}
			refused = ErrPairing
			return nil
		}
		if len(r.Presenters) >= rs.bounds.Devices {
			return ErrTooManyDevices
		}
		r.Pairing = nil
		r.Presenters = append(r.Presenters, hashSecret(token))
		r.PresenterSeen = now
		r.Version++
		return nil
	})
	if err != nil {
		return "", err
	}
	if refused != nil {
		return "", refused
	}
	return token, nil
}

// SetJoins opens the room to new devices, or closes it to them (those that
// joined stay).
func (rs *Rooms) SetJoins(ctx context.Context, id, presenter string, open bool) (*Room, error) {
	return rs.update(ctx, id, presenter, "", ActJoins, func(r *Room, _ time.Time) error {
		r.JoinsClosed = !open
		return nil
	})
}

// RemoveDevice forgets the attendee's device named name (DeviceName), and
// its answer to the open question: its cookie no longer answers, and it
// cannot join again with it until LetBack.
func (rs *Rooms) RemoveDevice(ctx context.Context, id, presenter, name string) (*Room, error) {
	return rs.update(ctx, id, presenter, "", ActRemove, func(r *Room, _ time.Time) error {
		return r.remove(rs.bounds, name)
	})
}

// LetBack lets the removed device named name join again.
func (rs *Rooms) LetBack(ctx context.Context, id, presenter, name string) (*Room, error) {
	return rs.update(ctx, id, presenter, "", ActRemove, func(r *Room, _ time.Time) error {
		return r.letBack(name)
	})
}

// Rename gives the attendee's device named name (DeviceName) the nickname
// typed, "" for none: the presenter's tool for a name that should not be
// on the projector.
func (rs *Rooms) Rename(ctx context.Context, id, presenter, name, typed string) (*Room, error) {
	nick, err := NormaliseNickname(typed)
	if err != nil {
		return nil, err
	}
	// Renaming another's device is managing devices, as removing is.
	return rs.update(ctx, id, presenter, "", ActRemove, func(r *Room, _ time.Time) error {
		attendee, ok := r.attendeeNamed(name)
		if !ok {
			return ErrNoDevice
		}
		return r.name(attendee, nick)
	})
}

// Name sets the attendee's own nickname (typed; "" for none).
func (rs *Rooms) Name(ctx context.Context, id, attendee, typed string) (*Room, error) {
	nick, err := NormaliseNickname(typed)
	if err != nil {
		return nil, err
	}
	return rs.update(ctx, id, "", attendee, ActName, func(r *Room, _ time.Time) error {
		return r.name(attendee, nick)
	})
}

// RevealDue reveals the open question if it is due (Room.Due): its
// countdown ran out, or every phone answered. Anyone's page may call it, as
// it only does what the presenter asked for when asking; sc is the room's
// scenario as it is now. It reports whether it revealed.
func (rs *Rooms) RevealDue(ctx context.Context, id string, sc scenario.Scenario) (*Room, Solution, bool, error) {
	r, err := rs.ByID(ctx, id)
	if err != nil {
		return nil, Solution{}, false, err
	}
	if !r.Due(rs.now()) {
		return r, Solution{}, false, nil
	}
	q := r.Question
	sol, err := q.Solve(sc)
	if err != nil {
		return nil, Solution{}, false, err
	}
	revealed := false
	r, err = rs.store.Update(ctx, id, func(r *Room) error {
		revealed = false
		now := rs.now()
		if r.Expired(rs.bounds, now) {
			return ErrNotFound
		}
		if r.Question == nil || r.Question.ID != q.ID || !r.Due(now) {
			return errNothingDue
		}
		if err := r.reveal(rs.bounds, q.ID, sol.Truth, now); err != nil {
			return err
		}
		r.Version++
		revealed = true
		return nil
	})
	if errors.Is(err, errNothingDue) {
		r, err = rs.ByID(ctx, id)
		return r, Solution{}, false, err
	}
	if err != nil {
		return nil, Solution{}, false, err
	}
	return r, sol, revealed, nil
}

// errNothingDue leaves a room unchanged when its question stopped being
// due between the read and the update (another replica revealed it).
var errNothingDue = errors.New("room: nothing is due")

// Holds reports whether a live room shows the play session session: a
// session store asks before forgetting a session, since a room whose
// session is gone has nothing to show.
func (rs *Rooms) Holds(ctx context.Context, session string) bool {
	ids, err := rs.store.ShowingSession(ctx, session)
	if err != nil {
		return true // when in doubt, keep: the room store will answer again
	}
	for _, id := range ids {
		if _, err := rs.ByID(ctx, id); err == nil {
			return true
		}
	}
	return false
}

// End forgets the room id whatever its state, for a room that can no
// longer be shown (its session is gone): it frees its place at once.
func (rs *Rooms) End(ctx context.Context, id string) error { return rs.store.Delete(ctx, id) }

// Close ends the room now.
func (rs *Rooms) Close(ctx context.Context, id, presenter string) error {
	if _, err := rs.update(ctx, id, presenter, "", ActClose, func(*Room, time.Time) error { return nil }); err != nil {
		return err
	}
	return rs.store.Delete(ctx, id)
}

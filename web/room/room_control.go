package room

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/windowlab/playground/ask"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/room"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web"
	webplay "github.com/windowlab/playground/web/play"
)

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
var errChangesQuestion error = questionOpen{}

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
func (f *Feature) drive(a webplay.Action) http.HandlerFunc {
	return f.presenterAction(func(c control) (templateReply, error) {
		if err := guardQuestion(c.room, c.sess, a.Path()); err != nil {
			return templateReply{}, err
		}
		var mark playMark
		q := c.r.URL.Query()
		changed, err := f.sessions.Update(c.r.Context(), c.sess.ID(), func(s *play.Session) error {
			mark = markPlay(s) // the session as the action found it, however often a store runs this
			return a.Run(s, c.sig.Signals, q)
		})
		if err != nil || !mark.changed(changed) {
			return templateReply{}, err
		}
		_, err = f.rooms.Checkpoint(c.r.Context(), c.room.ID, c.token, a.Path(), mark.before)
		return templateReply{}, err
	})
}

// BeforeAction implements webplay.ActionObserver: it gives an action
// taken on /play itself, on a session a room shows, the undo checkpoint
// the presenter's own actions get, so the room's Undo takes it back too.
// A session no room shows costs one look.
func (f *Feature) BeforeAction(ctx context.Context, sess *play.Session, label string) func(*play.Session) {
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
			f.log.Warn("room checkpoint of a playground action", "session", sess.ID(), slog.Any("error", err))
		}
	}
}

func (f *Feature) ask(c control) (templateReply, error) {
	v := c.sess.View()
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
	a := room.Ask{Kind: room.Kind(c.sig.AskKind), At: at, Key: v.Client}
	var err error
	if strings.TrimSpace(c.sig.AskAt) != "" {
		if a.At, err = scenario.ParseMoment(c.sig.AskAt, 1000); err != nil {
			return templateReply{}, scenario.Errors{{Field: "askAt", Reason: fmt.Sprintf("%v: write a moment as 35 s, 35.5 s or 35500 ms", err)}}
		}
	}
	if a.Cost, err = webplay.Whole("cost", c.sig.Cost, 1, scenario.MaxCost); err != nil {
		return templateReply{}, err
	}
	if ask.AsksAboutN(string(a.Kind)) {
		if a.N, err = webplay.Whole("askN", c.sig.AskN, 1, f.rooms.Bounds().QuestionN); err != nil {
			return templateReply{}, err
		}
	}
	if c.sig.AskSeconds != nil {
		secs, err := webplay.Whole("askSeconds", *c.sig.AskSeconds, 0, int64(f.rooms.Bounds().Countdown.Seconds()))
		if err != nil {
			return templateReply{}, err
		}
		a.Timer = room.Timer{Seconds: int(secs), OnTime: secs > 0 && c.sig.AskOnTime, WhenAll: c.sig.AskWhenAll}
	} else {
		a.Timer.WhenAll = c.sig.AskWhenAll
	}
	_, err = f.rooms.Ask(c.r.Context(), c.room.ID, c.token, a, v.Scenario)
	if taken := (*room.InstantTakenError)(nil); errors.As(err, &taken) {
		return templateReply{}, scenario.Errors{{Field: "askAt", Reason: strings.TrimPrefix(taken.Error(), "room: ")}}
	}
	return templateReply{}, err
}

func (f *Feature) reveal(c control) (templateReply, error) {
	_, _, err := f.rooms.Reveal(c.r.Context(), c.room.ID, c.token, c.sess.Scenario())
	return templateReply{}, err
}

func (f *Feature) dismiss(c control) (templateReply, error) {
	_, err := f.rooms.Dismiss(c.r.Context(), c.room.ID, c.token)
	return templateReply{}, err
}

func (f *Feature) undo(c control) (templateReply, error) {
	_, ps, err := f.rooms.Undo(c.r.Context(), c.room.ID, c.token)
	if err != nil || ps == nil {
		return templateReply{}, err
	}
	_, err = f.sessions.Update(c.r.Context(), c.sess.ID(), func(s *play.Session) error {
		if err := s.Load(ps.Scenario); err != nil {
			return err
		}
		return s.Jump(ps.ClockMs)
	})
	return templateReply{}, err
}

func (f *Feature) point(c control) (templateReply, error) {
	total := int(expandedTotal(c.sess.Scenario()))
	q := c.r.URL.Query()
	i, err := strconv.Atoi(q.Get("i"))
	if d, derr := strconv.Atoi(q.Get("d")); q.Has("d") && derr == nil && (d == 1 || d == -1) && total > 0 {
		// From the pointer, or from the end when none: wrapping round.
		i, err = c.room.Pointer+d, nil
		if c.room.Pointer < 0 && d < 0 {
			i = total - 1
		}
		i = (i%total + total) % total
	}
	if err != nil {
		return templateReply{}, scenario.Errors{{Field: "i", Reason: "want ?i=<request index> (-1 for none), or ?d=1 or ?d=-1"}}
	}
	_, err = f.rooms.Point(c.r.Context(), c.room.ID, c.token, i, total)
	return templateReply{}, err
}

func (f *Feature) preset(c control) (templateReply, error) {
	known := false
	for _, p := range roomPresets {
		known = known || p.Name == c.sig.Preset
	}
	if !known {
		return templateReply{}, scenario.Errors{{Field: "preset", Reason: fmt.Sprintf("there is no preset %q", web.Truncate(c.sig.Preset, 64))}}
	}
	if err := guardQuestion(c.room, c.sess, "preset"); err != nil {
		return templateReply{}, err
	}
	sc, err := f.catalog.Scenario(c.sig.Preset)
	if err != nil {
		return templateReply{}, err
	}
	var mark playMark
	changed, err := f.sessions.Update(c.r.Context(), c.sess.ID(), func(s *play.Session) error {
		mark = markPlay(s)
		return s.Load(sc)
	})
	if err != nil || !mark.changed(changed) {
		return templateReply{}, err
	}
	_, err = f.rooms.Checkpoint(c.r.Context(), c.room.ID, c.token, "preset", mark.before)
	return templateReply{}, err
}

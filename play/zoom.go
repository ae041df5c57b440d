package play

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/windowlab/playground/scenario"
)

// Zoom is how a session chooses the span of time its lanes show: view
// state, kept with the session as the viewed client is, and not part of
// the scenario (a shared link does not carry it). The zero Zoom fits the
// activity.
type Zoom struct {
	Mode ZoomMode `json:"mode"`
	// Span is a manual zoom's width, in ms.
	Span int64 `json:"span,omitempty"`
	// End pins a manual zoom's end (the reader panned back to look at
	// history); 0 follows the clock.
	End int64 `json:"end,omitempty"`
}

// ZoomMode says which span the lanes show.
type ZoomMode uint8

const (
	// FitActivity shows the requests within two windows of the clock
	// (those in (now − 2 × window, now + 2 × window]: the look-back every
	// policy's answer at the clock depends on, a sliding counter's
	// reaching into the previous window, and any requests after a jump
	// back; the look-back's start taken back to a multiple of a tenth of
	// a window) and the clock, filling the plot; with none, one window up
	// to the clock.
	FitActivity ZoomMode = iota
	// FitAll shows every request from 0 and the clock.
	FitAll
	// Manual shows Span ms, ending at End or following the clock.
	Manual
)

// The bounds of a manual zoom's width: a lane still tells 10 ms apart at
// its narrowest, and at its widest it shows more than a session can hold.
const (
	MinSpanMs = 100
	MaxSpanMs = MaxClock
)

// spanLadder is the widths a fitted span snaps to (× a power of ten): a
// span that changes only in steps keeps the curve's sample grid (and the
// kept replay) while the clock plays, and each step is at most 1.25 times
// the one before, so the activity still fills at least four fifths of what
// it needs.
var spanLadder = []int64{10, 12, 15, 20, 25, 30, 40, 50, 60, 80}

// ladderSpan is the least width on spanLadder at or above ms.
func ladderSpan(ms int64) int64 {
	ms = max(ms, MinSpanMs)
	for mag := int64(1); ; mag *= 10 {
		for _, m := range spanLadder {
			if w := m * mag; w >= ms {
				return w
			}
		}
	}
}

// margin is the room left before the first request and after the clock, as
// a fraction of the span: the clock's line and the first mark stay off the
// plot's edges.
const marginDiv = 10

// minFitMs is the narrowest span a fit shows (a window, when it is
// shorter): a burst at one instant is drawn as a column in a couple of
// seconds of axis, not in a sliver of one.
const minFitMs = 2000

// ViewSpan is the span [from, to] a view of sc with the clock at now shows
// under z.
func (z Zoom) ViewSpan(sc scenario.Scenario, now int64) (from, to int64) {
	switch z.Mode {
	case Manual:
		span := min(max(z.Span, MinSpanMs), MaxSpanMs)
		if z.End > 0 {
			return z.End - span, z.End
		}
		return following(span, now, span-span/marginDiv)
	case FitAll:
		last := now
		if n := len(sc.Requests); n > 0 {
			last = max(last, sc.Requests[n-1].At)
		}
		span := ladderSpan(last + last/marginDiv)
		return 0, span
	}
	// FitActivity: the requests of the last two windows up to the clock:
	// the look-back every policy's answer at the clock depends on (a
	// sliding counter's reaches into the previous window) and the
	// requests that have just left it.
	// The look-back starts at a multiple of a tenth of a window, so that
	// while the clock plays the requests it takes in, and so the span's
	// start, change in steps and not at each frame: a span that moved at
	// each frame would move every mark with it, and a frame would carry
	// each lane whole. It takes in up to a tenth of a window more.
	w := sc.WindowMs
	at := func(r scenario.Request, t int64) int { return cmp.Compare(r.At, t) }
	lo, _ := slices.BinarySearchFunc(sc.Requests, floorTo(now-2*w+1, max(w/marginDiv, 1)), at)
	hi, _ := slices.BinarySearchFunc(sc.Requests, now+2*w+1, at)
	if lo >= hi {
		// Nothing near the clock: one window up to it, where the last
		// requests are leaving it.
		span := ladderSpan(w + w/marginDiv)
		return following(span, now, span)
	}
	// The span depends only on the first request and the width needed,
	// so that while the clock plays its start stays put (a start that
	// moved back would make the next view replay from the first request).
	least := min(w, minFitMs)
	first, last := sc.Requests[lo].At, max(now, sc.Requests[hi-1].At)
	from = max(first-least/marginDiv, 0)
	span := ladderSpan(max(last-from+(last-from)/(marginDiv-2), least))
	return from, from + span
}

// following is a span of width span that holds the clock, ending at
// least at end, then moving on in steps of a tenth of it, the clock
// between eight and nine tenths across: a span that moved at each frame
// of a playing clock would move every mark with it, and a frame would
// carry each lane whole.
func following(span, now, end int64) (from, to int64) {
	to = max(end, ceilTo(now+span/marginDiv, max(span/marginDiv, 1)))
	return to - span, to
}

// floorTo is the last multiple of step at or before t; ceilTo the first at
// or after it.
func floorTo(t, step int64) int64 {
	q := t / step
	if q*step > t {
		q--
	}
	return q * step
}

func ceilTo(t, step int64) int64 { return -floorTo(-t, step) }

// ZoomBy zooms the lanes in (factor < 1) or out (> 1) around the instant
// at, from the span the view shows now; a zoom that keeps the clock in view
// keeps following it.
func (s *Session) ZoomBy(factor float64, at int64) error {
	if !(factor > 0) || factor > 100 {
		return scenario.Errors{{Field: "zoom", Reason: fmt.Sprintf("%g is not a zoom factor (above 0, at most 100)", factor)}}
	}
	return s.do(func() error {
		now := s.Now()
		from, to := s.zoom.ViewSpan(s.sc, now)
		if at < from || at > to {
			at = (from + to) / 2
		}
		span := min(max(int64(float64(to-from)*factor), MinSpanMs), MaxSpanMs)
		// The instant under the pointer stays where it was across the plot.
		left := float64(at-from) / float64(max(to-from, 1))
		nf := max(at-int64(left*float64(span)), 0)
		s.zoom = Zoom{Mode: Manual, Span: span, End: nf + span}
		if now >= nf && now <= nf+span {
			s.zoom.End = 0 // the clock is in view: follow it
		}
		return nil
	})
}

// Pan moves the lanes' span by ms (negative: back in time). A span that
// comes to hold the clock follows it again.
func (s *Session) Pan(ms int64) error {
	if ms < -MaxClock || ms > MaxClock {
		return scenario.Errors{{Field: "pan", Reason: fmt.Sprintf("%d ms is out of range", ms)}}
	}
	return s.do(func() error {
		now := s.Now()
		from, to := s.zoom.ViewSpan(s.sc, now)
		span := to - from
		end := min(max(to+ms, span), MaxClock)
		s.zoom = Zoom{Mode: Manual, Span: span, End: end}
		if now >= end-span && now <= end {
			s.zoom.End = 0
		}
		return nil
	})
}

// Fit makes the lanes fit the activity again (mode FitActivity) or show
// everything (FitAll).
func (s *Session) Fit(mode ZoomMode) error {
	if mode != FitActivity && mode != FitAll {
		return scenario.Errors{{Field: "fit", Reason: "want the activity or all"}}
	}
	return s.do(func() error {
		s.zoom = Zoom{Mode: mode}
		return nil
	})
}

// Zoom is how the session chooses its lanes' span.
func (s *Session) Zoom() Zoom { return s.zoom }

// check reports what is wrong with a Zoom restored from a store.
func (z Zoom) check() error {
	switch {
	case z.Mode > Manual:
		return fmt.Errorf("mode %d is not 0 (fit the activity), 1 (fit all) or 2 (manual)", z.Mode)
	case z.Mode == Manual && (z.Span < MinSpanMs || z.Span > MaxSpanMs):
		return fmt.Errorf("span %d ms is out of range (%d to %d)", z.Span, MinSpanMs, MaxSpanMs)
	case z.End < 0 || z.End > MaxClock:
		return fmt.Errorf("end %d ms is out of range (0 to %d)", z.End, MaxClock)
	}
	return nil
}

// ShowSpan pins the lanes' span to [from, to] (a page that chooses its own
// span, such as a lesson drawing a scenario whole).
func (s *Session) ShowSpan(from, to int64) error {
	if from < 0 || to-from < MinSpanMs || to > MaxClock {
		return scenario.Errors{{Field: "span", Reason: fmt.Sprintf("[%d, %d] ms is not a span of at least %d ms from 0 on", from, to, MinSpanMs)}}
	}
	return s.do(func() error {
		s.zoom = Zoom{Mode: Manual, Span: to - from, End: to}
		return nil
	})
}

package room

import "time"

// roomSettle is how long a hub waits after a change before rendering, so
// that the changes one action makes reach the screens as one update. A
// room's playground action changes the session and then the room (its
// undo checkpoint) a moment later, and undo changes the room, the
// scenario and the clock: rendering at the first change spent the update
// on half the action, and the rest then waited out UpdateInterval.
const roomSettle = 10 * time.Millisecond

// pacer decides when a room's hub renders: a change renders after it has
// settled, and never sooner than UpdateInterval after the last render,
// which keeps a room at most ten updates a second however fast it changes.
// It holds instants only, so its rule is tested with fixed ones.
type pacer struct {
	every time.Duration
	last  time.Time // the last render
	due   time.Time // when the pending change renders; zero when none is pending
}

// change records a change at now, to render settle later at the earliest,
// and returns when it will render. A change while one is pending joins it.
func (p *pacer) change(now time.Time, settle time.Duration) time.Time {
	if p.due.IsZero() {
		p.due = now.Add(settle)
		if next := p.last.Add(p.every); next.After(p.due) {
			p.due = next
		}
	}
	return p.due
}

// ready reports whether the pending change renders at now, and if so
// counts the render. The render counts at the instant it was due, not when
// the timer got round to it, so a late timer does not push every later
// update back: the clock's ten a second stay ten.
func (p *pacer) ready(now time.Time) bool {
	if p.due.IsZero() || now.Before(p.due) {
		return false
	}
	p.due, p.last = time.Time{}, p.due
	return true
}

package web

import "time"

// Pacer decides when a stream's hub renders: a change renders after it has
// settled, and never sooner than its interval (UpdateInterval) after the
// last render, which keeps a stream at most ten updates a second however
// fast its session changes. It holds instants only, so its rule is tested
// with fixed ones.
//
// A render counts at the instant it was due, not at the instant the hub
// got round to it: a hub that compared its clock with the last render's
// reading dropped every other tick of a playing clock whenever a tick was
// read a little late, as on a busy machine (five updates a second, not
// ten).
type Pacer struct {
	Every time.Duration
	last  time.Time // the last render, when it was due
	due   time.Time // when the pending change renders; zero when none is pending
}

// NewPacer returns a pacer whose last render was at last.
func NewPacer(every time.Duration, last time.Time) Pacer {
	return Pacer{Every: every, last: last}
}

// Change records a change at now, to render settle later at the earliest,
// and returns when it will render. A change while one is pending joins it.
func (p *Pacer) Change(now time.Time, settle time.Duration) time.Time {
	if p.due.IsZero() {
		p.due = now.Add(settle)
		if next := p.last.Add(p.Every); next.After(p.due) {
			p.due = next
		}
	}
	return p.due
}

// Ready reports whether the pending change renders at now, and if so
// counts the render.
func (p *Pacer) Ready(now time.Time) bool {
	if p.due.IsZero() || now.Before(p.due) {
		return false
	}
	p.due, p.last = time.Time{}, p.due
	return true
}

// Due is when the pending change renders; zero when none is pending.
func (p *Pacer) Due() time.Time { return p.due }

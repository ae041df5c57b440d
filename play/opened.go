package play

import "time"

// Opened returns a copy of a new session as a store outside this package
// opens it for owner at now: owned, used and reading its clock at now,
// with the ControlToken kept (Saved leaves the token out, so such a store
// hands out this copy rather than one it restored).
func (s *Session) Opened(owner string, now time.Time) *Session {
	c := s.At(now)
	c.owner, c.lastUsed = owner, now
	c.clock.Wall = now
	return c
}

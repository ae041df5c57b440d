package policies

// clampTime moves t into [0, MaxTime]. Every policy clamps its inputs first,
// so the products it forms stay inside int64 whatever a caller passes.
func clampTime(t int64) int64 {
	switch {
	case t < 0:
		return 0
	case t > MaxTime:
		return MaxTime
	}
	return t
}

// decideAt applies the late rule shared by fixed-window, sliding-log,
// sliding-counter and token-bucket: a now earlier than the key's latest
// instant is decided at that latest instant. (gcra needs no such rule; see
// gcraPolicy.)
func decideAt(now, latest int64) (at int64, late bool) {
	if now < latest {
		return latest, true
	}
	return now, false
}

// windowClock finds the epoch-aligned window an instant is in, remembering
// the last one: while requests stay in one window, as all but the first
// after each edge do when the clock moves forward, that takes a compare
// instead of a 64-bit division. It is a cache, not state: any instant, in
// any order, gets the same answer.
type windowClock struct {
	width int64
	start int64 // the last window start computed; -width before the first
}

func newWindowClock(width int64) windowClock {
	return windowClock{width: width, start: -width}
}

// startOf is at - at mod width, for at >= 0.
func (c *windowClock) startOf(at int64) int64 {
	if uint64(at-c.start) < uint64(c.width) {
		return c.start
	}
	c.start = at - at%c.width
	return c.start
}

// ceilDiv is ⌈a/b⌉ for a >= 0, b > 0.
func ceilDiv(a, b int64) int64 {
	return (a + b - 1) / b
}

// refusedNever is the decision for a request that can never be admitted:
// cost below 1 or above the policy's capacity. Such a request changes no
// state; the decision still reports the estimate at the instant it names.
func refusedNever(d Decision) Decision {
	d.Allowed = false
	d.Never = true
	d.RetryAfterMs = 0
	return d
}

package policies

// clampTime moves t into [0, MaxTime]. Every policy clamps its inputs first,
// so the products it forms stay inside int64 whatever a caller passes.
// The common case, t already in range, is one unsigned comparison: a
// negative t is a huge uint64.
func clampTime(t int64) int64 {
	if uint64(t) <= MaxTime {
		return t
	}
	if t < 0 {
		return 0
	}
	return MaxTime
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
	index int64 // start / width
}

func newWindowClock(width int64) windowClock {
	return windowClock{width: width, start: -width, index: -1}
}

// startOf is at - at mod width, for at >= 0.
func (c *windowClock) startOf(at int64) int64 {
	if uint64(at-c.start) < uint64(c.width) {
		return c.start
	}
	c.turn(at)
	return c.start
}

// split is at / width and at mod width, for at >= 0.
func (c *windowClock) split(at int64) (index, elapsed int64) {
	if e := at - c.start; uint64(e) < uint64(c.width) {
		return c.index, e
	}
	c.turn(at)
	return c.index, at - c.start
}

func (c *windowClock) turn(at int64) {
	c.index = at / c.width
	c.start = c.index * c.width
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

// neverFits reports whether a request of cost can never be admitted by a
// policy of the given capacity (>= 1): cost < 1 or cost > capacity. One
// unsigned comparison does both, as cost-1 is a huge uint64 for cost < 1.
func neverFits(cost, capacity int64) bool {
	return uint64(cost-1) >= uint64(capacity)
}

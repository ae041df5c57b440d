package play

import (
	"fmt"
	"time"
)

// Speed is how fast the clock runs while playing, in quarters: 1 is 0.25×,
// 4 is 1× (one virtual second per real second), 64 is 16×.
type Speed int

// The speeds the playground offers.
const (
	QuarterSpeed Speed = 1
	RealSpeed    Speed = 4
	FastSpeed    Speed = 16
	FastestSpeed Speed = 64
)

// Speeds lists the speeds in the order the page offers them.
var Speeds = []Speed{QuarterSpeed, RealSpeed, FastSpeed, FastestSpeed}

// ParseSpeed accepts the labels String writes ("0.25×" or "0.25", "1", "4", "16").
func ParseSpeed(label string) (Speed, error) {
	for _, s := range Speeds {
		if label == s.String() || label+"×" == s.String() {
			return s, nil
		}
	}
	return 0, fmt.Errorf("play: speed %q is not one of 0.25, 1, 4, 16", label)
}

func (s Speed) String() string {
	if s == QuarterSpeed {
		return "0.25×"
	}
	return fmt.Sprintf("%d×", int(s)/4)
}

// Clock is the session's virtual clock, in integer milliseconds since the
// scenario's start. It never reads the wall clock: Advance is told how much
// real time passed.
type Clock struct {
	Now     int64
	Playing bool
	Speed   Speed
	// carry is the real time not yet turned into whole virtual
	// milliseconds, so that many small ticks add up exactly.
	carry time.Duration
}

// MaxClock is the latest instant the clock reaches: scenario requests may
// not be later than this: 2^40 ms, about 34.8 years.
const MaxClock = int64(1) << 40

// Advance moves a playing clock by real × speed and reports whether the time
// shown changed. A paused clock does not move.
func (c *Clock) Advance(real time.Duration) bool {
	if !c.Playing || real <= 0 {
		return false
	}
	c.carry += real * time.Duration(c.Speed) / 4
	ms := int64(c.carry / time.Millisecond)
	c.carry -= time.Duration(ms) * time.Millisecond
	if ms == 0 {
		return false
	}
	c.Now = min(c.Now+ms, MaxClock)
	if c.Now == MaxClock {
		c.Playing = false
	}
	return true
}

// Step moves the clock forward by ms (clamped at MaxClock).
func (c *Clock) Step(ms int64) {
	c.Now = min(c.Now+max(ms, 0), MaxClock)
	c.carry = 0
}

// Jump sets the clock to at, which may be earlier than now.
func (c *Clock) Jump(at int64) {
	c.Now = min(max(at, 0), MaxClock)
	c.carry = 0
}

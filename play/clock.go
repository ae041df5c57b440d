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
// scenario's start. A playing clock is stored, never advanced: it reads Now
// at the wall instant Wall and runs at Speed from there, so its time at any
// later instant is computed (At). Nothing ticks it, and every reader, in any
// process whose wall clock agrees, computes the same time.
type Clock struct {
	Now     int64
	Playing bool
	Speed   Speed
	// Wall is the real instant at which the clock read Now. A paused
	// clock ignores it.
	Wall time.Time
}

// MaxClock is the latest instant the clock reaches: scenario requests may
// not be later than this: 2^40 ms, about 34.8 years.
const MaxClock = int64(1) << 40

// perMs is the real time one virtual millisecond takes at the clock's speed:
// 4 ms at 0.25×, 62.5 µs at 16×, always a whole number of nanoseconds.
func (c Clock) perMs() time.Duration {
	return 4 * time.Millisecond / time.Duration(c.Speed)
}

// At is the clock as read at wall: a playing clock has moved on by the real
// time since Wall times its speed, in whole milliseconds, and stops at
// MaxClock. Wall moves on by exactly the real time those milliseconds took,
// so the fraction of a millisecond not yet shown is kept: reading at many
// instants, one after another, adds up to reading once at the last. A wall
// instant before Wall (another server's clock a little behind) reads Now.
func (c Clock) At(wall time.Time) Clock {
	if !c.Playing || c.Speed <= 0 || !wall.After(c.Wall) {
		return c
	}
	elapsed := wall.Sub(c.Wall)
	per := c.perMs()
	// Compared before multiplying, so that years of real time cannot
	// overflow: 2^40 virtual ms at 0.25× are 4.4e18 ns, under 2^63.
	if left := MaxClock - c.Now; elapsed >= time.Duration(left)*per {
		return Clock{Now: MaxClock, Speed: c.Speed, Wall: wall}
	}
	ms := int64(elapsed / per)
	c.Now += ms
	c.Wall = c.Wall.Add(time.Duration(ms) * per)
	return c
}

// Step moves the clock forward by ms (clamped at MaxClock), read at wall.
func (c *Clock) Step(ms int64, wall time.Time) {
	*c = c.At(wall)
	c.Now, c.Wall = min(c.Now+max(ms, 0), MaxClock), wall
}

// Jump sets the clock to at, which may be earlier than now, from wall on.
func (c *Clock) Jump(at int64, wall time.Time) {
	*c = c.At(wall)
	c.Now, c.Wall = min(max(at, 0), MaxClock), wall
}

// SetPlaying starts or stops the clock at wall.
func (c *Clock) SetPlaying(on bool, wall time.Time) {
	*c = c.At(wall)
	c.Playing, c.Wall = on && c.Now < MaxClock, wall
}

// SetSpeed changes the speed from wall on.
func (c *Clock) SetSpeed(sp Speed, wall time.Time) {
	*c = c.At(wall)
	c.Speed = sp
}

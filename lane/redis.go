package lane

import (
	"strconv"

	"github.com/windowlab/playground/play"
)

// Redis is a lane's Redis row (serve -redis): the lane's drawn requests as
// a Redis form decided them, beneath the Go lane and on its time axis, and
// the row's line in words.
type Redis struct {
	// Status says how Redis's decisions compare with Go's, or why there
	// are none (Redis unavailable, no Redis form).
	Status string
	// Undecided is true when Redis decided none of the lane's requests
	// (unavailable, or no Redis form): the row draws no marks.
	Undecided bool
	// Marks are the lane's drawn requests that Redis decided, in the
	// lane's order.
	Marks []RedisMark
}

// RedisMark is one request as Redis decided it.
type RedisMark struct {
	Index   int
	At      int64
	Allowed bool
	Future  bool
	// Level and Stack place the mark as play.Mark's do: Redis's estimate
	// before the request plus its cost, and the marks already at that
	// instant and level.
	Level float64
	Stack int
	// Differs is true when Redis decided otherwise than Go; Text then says
	// both decisions.
	Differs bool
	Text    string // the mark in words, for its title
}

// redisRowHeight is the Redis row's height in viewBox units: a lane in
// small, its marks at their level under the limit line, with room for a
// ≠ above the highest.
const (
	redisRowHeight = 64
	redisRowTop    = 12
	redisRowBottom = redisRowHeight - 6
)

// redisRow is the Redis row on its lane's horizontal axis.
type redisRow struct {
	plot
	red Redis
}

func newRedisRow(in Input, o Options, r Redis) redisRow {
	p := newPlot(in, o)
	// The lane's horizontal axis, a row's height of its own, and Redis's
	// marks in place of Go's, so the row places, stacks and draws them as
	// the lane does its own.
	p.height, p.top, p.bot = redisRowHeight, redisRowTop, redisRowBottom
	p.Lane.Marks = make([]play.Mark, len(r.Marks))
	for i, m := range r.Marks {
		p.Lane.Marks[i] = play.Mark{Index: m.Index, At: m.At, Allowed: m.Allowed, Future: m.Future, Level: m.Level, Stack: m.Stack}
	}
	return redisRow{plot: p, red: r}
}

func (r redisRow) viewBox() string {
	return "0 0 " + strconv.Itoa(r.width) + " " + strconv.Itoa(redisRowHeight)
}

// RedisMarkPos is a Redis mark placed on the row.
type RedisMarkPos struct {
	RedisMark
	X, Y  string
	Class string
}

// y is mark i's height on the row, stacked as the lane stacks its own.
func (r redisRow) y(i int, tallest map[int64]int) float64 {
	return r.stackY(r.Lane.Marks[i], tallest)
}

// limitY is the height of the limit line on the row.
func (r redisRow) limitY() string { return num(r.Y(float64(r.Capacity))) }

// bottom is the row's baseline.
func (r redisRow) bottom() string { return itoa(redisRowBottom) }

// marks places the marks drawn one by one: every difference, and every
// mark while the lane draws its marks one by one (IndividualMarks).
func (r redisRow) marks() []RedisMarkPos {
	var out []RedisMarkPos
	tallest := r.tallestStacks()
	for i, m := range r.red.Marks {
		if r.dense() && !m.Differs {
			continue
		}
		class := "redis-mark refused"
		if m.Allowed {
			class = "redis-mark admitted"
		}
		if m.Differs {
			class += " redis-differs"
		}
		out = append(out, RedisMarkPos{RedisMark: m, X: num(r.X(m.At)), Y: num(r.y(i, tallest)), Class: class})
	}
	return out
}

func (r redisRow) dense() bool { return len(r.red.Marks) > IndividualMarks }

// densePaths draws the marks that agree, when there are many, as the
// lane draws its own (plot.DensePaths); the differences are drawn one by
// one (marks).
func (r redisRow) densePaths() (admitted, refused string) {
	agreeing := r.plot
	agreeing.Lane.Marks = nil
	for i, m := range r.red.Marks {
		if !m.Differs {
			agreeing.Lane.Marks = append(agreeing.Lane.Marks, r.Lane.Marks[i])
		}
	}
	a, x, _ := agreeing.DensePaths()
	return a, x
}

// summary is the row's text alternative.
func (r redisRow) summary() string {
	differ := 0
	for _, m := range r.red.Marks {
		if m.Differs {
			differ++
		}
	}
	s := r.red.Status
	if !r.red.Undecided {
		s += " Drawn here: " + strconv.Itoa(len(r.red.Marks)) + " requests, " + strconv.Itoa(differ) + " decided otherwise than in Go."
	}
	return s
}

package lane

import (
	"math"
	"strconv"
	"strings"
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
	// Differs is true when Redis decided otherwise than Go; Text then says
	// both decisions.
	Differs bool
	Text    string // the mark in words, for its title
}

// redisRowHeight is the Redis row's height in viewBox units: one line of
// marks, and the ≠ above a difference.
const redisRowHeight = 30

// redisRow is the Redis row on its lane's horizontal axis.
type redisRow struct {
	plot
	red Redis
}

func newRedisRow(in Input, o Options, r Redis) redisRow {
	return redisRow{plot: newPlot(in, o), red: r}
}

func (r redisRow) viewBox() string {
	return "0 0 " + strconv.Itoa(r.width) + " " + strconv.Itoa(redisRowHeight)
}

// markY is the height of the row's marks, and differY of the ≠ above one.
const markY, differY = 19, 8

// RedisMarkPos is a Redis mark placed on the row.
type RedisMarkPos struct {
	RedisMark
	X     string
	Class string
}

// marks places the marks drawn one by one: every difference, and every
// mark while the lane draws its marks one by one (IndividualMarks).
func (r redisRow) marks() []RedisMarkPos {
	var out []RedisMarkPos
	for _, m := range r.red.Marks {
		if r.dense() && !m.Differs {
			continue
		}
		class := "redis-mark refused"
		if m.Allowed {
			class = "redis-mark admitted"
		}
		if m.Future {
			class += " future"
		}
		if m.Differs {
			class += " redis-differs"
		}
		out = append(out, RedisMarkPos{RedisMark: m, X: num(r.X(m.At)), Class: class})
	}
	return out
}

func (r redisRow) dense() bool { return len(r.red.Marks) > IndividualMarks }

// densePaths draws the marks that agree, when there are many, as two
// paths: admitted dots and refused crosses.
func (r redisRow) densePaths() (admitted, refused string) {
	var a, x strings.Builder
	drawn := map[[2]int]bool{}
	for _, m := range r.red.Marks {
		xi := int(math.Round(r.X(m.At)))
		key := [2]int{xi, 0}
		if m.Allowed {
			key[1] = 1
		}
		if m.Differs || drawn[key] {
			continue
		}
		drawn[key] = true
		xs, y := strconv.Itoa(xi), strconv.Itoa(markY)
		if m.Allowed {
			a.WriteString("M" + xs + " " + y + "h0")
		} else {
			x.WriteString("M" + strconv.Itoa(xi-4) + " " + strconv.Itoa(markY-4) + "l8 8m0 -8l-8 8")
		}
	}
	return a.String(), x.String()
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

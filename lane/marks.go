package lane

import (
	"math"
	"strconv"

	"github.com/windowlab/playground/explain"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
)

// How marks are kept apart. A request's mark sits at its instant and at
// its level (what the policy compared with its capacity). Requests with
// the same instant, level and answer would be drawn on one another: they
// are drawn as one mark with their count beside it ("✕ 5"). Marks that
// still come closer than a mark's size (different levels a unit apart,
// or instants a few units apart) are lifted above one another within their
// column. Nothing is drawn in the strip at the top of the plot, which
// holds the ▼ of requests the lanes decided differently, and a mark never
// reaches the axis or the limit's label left of the plot.
const (
	// markSize is a mark's width and height (a dot of radius 5, a cross
	// 10 across).
	markSize = 10
	// markGap is the least distance between two marks' centres in one
	// column: a mark's size and a unit of air.
	markGap = markSize + 1
	// padX keeps the first and last instants off the plot's edges, so a
	// mark at the span's start does not sit on the axis's end or the
	// limit's label.
	padX = 10
	// disagreeRow is the height of the strip at the top of the plot
	// where the ▼ of a disagreement is drawn.
	disagreeRow = 9
)

// markCeil is the highest a mark's centre goes: under the ▼ strip.
func (p plot) markCeil() float64 { return p.top + disagreeRow + markSize/2 + 1 }

// markFloor is the lowest a mark's centre goes: clear of the axis.
func (p plot) markFloor() float64 { return p.bot - markSize/2 - 1 }

// laidMark is one drawn mark: the request it stands for (the first of
// those drawn together), how many it stands for, and its position.
type laidMark struct {
	mark  play.Mark
	count int
	x, y  float64
}

// layoutMarks places the lane's marks (one server; several servers keep
// their own column, spreadAtInstants). It returns the drawn marks and,
// for each of the lane's marks, the drawn mark it is part of.
func (p plot) layoutMarks() ([]laidMark, []int) {
	marks := p.Lane.Marks
	out := make([]laidMark, 0, len(marks))
	part := make([]int, len(marks))
	// Same instant, level and answer: one mark with a count. Marks of one
	// instant are consecutive (marks are in time order).
	type spot struct {
		at      int64
		level   float64
		allowed bool
	}
	seen := map[spot]int{}
	colStart, colX := 0, math.Inf(-1)
	for i, m := range marks {
		key := spot{m.At, m.Level, m.Allowed}
		if j, ok := seen[key]; ok {
			out[j].count++
			out[j].mark.Selected = out[j].mark.Selected || m.Selected
			out[j].mark.Disagree = out[j].mark.Disagree || m.Disagree
			part[i] = j
			continue
		}
		x := p.X(m.At)
		if x-colX >= markGap {
			// A new column: the marks before are far enough across.
			colStart, colX = len(out), x
			clear(seen)
		}
		y := min(max(p.Y(m.Level), p.markCeil()), p.markFloor())
		// Lift the mark above any in its column it would touch; a column
		// that reaches the ceiling goes on downwards from the lowest
		// free place instead.
		y = freeY(out[colStart:], y, p.markCeil(), p.markFloor())
		seen[key] = len(out)
		part[i] = len(out)
		out = append(out, laidMark{mark: m, count: 1, x: x, y: y})
	}
	return out, part
}

// freeY is the place nearest above y (or, with no room above, below it)
// where a mark keeps markGap from every mark of col.
func freeY(col []laidMark, y, ceil, floor float64) float64 {
	free := func(y float64) bool {
		for _, o := range col {
			if math.Abs(o.y-y) < markGap {
				return false
			}
		}
		return true
	}
	for c := y; c >= ceil; c -= 1 {
		if free(c) {
			return c
		}
	}
	for c := y; c <= floor; c += 1 {
		if free(c) {
			return c
		}
	}
	return y // a column taller than the plot: overlap rather than vanish
}

// Marks places the requests: at their instant, at the height of estimate +
// cost (what the policy compared with its capacity), those at one spot
// drawn once with their count.
func (p plot) Marks() []MarkPos {
	if p.Deployment.Several() {
		return p.severalMarks()
	}
	laid, part := p.layoutMarks()
	out := make([]MarkPos, 0, len(p.Lane.Marks))
	drawn := make([]bool, len(laid))
	for i, m := range p.Lane.Marks {
		l := laid[part[i]]
		pos := MarkPos{Mark: m, X: num(l.x), Y: num(l.y), Class: markClass(m), Count: l.count}
		if drawn[part[i]] {
			// Part of the stack drawn before it: kept, with its index
			// and place, but not drawn over its stack's mark.
			pos.Class += " stacked"
			pos.Count = 0
		} else {
			pos.Mark.Selected = l.mark.Selected // the stack's ring
		}
		drawn[part[i]] = true
		out = append(out, pos)
	}
	return out
}

// severalMarks places the marks of a lane on several servers, each its own
// (its node is written beside it), in columns (spreadAtInstants).
func (p plot) severalMarks() []MarkPos {
	out := make([]MarkPos, 0, len(p.Lane.Marks))
	tallest := p.tallestStacks()
	for _, m := range p.Lane.Marks {
		out = append(out, MarkPos{Mark: m, X: num(p.X(m.At)), Y: num(p.stackY(m, tallest)), Class: markClass(m), Count: 1})
	}
	p.spreadAtInstants(out)
	return out
}

// markClass is a mark's class: its answer. A request after the clock is
// faded by the lane's veil, not by a class, so that a mark stays the same
// as the clock passes it.
func markClass(m play.Mark) string {
	if m.Allowed {
		return "mark admitted"
	}
	return "mark refused"
}

// markYs is where each of the lane's marks is drawn (its drawn mark's
// height), for what is drawn beside a mark (a queued request's wait).
func (p plot) markYs() []float64 {
	ys := make([]float64, len(p.Lane.Marks))
	if p.Deployment.Several() {
		tallest := p.tallestStacks()
		for i, m := range p.Lane.Marks {
			ys[i] = p.stackY(m, tallest)
		}
		return ys
	}
	laid, part := p.layoutMarks()
	for i := range ys {
		ys[i] = laid[part[i]].y
	}
	return ys
}

// MarkID is the mark's element id, stable while its request keeps its
// place in the list: the page morphs each frame into the last, so a mark
// that moves (the span changed) glides rather than being drawn anew.
func (m MarkPos) MarkID(lane string) string { return lane + "-r" + strconv.Itoa(m.Index) }

// CountLabel is the number of requests a mark stands for, when several.
func (m MarkPos) CountLabel() string {
	if m.Count < 2 {
		return ""
	}
	return strconv.Itoa(m.Count)
}

// CountTitle says in words what a mark standing for several requests is.
func (m MarkPos) CountTitle() string {
	return strconv.Itoa(m.Count) + " requests at " + scenario.FormatMs(m.At) + ", " + explain.Verdict(m.Allowed)
}

package lane

import (
	"cmp"
	"math"
	"slices"
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
// or instants a few units apart) are moved to the nearest free place.
// Nothing is drawn in the strip at the top of the plot, which holds the ▼
// of requests the lanes decided differently, and a mark never reaches the
// axis or the limit's label left of the plot.
//
// Clearances are between inks, what the page lays down: a shape with its
// outline. A mark's ink reaches markInk from its centre, the selection
// ring's ringInk, the ▼'s bottom disagreeRow below the plot's top, all
// with the widest outlines a stylesheet gives them (lane.css,
// present.css); inkGap of air stays between two of them. The geometries
// alone were a unit apart, and the outlines met: on the projector the ▼
// touched a refusal at the top of the plot, and the ring ran through the
// marks above and below its own.
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
	// markInk is how far a mark's ink reaches from its centre: a cross's
	// arm (5) and half its 2.5 stroke, rounded up.
	markInk = 6.5
	// ringRadius is the selection ring's radius, and ringInk its reach
	// with half its 3-unit stroke: the ring's inside (7.5) clears its own
	// mark's ink.
	ringRadius = 9
	ringInk    = ringRadius + 1.5
	// inkGap is the air left between two inks.
	inkGap = 1.5
	// The ▼ of a disagreement: its top disagreeTop below the plot's top,
	// disagreeH high; disagreeRow is where its ink ends, half the widest
	// outline a stylesheet draws it with (3, present.css) below its tip.
	disagreeTop = 1.5
	disagreeH   = 7
	disagreeRow = disagreeTop + disagreeH + 1.5
	// ringGap is the least distance, across or up, between the centre of
	// the selected mark and another's: the ring's ink, air, the mark's.
	ringGap = ringInk + inkGap + markInk
)

// markCeil is the highest a mark's centre goes: its ink clear of the ▼
// row, or inside the plot where there is none.
func (p plot) markCeil() float64 { return p.top + p.rowBelowTop() + markInk }

// ringCeil is the highest the selected mark's centre goes: its ring's ink
// clear of the ▼ row.
func (p plot) ringCeil() float64 { return p.top + p.rowBelowTop() + ringInk }

// ceilAt is markCeil for a column at x alone: a lane on several servers,
// whose tall columns zig-zag to fit (spreadAtInstants), keeps clear of the
// ▼ drawn over its column and climbs to the plot's top where none is.
func (p plot) ceilAt(x float64) float64 {
	for _, d := range p.disagreeXs() {
		if math.Abs(d-x) < markSize/2+1.5+inkGap+markInk+markRadius {
			return p.markCeil()
		}
	}
	return p.top + markSize/2
}

// rowBelowTop is the height the ▼ row and its air take under the plot's
// top.
func (p plot) rowBelowTop() float64 {
	if p.noDisagreeRow {
		return 0
	}
	return disagreeRow + inkGap
}

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
	// Same instant, level and answer: one mark with a count.
	type spot struct {
		at      int64
		level   float64
		allowed bool
	}
	seen := map[spot]int{}
	sel := -1
	for i, m := range marks {
		key := spot{m.At, m.Level, m.Allowed}
		j, ok := seen[key]
		if ok {
			out[j].count++
			out[j].mark.Selected = out[j].mark.Selected || m.Selected
			out[j].mark.Disagree = out[j].mark.Disagree || m.Disagree
		} else {
			j = len(out)
			seen[key] = j
			out = append(out, laidMark{mark: m, count: 1, x: p.X(m.At)})
		}
		part[i] = j
		if m.Selected {
			sel = j
		}
	}
	// Columns: marks within markGap across of a column's first are
	// stacked in it (marks are in time order, so x grows). The selected
	// mark's column takes in every mark within ringGap across of it, so
	// that its ring keeps clear of them too.
	start := 0
	for k := 1; k <= len(out); k++ {
		if k < len(out) && out[k].x-out[start].x < markGap {
			continue
		}
		if k < len(out) && sel >= 0 && (sel < k && out[k].x-out[sel].x < ringGap || sel >= k && out[sel].x-out[k-1].x < ringGap) {
			continue
		}
		p.stackColumn(out[start:k])
		start = k
	}
	return out, part
}

// stackColumn places the marks of one column: each at its level where it
// can, those that would come closer than markGap (ringGap to the selected
// one, whose ring then touches none) moved apart, keeping their order
// up the column, between the ▼ row and the axis. A column taller than
// the plot has its gaps narrowed, the ring's first.
func (p plot) stackColumn(col []laidMark) {
	order := make([]int, len(col))
	for i := range order {
		order[i] = i
	}
	// Bottom first: the lowest level's mark, then up.
	nat := func(i int) float64 { return p.Y(col[i].mark.Level) }
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(nat(b), nat(a)) })
	ceil := func(i int) float64 {
		if col[i].mark.Selected {
			return p.ringCeil()
		}
		return p.markCeil()
	}
	floor := p.markFloor()
	gaps := make([]float64, len(order)) // gaps[n]: between order[n-1] and order[n]
	need := 0.0
	for n := 1; n < len(order); n++ {
		gaps[n] = markGap
		if col[order[n]].mark.Selected || col[order[n-1]].mark.Selected {
			gaps[n] = ringGap
		}
		need += gaps[n]
	}
	top := order[len(order)-1]
	if room := floor - ceil(top); need > room {
		// Too tall: the ring's gaps narrow to markGap first, then all
		// alike.
		for n := range gaps {
			if over := need - room; over > 0 && gaps[n] > markGap {
				cut := min(gaps[n]-markGap, over)
				gaps[n] -= cut
				need -= cut
			}
		}
		if need > room {
			f := max(room, 0) / need
			for n := range gaps {
				gaps[n] *= f
			}
		}
	}
	// Up from the bottom, each at its level or a gap above the one below;
	// then down from the top, each under the ▼ row and a gap below the
	// one above; the bottom one over the axis.
	ys := make([]float64, len(order))
	for n, i := range order {
		ys[n] = min(max(nat(i), ceil(i)), floor)
		if n > 0 {
			ys[n] = min(ys[n], ys[n-1]-gaps[n])
		}
	}
	for n := len(order) - 1; n >= 0; n-- {
		ys[n] = max(ys[n], ceil(order[n]))
		if n < len(order)-1 {
			ys[n] = max(ys[n], ys[n+1]+gaps[n+1])
		}
	}
	for n, i := range order {
		col[i].y = ys[n]
	}
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

// CountX is where the count beside a mark starts: clear of the mark, and
// of the selection ring around it when it is selected.
func (m MarkPos) CountX() string {
	if m.Selected {
		return strconv.Itoa(int(math.Ceil(ringInk)) + 1)
	}
	return "8"
}

// CountTitle says in words what a mark standing for several requests is.
func (m MarkPos) CountTitle() string {
	return strconv.Itoa(m.Count) + " requests at " + scenario.FormatMs(m.At) + ", " + explain.Verdict(m.Allowed)
}

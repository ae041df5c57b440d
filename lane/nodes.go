package lane

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/windowlab/playground/scenario"
)

// A lane on several servers is drawn as one lane: its curve and windows are
// the combined lane (what passed across every node, against the one limit),
// each mark carries the number of the node that decided it, in text, and
// the syncs are ticks on the axis. What is particular to several servers
// is kept here, beside what every lane draws.

// MaxSyncTicks bounds the sync ticks one lane draws: beyond it they would
// merge into a band, and the text alternative says the interval instead.
const MaxSyncTicks = 60

// SyncTick is one sync instant on the axis.
type SyncTick struct {
	X     string
	Title string
}

// SyncTicks are the syncs inside the span, at most MaxSyncTicks; none on
// one server, with a central store, for nodes that never sync, or when
// there would be more than MaxSyncTicks.
func (p plot) SyncTicks() []SyncTick {
	d := p.Deployment
	if !d.Several() || d.Central || d.SyncMs <= 0 || p.to <= p.from {
		return nil
	}
	first := (p.from + d.SyncMs - 1) / d.SyncMs * d.SyncMs
	if first > p.to || (p.to-first)/d.SyncMs+1 > MaxSyncTicks {
		return nil
	}
	var out []SyncTick
	for t := first; t <= p.to; t += d.SyncMs {
		out = append(out, SyncTick{X: num(p.X(t)), Title: "sync at " + scenario.FormatMs(t)})
	}
	return out
}

// syncTickTop is where a sync tick starts: it rises above the axis, on the
// other side from the time ticks, so that the two never meet.
func (p plot) syncTickTop() string { return itoa(int(p.bot) - 6) }

// NodeLabel is the number drawn beside a mark on several servers ("2"),
// "" on one server.
func (m MarkPos) NodeLabel() string {
	if m.Node == 0 {
		return ""
	}
	return itoa(m.Node)
}

// MarkTitle is a mark's text alternative: the request, its outcome and, on
// several servers, its node.
func (m MarkPos) MarkTitle() string { return m.Describe() }

// nodesSummary is what the text alternative adds on several servers: how
// they are deployed and how to read the lane; "" on one server.
func (p plot) nodesSummary() string {
	d := p.Deployment
	if !d.Several() {
		return ""
	}
	var b strings.Builder
	nodes := max(d.Nodes, 1)
	switch {
	case d.Central:
		fmt.Fprintf(&b, "%d nodes sharing one central store.", nodes)
	case d.SyncMs > 0:
		fmt.Fprintf(&b, "%d nodes, each counting on its own and syncing every %s", nodes, scenario.FormatMs(d.SyncMs))
		if len(p.SyncTicks()) > 0 {
			b.WriteString(" (the short ticks above the axis)")
		}
		b.WriteString(".")
	default:
		fmt.Fprintf(&b, "%d nodes, each counting on its own and never syncing.", nodes)
	}
	b.WriteString(" The line and the windows count what passed across all nodes against the one limit; each request is drawn at that count, with the number of the node that decided it, and again in its node's timeline at the height that node compared with the limit.")
	if len(p.Lane.Marks) > 0 && p.Dense() {
		b.WriteString(" There are too many requests here to number each; the decisions say which node decided each.")
	}
	return b.String()
}

// markRadius is a mark's radius (lane.templ draws r="5" and a cross of 10).
const markRadius = 5

// spreadAtInstants places the marks of a lane on several servers that
// share an instant, which the nodes decided each at its own level: the
// levels of different nodes interleave (node 1's second request sits a
// fraction of a step above node 2's first), so marks lifted only when
// they share a level would overlap, numbers and all. Going up from the
// lowest, each mark goes at its level or at least markStep above the one
// below it; a column that would climb out of the lane is squeezed evenly
// between the lowest mark and the top, and its marks then zig-zag either
// side of the instant with their numbers outside, so that two numbers on
// one side stay twice the step apart; a column with no room above its
// lowest mark hangs from the top instead (minSqueezedStep).
func (p plot) spreadAtInstants(out []MarkPos) {
	at := map[int64][]int{}
	var instants []int64
	for i, m := range out {
		if _, seen := at[m.At]; !seen {
			instants = append(instants, m.At)
		}
		at[m.At] = append(at[m.At], i)
	}
	for _, t := range instants {
		col := at[t]
		if len(col) < 2 {
			continue
		}
		ceil := p.ceilAt(p.X(t))
		want := func(i int) float64 { return min(max(p.Y(out[i].Level), ceil), p.markFloor()) }
		slices.SortStableFunc(col, func(a, b int) int { return cmp.Compare(want(b), want(a)) })
		ys := make([]float64, len(col))
		ys[0] = want(col[0])
		for k := 1; k < len(col); k++ {
			ys[k] = min(want(col[k]), ys[k-1]-markStep)
		}
		step := float64(markStep)
		if limit := ceil; ys[len(ys)-1] < limit {
			n := float64(len(col) - 1)
			step = max(ys[0]-limit, 0) / n
			if step < minSqueezedStep {
				// Marks at the top of the lane (nine refused at one
				// instant over the limit) have no room above them: the
				// column hangs from the top at the least step that keeps
				// them apart, going down past their level, and only a
				// column taller than the lane (more than about sixteen)
				// is squeezed further.
				step = minSqueezedStep
				ys[0] = limit + n*step
				if floor := p.markFloor(); ys[0] > floor {
					ys[0], step = floor, max(floor-limit, 0)/n
				}
			}
			for k := range ys {
				ys[k] = ys[0] - float64(k)*step
			}
		}
		squeezed := step < 2*markRadius
		for k, i := range col {
			out[i].Y = num(ys[k])
			if squeezed {
				// A zig-zag half a mark either side of the instant: marks
				// closer than their size in height are then a mark apart.
				dx := float64(markRadius) - 1
				if k%2 == 1 {
					dx = -dx
				}
				out[i].X = num(p.X(t) + dx)
			}
			out[i].labelLeft = squeezed && k%2 == 1
		}
	}
}

// minSqueezedStep is the least height between the marks of a squeezed
// column: zig-zagged 2 × (markRadius−1) apart across, marks 6 apart in
// height are a mark's width (10) apart, and the numbers on one side 12
// apart, above their 10-unit font.
const minSqueezedStep = 6

// NodeLabelX is where a mark's node number starts, beside the mark; with
// NodeLabelAnchor, on its left for every other mark of a squeezed column
// (see spreadAtInstants).
func (m MarkPos) NodeLabelX() string {
	if m.labelLeft {
		return "-7"
	}
	return "7"
}

// NodeLabelAnchor is the number's text-anchor: it ends at the mark on the
// left, starts from it on the right.
func (m MarkPos) NodeLabelAnchor() string {
	if m.labelLeft {
		return "end"
	}
	return "start"
}

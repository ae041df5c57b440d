package lane

import (
	"slices"
	"strconv"
	"strings"

	"github.com/windowlab/playground/explain"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
)

// Under a lane on several servers each node's own state is drawn as a
// short timeline of its own: the policy's state drawing (the one every
// lane of the policy draws, from the node's State instead of the combined
// lane's), the window the node is in on its own clock, a bar at its clock
// as high as what it counts, and the requests it decided. It is named
// "node 1" … in text, never told apart by colour alone, so that a learner
// reads what each server knew.

// NodeHeight is a node's timeline's height in viewBox units.
const NodeHeight = MinHeight

// OpenNodes is how many nodes a lane shows unfolded; more are folded
// under their heading, a keyboard's Enter away.
const OpenNodes = 4

// NodeView is one node's drawing.
type NodeView struct {
	Name  string // "node 2", "the central store"
	Text  string // what it knew, in words (explain.NodeState), its name first
	Rest  string // Text after the name
	ID    string // its timeline's id
	p     plot
	Level LevelBar
}

// nodeLabelClear is how far right of the clock a node's count label goes
// past the node numbers of marks at the clock: a zig-zagged mark is up to
// markRadius−1 right of it, its number starts 7 further, and two digits
// of the 10-unit font take about 12.
const nodeLabelClear = markRadius - 1 + 7 + 12 + 2

// LevelBar is the bar at a node's clock: what it counts there.
type LevelBar struct {
	X, Y, H, LabelX, LabelY, Label string
}

// NodeViews are the nodes to draw under the lane: none on one server, and
// none while a room's question is open (what each node holds is the
// answer, or close to it).
func (p plot) NodeViews() []NodeView {
	if p.opts.Asked || len(p.Lane.Nodes) == 0 {
		return nil
	}
	out := make([]NodeView, 0, len(p.Lane.Nodes))
	for _, ns := range p.Lane.Nodes {
		np := p.nodePlot(ns)
		est := ns.State.Estimate.Float()
		// The count's label goes right of the bar, and further right
		// when requests at the clock put their node numbers there.
		labelDX := 6.0
		if slices.ContainsFunc(np.Lane.Marks, func(m play.Mark) bool { return m.At == np.Now }) {
			labelDX = nodeLabelClear
		}
		lv := LevelBar{X: num(np.X(np.Now) - 3), Y: num(np.Y(est)), H: num(np.Y(0) - np.Y(est)),
			LabelX: num(np.X(np.Now) + labelDX), LabelY: num(max(np.Y(est), np.top+10)),
			Label: explain.Fraction(ns.State.Estimate.Reduced()) + "/" + itoa(ns.State.Capacity)}
		name, text := explain.NodeStateName(ns), explain.NodeState(p.Policy, ns, p.Now)
		out = append(out, NodeView{Name: name, Text: text, Rest: strings.TrimPrefix(text, name),
			ID: p.ID + "-node-" + strconv.Itoa(ns.Node+1), p: np, Level: lv})
	}
	return out
}

// nodePlot is the plot of one node: the lane's frame and size rules, on
// the lane's axis of real time, holding the node's state and the requests
// it decided (every request, for a central store), each at the level the
// node compared with its capacity.
func (p plot) nodePlot(ns scenario.NodeState) plot {
	l := p.Lane
	l.State, l.Capacity, l.Curve, l.Nodes = ns.State, ns.State.Capacity, nil, nil
	// The node's own ids (its marks', its look-back's), apart from the
	// lane's in the same page.
	l.ID = p.ID + "-node-" + strconv.Itoa(ns.Node+1)
	l.Marks = nil
	for _, m := range p.Lane.Marks {
		if ns.Central || m.Node == ns.Node+1 {
			m.Level = m.NodeLevel
			l.Marks = append(l.Marks, m)
		}
	}
	l.Windows = nil
	if len(p.Lane.Windows) > 0 && p.Params.WindowMs > 0 {
		// The window the node is in, on its own clock: a skewed node's
		// is not the one the combined lane shades. It is cut on the
		// node's clock and drawn on the real one, so a node running
		// 300 ms ahead starts its windows 300 ms early.
		// A node running behind reads a negative instant near 0: its
		// window starts below it, as % alone would not say.
		skew, w := ns.Local-p.Now, p.Params.WindowMs
		start := ns.Local - (ns.Local%w+w)%w
		l.Windows = []play.Band{{Start: start - skew, End: start - skew + w}}
	}
	o := p.opts
	o.Width, o.Height, o.From, o.To, o.SelectURL = p.width, NodeHeight, p.from, p.to, ""
	np := newPlot(Input{Lane: l, Client: p.Client, From: p.from, To: p.to, Now: p.Now}, o)
	np.skew = ns.Local - p.Now
	np.noDisagreeRow = true
	return np
}

// NodeWindow is the node's own window, shaded, when its policy counts in
// aligned windows.
func (p plot) NodeWindow() (x, w, title string, ok bool) {
	if len(p.Lane.Windows) != 1 {
		return "", "", "", false
	}
	b := p.Lane.Windows[0]
	x0, x1 := max(p.X(b.Start), p.left), min(p.X(b.End), p.right)
	if x1 <= x0 {
		return "", "", "", false
	}
	title = "its window from " + scenario.FormatMs(b.Start+p.skew) + " to " + scenario.FormatMs(b.End+p.skew) + " on its own clock"
	if p.skew != 0 {
		title += ", " + scenario.FormatMs(b.Start) + " to " + scenario.FormatMs(b.End) + " in real time"
	}
	return num(x0), num(x1 - x0), title, true
}

// nodesHeading heads the nodes under a lane.
func (p plot) nodesHeading() string {
	if p.Deployment.Central {
		return "What the central store knew at " + scenario.FormatMs(p.Now) + " (every node asks it)"
	}
	return "What each of the " + itoa(len(p.Lane.Nodes)) + " nodes knew at " + scenario.FormatMs(p.Now)
}

// nodesHiddenWhileAsked reports whether the lane has nodes whose states a
// room's open question hides.
func (p plot) nodesHiddenWhileAsked() bool { return p.opts.Asked && p.Deployment.Several() }

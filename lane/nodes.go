package lane

import (
	"fmt"
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
	b.WriteString(" The line and the windows count what passed across all nodes against the one limit; the number by each request is the node that decided it, at the height that node compared with the limit.")
	if len(p.Lane.Marks) > 0 && p.Dense() {
		b.WriteString(" There are too many requests here to number each; the decisions say which node decided each.")
	}
	return b.String()
}

package explain

import (
	"fmt"

	"github.com/windowlab/playground/scenario"
)

// NodeStateName names the server a node's drawn state belongs to: "node
// 2", or "the central store" that every node of a central deployment asks.
func NodeStateName(ns scenario.NodeState) string {
	if ns.Central {
		return "the central store"
	}
	return NodeName(ns.Node)
}

// NodeClock says how a node's clock stands against the real one at at:
// "its clock 300 ms ahead", "its clock 1.5 s behind", "" when it agrees.
func NodeClock(ns scenario.NodeState, at int64) string {
	switch d := ns.Local - at; {
	case d > 0:
		return "its clock " + scenario.FormatMs(d) + " ahead"
	case d < 0:
		return "its clock " + scenario.FormatMs(-d) + " behind"
	}
	return ""
}

// NodeState words what one server knew at at, for the drawing of each
// node under a lane on several servers: "node 2, its clock 300 ms ahead,
// at 1.3 s on it: count 2 of 5 · window from 1 s, 2 counted".
func NodeState(policy string, ns scenario.NodeState, at int64) string {
	who := NodeStateName(ns)
	if c := NodeClock(ns, at); c != "" {
		who += ", " + c + ", at " + scenario.FormatMs(ns.Local) + " on it"
	}
	est := ns.State.Estimate
	return fmt.Sprintf("%s: %s %s of %d · %s", who, wordingOf(policy).estimateWord(), Fraction(est), ns.State.Capacity, State(policy, ns.State))
}

package explain

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/windowlab/playground/cluster"
	"github.com/windowlab/playground/scenario"
)

// What several servers add to a decision is worded here once, for every
// policy: which node decided and what it had not yet heard of. Nodes are
// numbered from 1 for people (cluster numbers them from 0).

// NodeName is how people read node i (from 0): "node 2".
func NodeName(i int) string { return "node " + strconv.Itoa(i+1) }

// NodeCell is the simulate table's node column: "node 2", "" for a probe
// or a one-server decision.
func NodeCell(d scenario.Decision) string {
	if d.Nodes == nil {
		return ""
	}
	return NodeName(d.Nodes.Node)
}

// Unheard words what the deciding node did not know: "node 2 had not yet
// heard of 4 requests admitted by nodes 1 and 3", "node 1 had heard of
// every request the other nodes admitted in the last window", with a
// central store that there was nothing to hear of, and with nodes that
// never sync that the news never comes. Before anything was admitted it
// says so, rather than that the node had heard of everything. "" for a
// one-server decision.
func Unheard(d scenario.Decision, cfg scenario.Deployment) string {
	n := d.Nodes
	if n == nil {
		return ""
	}
	who := NodeName(n.Node)
	before := n.Admitted
	if d.Detail.Allowed {
		before -= d.Cost
	}
	never := cfg.SyncMs == 0
	switch {
	case cfg.Central:
		return who + " asked the central store, which counts every node's requests"
	case before == 0 && d.Index == 0:
		return who + " decided first: the others had admitted nothing yet"
	case before == 0:
		return who + " decided before any node had admitted a request"
	case n.Unheard == 0 && never:
		return who + " never hears of the other nodes' requests (the nodes never sync), and they had admitted none of this client's in the last window"
	case n.Unheard == 0:
		return who + " had heard of every request the other nodes admitted in the last window"
	case never && n.Unheard == 1:
		return fmt.Sprintf("%s never hears of the request %s admitted in the last window (the nodes never sync)", who, nodeList(n.UnheardFrom))
	case never:
		return fmt.Sprintf("%s never hears of the %s %s admitted in the last window (the nodes never sync)", who, plural(n.Unheard, "request"), nodeList(n.UnheardFrom))
	}
	return fmt.Sprintf("%s had not yet heard of %s admitted by %s", who, plural(n.Unheard, "request"), nodeList(n.UnheardFrom))
}

// Several words a several-server decision in full: Unheard, then how the
// combined lane compares with one server. "" for a one-server decision.
func Several(d scenario.Decision, cfg scenario.Deployment) string {
	n := d.Nodes
	if n == nil {
		return ""
	}
	one := "one server would have " + map[bool]string{true: "admitted", false: "refused"}[n.Single] + " it"
	if n.Single == d.Detail.Allowed {
		one += " too"
	}
	return fmt.Sprintf("%s; %s; across the nodes %s admitted so far, one server %d", Unheard(d, cfg), one,
		plural64(n.Admitted, "permit"), n.SingleAdmitted)
}

// SeveralStep is Several as the first of a decision's Steps: a sentence,
// "Node 2 had not yet heard of …". "" for a one-server decision.
func SeveralStep(d scenario.Decision, cfg scenario.Deployment) string {
	s := Several(d, cfg)
	if s == "" {
		return ""
	}
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

// SyncLine says when the nodes last shared what they admitted: "last sync
// at 500 ms", "no sync yet", "the nodes never sync".
func SyncLine(n *cluster.Decision, cfg scenario.Deployment) string {
	switch {
	case n == nil || cfg.Central:
		return ""
	case cfg.SyncMs == 0:
		return "the nodes never sync"
	case n.LastSync <= 0:
		// The sync at 0 has nothing to tell.
		return "no sync yet"
	}
	return "last sync at " + scenario.FormatMs(n.LastSync)
}

// nodeList names nodes (from 0) as a sentence does: "node 1", "nodes 1
// and 3", "nodes 1, 2 and 4".
func nodeList(nodes []int) string {
	names := make([]string, len(nodes))
	for i, n := range nodes {
		names[i] = strconv.Itoa(n + 1)
	}
	switch len(names) {
	case 0:
		return "no node"
	case 1:
		return "node " + names[0]
	}
	return "nodes " + strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

func plural(n int, noun string) string { return plural64(int64(n), noun) }

func plural64(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.FormatInt(n, 10) + " " + noun + "s"
}

package scenario

import "github.com/windowlab/playground/policies"

// NodeState is one server's own state of a key on a lane on several
// servers: what that server knew.
type NodeState struct {
	// Node is the server, from 0; Central marks the one shared store of
	// a central deployment, which stands for every node.
	Node    int
	Central bool
	// Local is the instant on the server's own clock (the real one plus
	// its skew), at which State is taken.
	Local int64
	State policies.State
}

// NodeStates is, on several servers, each node's own state of key at the
// real instant at, as the requests decided so far left it
// (cluster.State, which changes nothing the replay decides next); with a
// central store, the store's alone; nil on one server.
func (r *LaneReplay) NodeStates(key policies.Key, at int64) []NodeState {
	if r.cl == nil {
		return nil
	}
	if r.deploy.Central {
		return []NodeState{{Central: true, Local: at, State: r.cl.State(0, key, at)}}
	}
	skew := r.deploy.SkewMs.Ms()
	out := make([]NodeState, max(r.deploy.Nodes, 1))
	for i := range out {
		local := at
		if i < len(skew) {
			local += skew[i]
		}
		out[i] = NodeState{Node: i, Local: local, State: r.cl.State(i, key, at)}
	}
	return out
}

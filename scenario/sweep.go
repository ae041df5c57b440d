package scenario

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/windowlab/playground/cluster"
)

// Lane resolves a lane as lessons and exercises name it: "#N" for the
// scenario's own N-th lane, with everything a short ref cannot write (its
// servers, its overrides), or a policy ref (ParsePolicyRef) run with the
// scenario's settings.
func (s Scenario) Lane(ref string) (PolicySpec, error) {
	if n, ok := strings.CutPrefix(ref, "#"); ok {
		i, err := strconv.Atoi(n)
		specs := s.Specs()
		if err != nil || i < 1 || i > len(specs) {
			return PolicySpec{}, fmt.Errorf("%q: the scenario has lanes #1 to #%d", ref, len(specs))
		}
		return specs[i-1], nil
	}
	return ParsePolicyRef(ref)
}

// clusterRequests are the scenario's requests as package cluster takes
// them, counts expanded; probes decide nothing and are left out.
func (s Scenario) clusterRequests() []cluster.Request {
	out := make([]cluster.Request, 0, s.total())
	for _, r := range s.Requests {
		if r.Probe {
			continue
		}
		key := KeyOf(r.KeyName())
		for range r.Count {
			out = append(out, cluster.Request{Key: key, At: r.At, Cost: r.Cost})
		}
	}
	return out
}

// Sweep runs spec's policy on the scenario's requests once for every node
// count in nodes (cluster.SweepNodes when nil) and every sync interval in
// syncs (0: never), as cluster.Sweep does: the over-admission a lesson
// charts against syncMs. spec's own nodes and syncMs are replaced; a
// central store has nothing to sweep.
func Sweep(s Scenario, spec PolicySpec, nodes []int, syncs []int64) ([]cluster.Point, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	for _, n := range nodes {
		if n < 2 || n > MaxNodes {
			return nil, fmt.Errorf("nodes: %d is out of range [2, %d] (a sweep compares several servers)", n, MaxNodes)
		}
	}
	for _, ms := range syncs {
		if ms < 0 || ms > MaxSyncMs {
			return nil, fmt.Errorf("syncs: %d is out of range [0, %d] (milliseconds between syncs; 0 never syncs)", ms, int64(MaxSyncMs))
		}
	}
	cfg := spec.config(s)
	cfg.SkewMs = nil // a sweep compares intervals and sizes on aligned clocks
	return cluster.Sweep(cfg, s.clusterRequests(), nodes, syncs)
}

// RoundTrips is how often the lane's servers reach shared state while
// deciding the scenario's requests (cluster.RoundTrips): one per decision
// with a central store, one per server at each sync, none for one server
// or servers that never sync.
func (p PolicySpec) RoundTrips(s Scenario) int64 {
	if !p.Several() {
		return 0
	}
	return cluster.RoundTrips(p.config(s), s.clusterRequests())
}

package cluster

import "fmt"

// SweepNodes are the cluster sizes the lesson's chart compares.
var SweepNodes = []int{2, 4, 8}

// MaxSweepRuns bounds the runs one Sweep makes (nodes × sync intervals):
// each run decides every request once per node count and interval.
const MaxSweepRuns = 256

// Point is one run of a sweep.
type Point struct {
	Nodes  int
	SyncMs int64 // 0: never synced
	// Admitted across the nodes, Single what one server would have
	// admitted, OverAdmission the difference.
	Admitted, Single, OverAdmission int64
}

// Sweep runs reqs on base once for every node count in nodes (SweepNodes
// when nil) and every sync interval in syncs, in that order (nodes outer),
// and reports the over-admission of each: the figure the lesson draws
// against syncMs. base's Nodes and SyncMs are replaced; its Central must be
// false, since a central store has nothing to sweep.
func Sweep(base Config, reqs []Request, nodes []int, syncs []int64) ([]Point, error) {
	if nodes == nil {
		nodes = SweepNodes
	}
	if base.Central {
		return nil, fmt.Errorf("cluster: a sweep of a central store has nothing to vary")
	}
	if len(nodes)*len(syncs) > MaxSweepRuns {
		return nil, fmt.Errorf("cluster: a sweep of %d node counts × %d intervals is over %d runs", len(nodes), len(syncs), MaxSweepRuns)
	}
	var points []Point
	for _, n := range nodes {
		for _, s := range syncs {
			cfg := base
			cfg.Nodes, cfg.SyncMs = n, s
			res, err := Run(cfg, reqs)
			if err != nil {
				return nil, err
			}
			points = append(points, Point{Nodes: n, SyncMs: s, Admitted: res.Admitted, Single: res.Single, OverAdmission: res.OverAdmission})
		}
	}
	return points, nil
}

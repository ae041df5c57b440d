package cluster

import (
	"testing"

	"github.com/windowlab/playground/policies"
)

func TestRoundTrips(t *testing.T) {
	p := policies.Params{Limit: 5, WindowMs: 1000}
	// Requests at 0, 600 and 1200 ms, as the lesson's shared scenario has
	// them: the syncs of 500 ms in (0, 1200] are at 500 and 1000.
	spread := append(append(burst(0, 6), burst(600, 9)...), burst(1200, 9)...)
	for _, tt := range []struct {
		name string
		cfg  Config
		reqs []Request
		want int64
	}{
		{"central: one per decision", Config{Policy: policies.FixedWindow, Params: p, Nodes: 3, Central: true}, spread, 24},
		{"central ignores syncMs", Config{Policy: policies.FixedWindow, Params: p, Nodes: 3, Central: true, SyncMs: 500}, spread, 24},
		{"syncing: one per node per sync", Config{Policy: policies.FixedWindow, Params: p, Nodes: 3, SyncMs: 500}, spread, 6},
		{"a sync at the last request counts", Config{Policy: policies.FixedWindow, Params: p, Nodes: 3, SyncMs: 600}, spread, 6},
		{"8 nodes, 100 ms", Config{Policy: policies.FixedWindow, Params: p, Nodes: 8, SyncMs: 100}, spread, 96},
		{"no sync before the first request", Config{Policy: policies.FixedWindow, Params: p, Nodes: 2, SyncMs: 500}, burst(1200, 3), 0},
		{"never syncing", Config{Policy: policies.FixedWindow, Params: p, Nodes: 3}, spread, 0},
		{"one node", Config{Policy: policies.FixedWindow, Params: p, Nodes: 1, SyncMs: 500}, spread, 0},
		{"no requests", Config{Policy: policies.FixedWindow, Params: p, Nodes: 3, Central: true}, nil, 0},
	} {
		if got := RoundTrips(tt.cfg, tt.reqs); got != tt.want {
			t.Errorf("%s: RoundTrips = %d, want %d", tt.name, got, tt.want)
		}
	}
}

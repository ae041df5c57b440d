package scenario

import (
	"context"
	"testing"
)

// A replay's Next is WhatIf of one more request after the decided ones, on
// one server and on several (each route, and a central store): the same
// answer, and on several the same node; and it leaves the replay as it was,
// so asking twice answers the same.
func TestReplayNextIsWhatIf(t *testing.T) {
	const reqs = `"requests": [{"at": 0, "count": 4}, {"at": 300, "key": "b", "count": 3}, {"at": 700, "count": 3}]`
	for _, tc := range []struct {
		name, lane string
		at         int64
	}{
		{"one server", `{"name": "sliding-log"}`, 800},
		{"round-robin", `{"name": "sliding-log", "nodes": 3}`, 800},
		{"round-robin after a sync", `{"name": "fixed-window", "nodes": 3, "syncMs": 250}`, 1100},
		{"key", `{"name": "token-bucket", "nodes": 4, "route": "key"}`, 900},
		{"random", `{"name": "sliding-log", "nodes": 4, "route": "random", "seed": 7, "syncMs": 250}`, 750},
		{"central", `{"name": "gcra", "nodes": 3, "central": true}`, 800},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Helper()
			s, err := Parse([]byte(`{"limit": 5, "windowMs": 1000, "policies": [` + tc.lane + `], ` + reqs + `}`))
			if err != nil {
				t.Fatal(err)
			}
			r, err := StartLane(s, 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Continue(context.Background(), s, Hooks{}); err != nil {
				t.Fatal(err)
			}
			want, err := WhatIf(s, s.Policies[0], Request{At: tc.at, Cost: 1})
			if err != nil {
				t.Fatal(err)
			}
			for ask := 1; ask <= 2; ask++ {
				got, node := r.Next(KeyOf(DefaultKey), tc.at, 1)
				if got != want.Detail {
					t.Errorf("ask %d: Next = %+v, WhatIf = %+v", ask, got, want.Detail)
				}
				switch {
				case (node == nil) != (want.Nodes == nil):
					t.Errorf("ask %d: node = %v, WhatIf's %v", ask, node, want.Nodes)
				case node != nil && node.Node != want.Nodes.Node:
					t.Errorf("ask %d: node = %d, WhatIf's %d", ask, node.Node, want.Nodes.Node)
				}
			}
		})
	}
}

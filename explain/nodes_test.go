package explain

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/windowlab/playground/scenario"
)

// runLane runs a one-lane scenario and returns its decisions.
func runLane(t *testing.T, in string) (scenario.Scenario, scenario.PolicyResult) {
	t.Helper()
	s, err := scenario.Parse([]byte(in))
	require.NoError(t, err)
	res, err := scenario.Run(s)
	require.NoError(t, err)
	return s, res.Results[0]
}

func TestSeveralServersWording(t *testing.T) {
	// Three nodes of limit 2 that never sync, round-robin: each admits
	// its first two, and node 2 refuses request 8 not knowing of the
	// four that nodes 1 and 3 admitted.
	const local = `{"limit": 2, "windowMs": 1000, "policy": {"name": "fixed-window", "nodes": 3}, "requests": [{"at": 0, "count": 8}]}`
	const synced = `{"limit": 4, "windowMs": 1000, "policy": {"name": "sliding-log", "nodes": 2, "syncMs": 100}, "requests": [{"at": 0, "count": 2}, {"at": 150, "count": 2}, {"at": 250}]}`
	const apart = `{"limit": 2, "windowMs": 1000, "policy": {"name": "fixed-window", "nodes": 3}, "requests": [{"at": 0}, {"at": 1500}]}`
	const central = `{"limit": 2, "windowMs": 1000, "policy": {"name": "gcra", "nodes": 2, "central": true}, "requests": [{"at": 0, "count": 3}]}`
	tests := []struct {
		name, in string
		index    int
		unheard  string
		several  string
		sync     string
	}{
		{"the issue's sentence", local, 7, "node 2 never hears of the 4 requests nodes 1 and 3 admitted in the last window (the nodes never sync)",
			"node 2 never hears of the 4 requests nodes 1 and 3 admitted in the last window (the nodes never sync); one server would have refused it too; across the nodes 6 permits admitted so far, one server 2", "the nodes never sync"},
		{"the very first request", local, 0, "node 1 decided first: the others had admitted nothing yet",
			"node 1 decided first: the others had admitted nothing yet; one server would have admitted it too; across the nodes 1 permit admitted so far, one server 1", "the nodes never sync"},
		{"one request from one node", local, 1, "node 2 never hears of the request node 1 admitted in the last window (the nodes never sync)",
			"node 2 never hears of the request node 1 admitted in the last window (the nodes never sync); one server would have admitted it too; across the nodes 2 permits admitted so far, one server 2", "the nodes never sync"},
		{"over-admitted", local, 2, "node 3 never hears of the 2 requests nodes 1 and 2 admitted in the last window (the nodes never sync)",
			"node 3 never hears of the 2 requests nodes 1 and 2 admitted in the last window (the nodes never sync); one server would have refused it; across the nodes 3 permits admitted so far, one server 2", "the nodes never sync"},
		{"never sync, nothing in the window", apart, 1, "node 2 never hears of the other nodes' requests (the nodes never sync), and they had admitted none of this client's in the last window", "", "the nodes never sync"},
		{"first of a synced lane", synced, 0, "node 1 decided first: the others had admitted nothing yet", "", "no sync yet"},
		{"before the first sync", synced, 1, "node 2 had not yet heard of 1 request admitted by node 1", "", "no sync yet"},
		{"after a sync", synced, 2, "node 1 had heard of every request the other nodes admitted in the last window", "", "last sync at 100 ms"},
		{"between syncs", synced, 3, "node 2 had not yet heard of 1 request admitted by node 1", "", "last sync at 100 ms"},
		{"the next sync", synced, 4, "node 1 had heard of every request the other nodes admitted in the last window", "", "last sync at 200 ms"},
		{"central", central, 2, "node 1 asked the central store, which counts every node's requests",
			"node 1 asked the central store, which counts every node's requests; one server would have refused it too; across the nodes 2 permits admitted so far, one server 2", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, r := runLane(t, tt.in)
			d, cfg := r.Decisions[tt.index], s.Policies[0].Deployment
			if got := Unheard(d, cfg); got != tt.unheard {
				t.Errorf("request %d: Unheard = %q, want %q", tt.index+1, got, tt.unheard)
			}
			if got := Several(d, cfg); tt.several != "" && got != tt.several {
				t.Errorf("request %d: Several = %q, want %q", tt.index+1, got, tt.several)
			}
			if tt.several != "" {
				if got, want := SeveralStep(d, cfg), "N"+tt.several[1:]+"."; got != want {
					t.Errorf("request %d: SeveralStep = %q, want %q", tt.index+1, got, want)
				}
			}
			if got := SyncLine(d.Nodes, cfg); got != tt.sync {
				t.Errorf("request %d: SyncLine = %q, want %q", tt.index+1, got, tt.sync)
			}
		})
	}
}

func TestOneServerHasNoNodeWords(t *testing.T) {
	s, r := runLane(t, `{"limit": 2, "windowMs": 1000, "policy": "fixed-window", "requests": [{"at": 0, "count": 3}]}`)
	for i, d := range r.Decisions {
		if got := Unheard(d, s.Policies[0].Deployment) + Several(d, s.Policies[0].Deployment) + SeveralStep(d, s.Policies[0].Deployment) + NodeCell(d); got != "" {
			t.Errorf("request %d: one server worded %q, want nothing", i+1, got)
		}
	}
}

// The table gains a node column only for a lane on several servers.
func TestTableNodeColumn(t *testing.T) {
	s, err := scenario.Parse([]byte(`{"limit": 1, "windowMs": 1000, "policies": ["fixed-window", {"name": "fixed-window", "nodes": 2}], "requests": [{"at": 0, "count": 3}]}`))
	require.NoError(t, err)
	res, err := scenario.Run(s)
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, Table(&out, res))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := [][]string{
		{"#", "at", "key", "cost", "fixed-window", "node", "fixed-window", "on", "2", "servers,", "no", "sync"},
		{"1", "0", "s", "default", "1", "admitted", "(0)", "node", "1", "admitted", "(0)"},
		{"2", "0", "s", "default", "1", "REFUSED", "(1,", "retry", "after", "1", "s)", "node", "2", "admitted", "(0)"},
		{"3", "0", "s", "default", "1", "REFUSED", "(1,", "retry", "after", "1", "s)", "node", "1", "REFUSED", "(1,", "retry", "after", "1", "s)"},
		{"admitted", "1", "of", "3", "2", "of", "3", "(one", "server:", "1)"},
	}
	require.Len(t, lines, len(want), out.String())
	for i, w := range want {
		if got := strings.Fields(lines[i]); strings.Join(got, " ") != strings.Join(w, " ") {
			t.Errorf("line %d = %q, want %q", i+1, got, w)
		}
	}
	one, err := scenario.Run(scenario.Scenario{Limit: 1, WindowMs: 1000, Policies: s.Policies[:1], Requests: s.Requests})
	require.NoError(t, err)
	out.Reset()
	require.NoError(t, Table(&out, one))
	if strings.Contains(out.String(), "node") {
		t.Errorf("a one-server table has a node column:\n%s", out.String())
	}
}

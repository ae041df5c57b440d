package scenario

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/windowlab/playground/policies"
)

// issueExample is the issue's scenario: three servers, syncing every
// 500 ms, meet fifteen requests at 0 before any sync has told them of the
// others; central, if given, is added to the policy object.
func issueExample(central string) string {
	return `{"limit": 5, "windowMs": 1000, "policies": [{"name": "fixed-window", "nodes": 3, "syncMs": 500` + central +
		`}], "requests": [{"at": 0, "count": 15}]}`
}

func TestSeveralServersWorkedExample(t *testing.T) {
	tests := []struct {
		name, central       string
		admitted, oneServer int
		// what the last request's node had not heard of
		node, unheard int
		from          []int
	}{
		{"local counting", "", 15, 5, 2, 10, []int{0, 1}},
		{"central store", `, "central": true`, 5, 5, 2, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse([]byte(issueExample(tt.central)))
			require.NoError(t, err)
			res, err := Run(s)
			require.NoError(t, err)
			r := res.Results[0]
			assert.Equal(t, tt.admitted, r.Admitted, "admitted")
			assert.Equal(t, 15-tt.admitted, r.Refused, "refused")
			require.NotNil(t, r.OneServer)
			assert.Equal(t, tt.oneServer, *r.OneServer, "one server would admit")
			for i, d := range r.Decisions {
				require.NotNil(t, d.Nodes, "decision %d has no node", i)
				if d.Nodes.Node != i%3 {
					t.Errorf("decision %d: node = %d, want %d (round-robin)", i, d.Nodes.Node, i%3)
				}
			}
			last := r.Decisions[14].Nodes
			assert.Equal(t, tt.node, last.Node)
			assert.Equal(t, tt.unheard, last.Unheard, "unheard")
			assert.Equal(t, tt.from, last.UnheardFrom, "unheard from")
		})
	}
}

// The combined lane counts every node's admissions against the one
// limit: 15 in a window of limit 5.
func TestSeveralServersCombinedLane(t *testing.T) {
	s, err := Parse([]byte(issueExample("")))
	require.NoError(t, err)
	pol, err := ReplayLane(context.Background(), s, 0, Hooks{})
	require.NoError(t, err)
	assert.Equal(t, "15", pol.Peek(KeyOf(DefaultKey), 999).String())
	assert.Equal(t, "0", pol.Peek(KeyOf(DefaultKey), 1000).String(), "the next window")
}

// A lane's deployment is part of the scenario: it survives a link, and a
// replay taken up again decides as one from the start.
func TestSeveralServersReplayContinuesAndLinks(t *testing.T) {
	s, err := Parse([]byte(`{"limit": 3, "windowMs": 1000, "policies": [{"name": "sliding-log", "nodes": 4, "route": "random", "seed": 7, "syncMs": 250, "skewMs": [0, 100, -100, 300]}],
		"requests": [{"at": 0, "count": 6}, {"at": 300, "key": "b", "count": 5}, {"at": 900, "count": 7}, {"at": 1400, "count": 4}]}`))
	require.NoError(t, err)
	linked, err := DecodeParam(EncodeParam(s))
	require.NoError(t, err)
	assert.Equal(t, s, linked, "through a link")

	whole, err := Run(s)
	require.NoError(t, err)
	half := s
	half.Requests = s.Requests[:2]
	r, err := StartLane(half, 0)
	require.NoError(t, err)
	var got []Decision
	keep := Hooks{After: func(_ policies.Policy, d Decision) error { got = append(got, d); return nil }}
	require.NoError(t, r.Continue(context.Background(), half, keep))
	require.NoError(t, r.Continue(context.Background(), s, keep))
	require.Len(t, got, len(whole.Results[0].Decisions))
	for i, d := range got {
		w := whole.Results[0].Decisions[i]
		if d.Allowed() != w.Allowed() || d.Nodes.Node != w.Nodes.Node || d.Nodes.Unheard != w.Nodes.Unheard {
			t.Errorf("decision %d: continued (allowed %v, node %d, unheard %d), whole (%v, %d, %d)",
				i, d.Allowed(), d.Nodes.Node, d.Nodes.Unheard, w.Allowed(), w.Nodes.Node, w.Nodes.Unheard)
		}
	}

	moved := s
	moved.Policies = []PolicySpec{s.Policies[0]}
	moved.Policies[0].SyncMs = 500
	assert.ErrorContains(t, r.Continue(context.Background(), moved, keep), "settings changed", "a replay does not carry on under another sync")
}

// One server is the lane as it always was, byte for byte: "nodes": 1
// adds nothing to the answer.
func TestOneNodeAnswerIsUnchanged(t *testing.T) {
	answer := func(policy string) string {
		t.Helper()
		s, err := Parse([]byte(`{"limit": 2, "windowMs": 1000, "policies": [` + policy + `], "requests": [{"at": 0, "count": 3}, {"at": 10, "probe": true}]}`))
		require.NoError(t, err)
		res, err := Run(s)
		require.NoError(t, err)
		out, err := json.Marshal(res)
		require.NoError(t, err)
		return string(out)
	}
	plain := answer(`"gcra"`)
	assert.Equal(t, plain, answer(`{"name": "gcra", "nodes": 1}`))
	for _, field := range []string{`"node"`, `"unheard"`, `"oneServer"`, `"nodes"`} {
		assert.NotContains(t, plain, field)
	}
	several := answer(`{"name": "gcra", "nodes": 2}`)
	for _, field := range []string{`"node":`, `"unheard":`, `"oneServer":`, `"nodes":2`} {
		assert.Contains(t, several, field)
	}
}

func TestParseRejectsBadDeploymentNamingTheField(t *testing.T) {
	lane := func(fields string) string {
		return `{"limit": 5, "windowMs": 1000, "policies": ["gcra", {"name": "fixed-window", ` + fields + `}]}`
	}
	tests := []struct {
		name, in, field, reason string
	}{
		{"too many nodes", lane(`"nodes": 17`), "policies[1].nodes", "17 is out of range [1, 16]"},
		{"zero nodes", lane(`"nodes": 0`), "policies[1].nodes", "0 is out of range [1, 16]"},
		{"nodes not a number", lane(`"nodes": "three"`), "policies[1].nodes", "want a whole number"},
		{"unknown route", lane(`"nodes": 2, "route": "hash"`), "policies[1].route", `"hash" is none of "round-robin"`},
		{"seed without random", lane(`"nodes": 2, "seed": 3`), "policies[1].seed", `only route "random" draws from a seed`},
		{"seed 0 without random", lane(`"nodes": 2, "route": "key", "seed": 0`), "policies[1].seed", `this lane's route is "key"`},
		{"negative seed", lane(`"nodes": 2, "route": "random", "seed": -1`), "policies[1].seed", "want a whole number"},
		{"negative sync", lane(`"nodes": 2, "syncMs": -5`), "policies[1].syncMs", "-5 is out of range [0, 31622400000]"},
		{"sync over a year", lane(`"nodes": 2, "syncMs": 31622400001`), "policies[1].syncMs", "out of range"},
		{"central not a bool", lane(`"nodes": 2, "central": 1`), "policies[1].central", "want true or false"},
		{"skews short", lane(`"nodes": 3, "skewMs": [0, 300]`), "policies[1].skewMs", "2 entries for 3 nodes"},
		{"skews not numbers", lane(`"nodes": 2, "skewMs": [0, "1s"]`), "policies[1].skewMs", "want"},
		{"too many skews", lane(`"nodes": 2, "skewMs": [0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]`), "policies[1].skewMs", "17 entries"},
		{"skew too far", lane(`"nodes": 2, "skewMs": [0, -31622400001]`), "policies[1].skewMs[1]", "out of range"},
		{"sync on one server", lane(`"syncMs": 500`), "policies[1].syncMs", "applies to several servers only"},
		{"route on one server", lane(`"nodes": 1, "route": "key"`), "policies[1].route", "applies to several servers only"},
		{"skew on one server", lane(`"skewMs": [300]`), "policies[1].skewMs", "applies to several servers only"},
		{"the one policy", `{"limit": 5, "windowMs": 1000, "policy": {"name": "gcra", "nodes": 99}}`, "policy.nodes", "out of range"},
		{"too many instances", `{"limit": 5, "windowMs": 1000, "policies": [{"name": "gcra", "nodes": 16}, {"name": "gcra", "nodes": 16}, {"name": "gcra", "nodes": 16}]}`, "policies", "hold 54 policies across their nodes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in))
			var errs Errors
			require.ErrorAs(t, err, &errs)
			reason := errs.Field(tt.field)
			if !strings.Contains(reason, tt.reason) {
				t.Errorf("%s: reason = %q, want it to contain %q (all: %v)", tt.field, reason, tt.reason, err)
			}
		})
	}
}

func TestParseAcceptsDeployments(t *testing.T) {
	tests := []struct {
		name, fields string
		want         Deployment
	}{
		{"nodes alone", `"nodes": 3`, Deployment{Nodes: 3}},
		{"never syncing", `"nodes": 2, "syncMs": 0`, Deployment{Nodes: 2}},
		{"random with seed", `"nodes": 4, "route": "random", "seed": 18446744073709551615`, Deployment{Nodes: 4, Route: "random", Seed: 1<<64 - 1}},
		{"key route", `"nodes": 2, "route": "key", "syncMs": 100`, Deployment{Nodes: 2, Route: "key", SyncMs: 100}},
		// central keeps syncMs and skewMs, so a lane can flip central alone
		{"central", `"nodes": 2, "syncMs": 500, "central": true, "skewMs": [0, 300]`, Deployment{Nodes: 2, SyncMs: 500, Central: true, SkewMs: mustSkews(0, 300)}},
		{"central on one", `"central": true`, Deployment{Central: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse([]byte(`{"limit": 5, "windowMs": 1000, "policy": {"name": "sliding-log", ` + tt.fields + `}}`))
			require.NoError(t, err)
			assert.Equal(t, tt.want, s.Policies[0].Deployment)
			_, err = Run(s)
			require.NoError(t, err)
		})
	}
}

func TestSeveralServersLabel(t *testing.T) {
	tests := []struct {
		d    Deployment
		want string
	}{
		{Deployment{}, "gcra"},
		{Deployment{Nodes: 3, SyncMs: 500}, "gcra on 3 servers, sync 500 ms"},
		{Deployment{Nodes: 2}, "gcra on 2 servers, no sync"},
		{Deployment{Central: true}, "gcra on 1 server, central"},
		{Deployment{Nodes: 4, SyncMs: 1500, Route: "key", SkewMs: mustSkews(0, 0, 300, 0)}, "gcra on 4 servers, sync 1.5 s, route key, skewed"},
		{Deployment{Nodes: 4, Route: "round-robin", SkewMs: mustSkews(0, 0, 0, 0)}, "gcra on 4 servers, no sync"},
	}
	for _, tt := range tests {
		if got := (PolicySpec{Name: "gcra", Deployment: tt.d}).Label(Scenario{Limit: 5, WindowMs: 1000}); got != tt.want {
			t.Errorf("%+v: label = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func mustSkews(ms ...int64) Skews {
	s, ok := SkewsOf(ms...)
	if !ok {
		panic("too many skews")
	}
	return s
}

// The playground's preset says in its comment what each lane admits.
func TestSeveralServersPreset(t *testing.T) {
	data, err := os.ReadFile("../lessons/scenarios/several-servers.json")
	require.NoError(t, err)
	s, err := Parse(data)
	require.NoError(t, err)
	res, err := Run(s)
	require.NoError(t, err)
	var got []int
	for _, r := range res.Results {
		got = append(got, r.Admitted)
		if r.OneServer != nil && *r.OneServer != 10 {
			t.Errorf("%s: one server would admit %d, want 10", r.Label, *r.OneServer)
		}
	}
	// one server, syncing, never syncing, central
	assert.Equal(t, []int{10, 15, 24, 10}, got)
}

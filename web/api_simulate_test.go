package web

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/windowlab/playground/scenario"
)

func postJSON(t *testing.T, url, payload string) (int, http.Header, []byte) {
	t.Helper()
	res, err := http.Post(url, "application/json", strings.NewReader(payload))
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, res.Header, body
}

// The endpoint answers exactly what the simulate command prints with --json:
// both are scenario.Run on the decoded body.
func TestSimulateAnswersTheRunOfTheScenario(t *testing.T) {
	_, base, _ := newTestServer(t)
	body, err := os.ReadFile("../lessons/scenarios/car-park.json")
	require.NoError(t, err)

	status, header, got := postJSON(t, base+"/api/simulate", string(body))
	require.Equal(t, http.StatusOK, status, string(got))
	assert.Equal(t, "application/json; charset=utf-8", header.Get("Content-Type"))

	s, err := scenario.Parse(body)
	require.NoError(t, err)
	res, err := scenario.Run(s)
	require.NoError(t, err)
	want, err := json.Marshal(res)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got))
}

func TestSimulateRejectsBadScenariosWithTheField(t *testing.T) {
	_, base, logs := newTestServer(t)
	tests := []struct {
		name, body, field, reason string
	}{
		{"malformed", `{"limit": 5`, "", "malformed JSON"},
		{"unknown policy", `{"limit": 5, "windowMs": 1000, "policy": "leaky-bucket"}`, "policy", "unknown policy"},
		{"limit zero", `{"limit": 0, "windowMs": 1000}`, "limit", "out of range"},
		{"window negative", `{"limit": 5, "windowMs": -1}`, "windowMs", "out of range"},
		{"backwards", `{"limit": 5, "windowMs": 1000, "requests": [{"at": 10}, {"at": 5}]}`, "requests[1].at", "backwards"},
		{"count over bound", `{"limit": 5, "windowMs": 1000, "requests": [{"at": 0, "count": 20000}]}`, "requests[0].count", "out of range"},
		{"too many nodes", `{"limit": 5, "windowMs": 1000, "policies": [{"name": "fixed-window", "nodes": 17}]}`, "policies[0].nodes", "17 is out of range [1, 16]"},
		{"skews for other nodes", `{"limit": 5, "windowMs": 1000, "policies": [{"name": "fixed-window", "nodes": 3, "skewMs": [0, 300]}]}`, "policies[0].skewMs", "2 entries for 3 nodes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, _, got := postJSON(t, base+"/api/simulate", tt.body)
			require.Equal(t, http.StatusBadRequest, status, string(got))
			var body struct {
				Error  string
				Fields []struct{ Field, Reason string }
			}
			require.NoError(t, json.Unmarshal(got, &body), string(got))
			assert.Contains(t, body.Error, tt.reason)
			found := false
			for _, f := range body.Fields {
				found = found || (f.Field == tt.field && strings.Contains(f.Reason, tt.reason))
			}
			assert.True(t, found, "fields %+v: want %q with %q", body.Fields, tt.field, tt.reason)
		})
	}
	assert.NotContains(t, logs.String(), "level=ERROR", "bad input is the caller's problem, not the server's")
}

func TestSimulateWantsPOST(t *testing.T) {
	_, base, _ := newTestServer(t)
	res, err := http.Get(base + "/api/simulate")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, res.StatusCode)
}

// The example over HTTP: three servers that have not yet synced
// admit 15 of a limit of 5, a central store 5, each decision naming the
// node (from 1) that made it.
func TestSimulateSeveralServers(t *testing.T) {
	_, base, _ := newTestServer(t)
	tests := []struct {
		name, central     string
		admitted, unheard int
	}{
		{"local counting", "", 15, 10},
		{"central store", `, "central": true`, 5, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, _, got := postJSON(t, base+"/api/simulate", `{"limit": 5, "windowMs": 1000, "policies": [{"name": "fixed-window", "nodes": 3, "syncMs": 500`+tt.central+`}], "requests": [{"at": 0, "count": 15}]}`)
			require.Equal(t, http.StatusOK, status, string(got))
			var res struct {
				Results []struct {
					Admitted, OneServer int
					Decisions           []struct {
						Allowed       bool
						Node, Unheard int
					}
				}
			}
			require.NoError(t, json.Unmarshal(got, &res), string(got))
			require.Len(t, res.Results, 1)
			r := res.Results[0]
			assert.Equal(t, tt.admitted, r.Admitted, "admitted")
			assert.Equal(t, 5, r.OneServer, "one server")
			require.Len(t, r.Decisions, 15)
			for i, d := range r.Decisions {
				if d.Node != i%3+1 {
					t.Errorf("decision %d: node = %d, want %d", i, d.Node, i%3+1)
				}
			}
			assert.Equal(t, tt.unheard, r.Decisions[14].Unheard, "what the last node had not heard of")
		})
	}
}

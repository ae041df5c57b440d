package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runCmd runs the command as main would and returns its exit status and
// what it printed.
func runCmd(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	code = exitCode(err, &errOut)
	return code, out.String(), errOut.String()
}

// tableLines is simulate's table, its legend left out.
func tableLines(out string) []string {
	table, _, _ := strings.Cut(out, "\n\nIn brackets")
	return strings.Split(strings.TrimSpace(table), "\n")
}

func TestSimulateCarParkTable(t *testing.T) {
	code, out, errOut := runCmd(t, "", "simulate", "../../lessons/scenarios/car-park.json")
	require.Equal(t, 0, code, errOut)
	for _, label := range []string{"fixed-window", "sliding-log", "sliding-counter (floor)", "sliding-counter (exact)", "sliding-buckets (k=6)", "token-bucket", "gcra"} {
		assert.Contains(t, out, label)
	}
	assert.Contains(t, out, "admitted")
	// One line of legend per measure the brackets hold.
	assert.Contains(t, out, "\n  count (fixed-window against 5; sliding-log against 5): the requests the window held")
	assert.Contains(t, out, "\n  estimate (sliding-counter (floor) against 5; sliding-counter (exact) against 5; sliding-buckets (k=6) against 5): the weighted count")
	assert.Contains(t, out, "\n  in use (token-bucket against 5; gcra against 5): the permits in use")
}

// TestSimulateLegendSaysTheQueueMayPassTheLimit: the leaky bucket's level
// counts its queue and its head, so it may exceed the limit, and the
// legend says so.
func TestSimulateLegendSaysTheQueueMayPassTheLimit(t *testing.T) {
	in := `{"limit": 2, "windowMs": 1000, "policy": {"name": "leaky-bucket", "burst": 3}, "requests": [{"at": 0, "count": 5}]}`
	code, out, errOut := runCmd(t, in, "simulate")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "REFUSED (4,")
	assert.Contains(t, out, "\n  in the bucket (leaky-bucket (burst 3) against 4): the permits in the bucket before this one, the one being served included, compared with the burst + 1")
}

func TestSimulateJSONFromStdin(t *testing.T) {
	in := `{"limit": 1, "windowMs": 1000, "policy": "sliding-log", "requests": [{"at": 0, "count": 2}]}`
	code, out, errOut := runCmd(t, in, "simulate", "--json", "-")
	require.Equal(t, 0, code, errOut)
	var res struct {
		Results []struct {
			Policy    string
			Decisions []struct {
				Allowed      bool
				RetryAfterMs *int64
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	require.Len(t, res.Results, 1)
	require.Len(t, res.Results[0].Decisions, 2)
	assert.True(t, res.Results[0].Decisions[0].Allowed)
	assert.False(t, res.Results[0].Decisions[1].Allowed)
	require.NotNil(t, res.Results[0].Decisions[1].RetryAfterMs)
	assert.Equal(t, int64(1000), *res.Results[0].Decisions[1].RetryAfterMs)
}

// The example: three servers syncing every 500 ms each admit a
// full limit before the first sync tells them of the others; a central
// store admits the limit.
func TestSimulateSeveralServers(t *testing.T) {
	example := func(central string) string {
		return `{"limit": 5, "windowMs": 1000, "policies": [{"name": "fixed-window", "nodes": 3, "syncMs": 500` + central + `}], "requests": [{"at": 0, "count": 15}]}`
	}
	tests := []struct {
		name, central string
		admitted      int
		total         string // the table's totals row
	}{
		{"local counting", "", 15, "15 of 15 (one server: 5)"},
		{"central store", `, "central": true`, 5, "5 of 15 (one server: 5)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCmd(t, example(tt.central), "simulate", "--json")
			require.Equal(t, 0, code, errOut)
			var res struct {
				Results []struct {
					Admitted  int
					Decisions []struct{ Node int }
				}
			}
			require.NoError(t, json.Unmarshal([]byte(out), &res))
			require.Len(t, res.Results, 1)
			assert.Equal(t, tt.admitted, res.Results[0].Admitted, "admitted")
			require.Len(t, res.Results[0].Decisions, 15)
			assert.Equal(t, 3, res.Results[0].Decisions[2].Node, "the third request's node, from 1")

			code, out, errOut = runCmd(t, example(tt.central), "simulate")
			require.Equal(t, 0, code, errOut)
			lines := tableLines(out)
			assert.Contains(t, lines[0], "node")
			assert.Contains(t, lines[2], "node 2")
			assert.Contains(t, lines[len(lines)-1], tt.total)
		})
	}
}

func TestSimulateBadInputExitsTwo(t *testing.T) {
	tests := []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"malformed", `{"limit":`, []string{"simulate"}, "malformed JSON"},
		{"unknown policy", `{"limit": 5, "windowMs": 10, "policy": "tumbling"}`, []string{"simulate", "-"}, `policy: unknown policy "tumbling"`},
		{"zero limit", `{"limit": 0, "windowMs": 10}`, []string{"simulate"}, "limit: 0 is out of range"},
		{"backwards", `{"limit": 1, "windowMs": 10, "requests": [{"at": 9}, {"at": 3}]}`, []string{"simulate"}, "requests[1].at"},
		{"missing file", ``, []string{"simulate", "no-such-file.json"}, "no-such-file.json"},
		{"bad flag", ``, []string{"simulate", "--yaml"}, "usage: playground simulate"},
		{"two files", ``, []string{"simulate", "a", "b"}, "one scenario at a time (usage: playground simulate [--json] [--headers] [-redis URL] [FILE|-])"},
		{"unknown command", ``, []string{"simulat"}, `unknown command "simulat"`},
		{"too many nodes", `{"limit": 5, "windowMs": 1000, "policies": [{"name": "fixed-window", "nodes": 17}]}`, []string{"simulate"}, "policies[0].nodes: 17 is out of range [1, 16]"},
		{"seed without random", `{"limit": 5, "windowMs": 1000, "policy": {"name": "gcra", "nodes": 2, "seed": 4}}`, []string{"simulate"}, `policy.seed: only route "random"`},
		{"requests missing", `{"limit": 5, "windowMs": 1000}`, []string{"simulate"}, "requests: missing"},
		{"requests null", `{"limit": 5, "windowMs": 1000, "requests": null}`, []string{"simulate"}, "requests: missing"},
		{"limit twice", `{"limit": 5, "windowMs": 1000, "limit": 6, "requests": []}`, []string{"simulate"}, "limit: given twice"},
		{"buckets not dividing the window", `{"limit": 5, "windowMs": 30000, "policies": [{"name": "sliding-buckets", "buckets": 7}], "requests": []}`, []string{"simulate"}, "invalid scenario: policies[0].buckets: windowMs 30000 is not a multiple of buckets 7"},
		{"arithmetic unknown", `{"limit": 5, "windowMs": 30000, "policy": {"name": "sliding-counter", "arithmetic": "round"}, "requests": []}`, []string{"simulate"}, `invalid scenario: policy.arithmetic: arithmetic "round" is neither "floor" nor "exact"`},
		{"key twice in a request", `{"limit": 5, "windowMs": 1000, "requests": [{"at": 0}, {"at": 1, "key": "a", "key": "b"}]}`, []string{"simulate"}, "requests[1].key: given twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCmd(t, tt.stdin, tt.args...)
			assert.Equal(t, 2, code, "exit status; stderr: %s", errOut)
			assert.Empty(t, out)
			assert.Contains(t, errOut, tt.want)
		})
	}
}

func TestHelpPrintsUsageAndSucceeds(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "-h"}, "usage: playground simulate [--json] [--headers] [-redis URL] [FILE|-]"},
		{[]string{"simulate", "-h"}, "RateLimit-Policy and RateLimit fields of draft-ietf-httpapi-ratelimit-headers"},
		{[]string{"simulate", "--help"}, "print JSON instead of a table"},
		{[]string{"simulate", "-h"}, "burst: 0 to 10000 (0 = limit)"},
		{[]string{"simulate", "-h"}, "arithmetic: floor or exact (default floor)"},
		{[]string{"check", "-h"}, "usage: playground check FILE|-"},
		{[]string{"-h"}, "check FILE|-"},
		{[]string{"--help"}, `"playground COMMAND -h" describes a command`},
		{[]string{"help"}, "simulate " + simulateArgs}, // the synopsis simulate -h prints
		{[]string{"serve", "-h"}, "usage: playground serve [flags]"},
	} {
		code, out, errOut := runCmd(t, "", tt.args...)
		assert.Equal(t, 0, code, "%v: exit status; stderr: %s", tt.args, errOut)
		assert.Empty(t, out, "%v: the usage goes to standard error", tt.args)
		assert.Contains(t, errOut, tt.want, "%v", tt.args)
		assert.NotContains(t, errOut, "no such file", "%v", tt.args)
		assert.NotContains(t, errOut, "Usage of", "%v: the flag package's default usage names no command", tt.args)
	}
}

// TestSimulateDecidesTheQueue: nginx's worked example (rate=1r/s burst=5,
// eight at once) as simulate prints it, in the table and as JSON.
func TestSimulateDecidesTheQueue(t *testing.T) {
	in := `{"limit": 1, "windowMs": 1000, "policy": {"name": "leaky-bucket", "burst": 5}, "requests": [{"at": 0, "count": 8}]}`
	code, out, errOut := runCmd(t, in, "simulate", "-")
	require.Equal(t, 0, code, errOut)
	lines := tableLines(out)
	require.Len(t, lines, 1+8+1, "header, eight requests, totals")
	assert.Contains(t, lines[1], "admitted (0)")
	assert.NotContains(t, lines[1], "waits", "the first is served at once")
	for i := 2; i <= 6; i++ {
		assert.Contains(t, lines[i], "waits "+strconv.Itoa(i-1)+" s", "request %d", i)
	}
	for i := 7; i <= 8; i++ {
		assert.Contains(t, lines[i], "REFUSED (6, retry after 1 s)", "request %d", i)
	}
	code, out, errOut = runCmd(t, in, "simulate", "--json", "-")
	require.Equal(t, 0, code, errOut)
	var res struct {
		Results []struct {
			Decisions []struct {
				Allowed bool
				DelayMs int64
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	var delays []int64
	admitted := 0
	for _, d := range res.Results[0].Decisions {
		delays = append(delays, d.DelayMs)
		if d.Allowed {
			admitted++
		}
	}
	assert.Equal(t, []int64{0, 1000, 2000, 3000, 4000, 5000, 0, 0}, delays)
	assert.Equal(t, 6, admitted)
}

// TestSimulateLeakyBucketWithoutAQueue: "burst": 0 is nginx's limit_req
// without burst, one request per 6 s here and none queued; left out, the
// burst is the limit and the same requests wait instead. The run's params
// say 0 back, so that the output replays as the same scenario.
func TestSimulateLeakyBucketWithoutAQueue(t *testing.T) {
	in := `{"limit": 5, "windowMs": 30000, "policies": [{"name": "leaky-bucket", "burst": 0}, "leaky-bucket"],
		"requests": [{"at": 0}, {"at": 1}, {"at": 6000}, {"at": 6001}]}`
	code, out, errOut := runCmd(t, in, "simulate", "--json")
	require.Equal(t, 0, code, errOut)
	var run struct {
		Results []struct {
			Label     string
			Params    map[string]any
			Decisions []struct {
				Allowed      bool
				RetryAfterMs int64
				DelayMs      int64
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &run), out)
	require.Len(t, run.Results, 2)
	noQueue, queue := run.Results[0], run.Results[1]
	assert.Equal(t, "leaky-bucket (no queue)", noQueue.Label)
	assert.Equal(t, float64(0), noQueue.Params["burst"], "params %v", noQueue.Params)
	for i, want := range []struct {
		allowed bool
		retry   int64
	}{{true, 0}, {false, 5999}, {true, 0}, {false, 5999}} {
		d := noQueue.Decisions[i]
		assert.Equal(t, want.allowed, d.Allowed, "step %d: allowed", i)
		assert.Equal(t, want.retry, d.RetryAfterMs, "step %d: retryAfterMs", i)
		assert.Zero(t, d.DelayMs, "step %d: nothing waits without a queue", i)
	}
	for i, d := range queue.Decisions {
		assert.True(t, d.Allowed, "step %d: with the limit's queue, allowed = false, want true", i)
	}
	assert.Equal(t, int64(5999), queue.Decisions[1].DelayMs)
}

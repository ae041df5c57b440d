package main

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/windowlab/playground/internal/redistest"
	"github.com/windowlab/playground/scenario"
)

var carParkLabels = []string{"fixed-window", "sliding-log", "sliding-counter (floor)", "sliding-counter (exact)", "sliding-buckets (k=6)", "token-bucket", "gcra"}

func TestSimulateRedisAgrees(t *testing.T) {
	srv := redistest.Start(t)
	code, out, errOut := runCmd(t, "", "simulate", "-redis", "redis://"+srv.Addr, "../../lessons/scenarios/car-park.json")
	require.Equal(t, 0, code, errOut)
	_, redisPart, ok := strings.Cut(out, "Redis at "+srv.Addr)
	require.True(t, ok, out)
	for _, label := range carParkLabels {
		assert.Contains(t, redisPart, "  "+label+": 10 decisions, all as in Go\n")
	}
	n, err := srv.Client(t).DBSize(context.Background()).Result()
	require.NoError(t, err)
	assert.Zero(t, n, "keys left behind")
}

// TestSimulateRedisDecidesTheQueue: nginx's worked example through the
// leaky bucket's script, queued waits and refusals alike, as Go decides it.
func TestSimulateRedisDecidesTheQueue(t *testing.T) {
	srv := redistest.Start(t)
	in := `{"limit": 1, "windowMs": 1000, "policies": [{"name": "leaky-bucket", "burst": 5}, {"name": "leaky-bucket", "burst": 5, "delay": 2}],
		"requests": [{"at": 0, "count": 8}, {"at": 2500, "count": 3}]}`
	code, out, errOut := runCmd(t, in, "simulate", "-redis", "redis://"+srv.Addr, "-")
	require.Equal(t, 0, code, errOut)
	_, redisPart, ok := strings.Cut(out, "Redis at "+srv.Addr)
	require.True(t, ok, out)
	assert.Contains(t, redisPart, "  leaky-bucket (burst 5): 11 decisions, all as in Go\n")
	assert.Contains(t, redisPart, "  leaky-bucket (burst 5, delay 2): 11 decisions, all as in Go\n")
}

func TestSimulateRedisJSONKeepsStdoutJSON(t *testing.T) {
	srv := redistest.Start(t)
	code, out, errOut := runCmd(t, "", "simulate", "--json", "-redis", "redis://"+srv.Addr, "../../lessons/scenarios/car-park.json")
	require.Equal(t, 0, code, errOut)
	assert.True(t, strings.HasPrefix(out, "{"), out)
	assert.NotContains(t, out, "Redis at")
	assert.Contains(t, errOut, "gcra: 10 decisions, all as in Go")
}

func TestSimulateRedisUnavailable(t *testing.T) {
	srv := redistest.Start(t)
	srv.Stop()
	code, out, errOut := runCmd(t, "", "simulate", "-redis", "redis://"+srv.Addr, "../../lessons/scenarios/car-park.json")
	require.Equal(t, 1, code, "a check that compared nothing must not pass; stderr: %s", errOut)
	table, redisPart, ok := strings.Cut(out, "Redis at")
	require.True(t, ok, out)
	assert.Contains(t, table, "admitted", "the Go decisions are printed without Redis")
	for _, label := range carParkLabels {
		assert.Contains(t, redisPart, "  "+label+": Redis unavailable (")
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	assert.Contains(t, lines[len(lines)-1], "Redis at "+srv.Addr+" was unavailable", "said last")
}

// TestSimulateRedisDifferenceExitsOne: a decision Redis makes otherwise
// than Go (here Go's answer is altered, as a broken script would alter
// Redis's) fails the command, said after the lanes' lines.
func TestSimulateRedisDifferenceExitsOne(t *testing.T) {
	srv := redistest.Start(t)
	data, err := os.ReadFile("../../lessons/scenarios/car-park.json")
	require.NoError(t, err)
	s, err := scenario.Parse(data)
	require.NoError(t, err)
	res, err := scenario.Run(s)
	require.NoError(t, err)
	d := &res.Results[1].Decisions[2]
	d.Detail.Allowed = !d.Detail.Allowed
	opts, err := parseRedisURL("redis://" + srv.Addr)
	require.NoError(t, err)
	var out strings.Builder
	err = replayOnRedis(opts, s, res, &out)
	require.Error(t, err, out.String())
	assert.Contains(t, err.Error(), "decided lane "+res.Results[1].Label+" otherwise than Go")
	assert.Contains(t, out.String(), "  "+res.Results[1].Label+": 1 of ")
	assert.Contains(t, out.String(), "  "+res.Results[0].Label+": 10 decisions, all as in Go")
}

func TestSimulateRedisBadURLExitsTwo(t *testing.T) {
	code, _, errOut := runCmd(t, "", "simulate", "-redis", "http://example.com", "../../lessons/scenarios/car-park.json")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `-redis: "http://example.com" is not a Redis URL`)
}

// Redis is one store: a central lane is compared with it and agrees, a
// lane of servers counting on their own is not compared.
func TestSimulateRedisSeveralServers(t *testing.T) {
	srv := redistest.Start(t)
	code, out, errOut := runCmd(t, "", "simulate", "-redis", "redis://"+srv.Addr, "../../lessons/scenarios/several-servers.json")
	require.Equal(t, 0, code, errOut)
	_, redisPart, ok := strings.Cut(out, "Redis at "+srv.Addr)
	require.True(t, ok, out)
	assert.Contains(t, redisPart, "  fixed-window: 24 decisions, all as in Go\n")
	assert.Contains(t, redisPart, "  fixed-window on 3 servers, central: 24 decisions, all as in Go\n")
	assert.Contains(t, redisPart, "  fixed-window on 3 servers, sync 500 ms: not compared (Redis is one shared store")
	assert.Contains(t, redisPart, "  fixed-window on 3 servers, no sync: not compared (")
}

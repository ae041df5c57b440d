package main

import (
	"bytes"
	"context"
	"encoding/json"
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

func TestSimulateCarParkTable(t *testing.T) {
	code, out, errOut := runCmd(t, "", "simulate", "../../lessons/scenarios/car-park.json")
	require.Equal(t, 0, code, errOut)
	for _, label := range []string{"fixed-window", "sliding-log", "sliding-counter (floor)", "sliding-counter (exact)", "sliding-buckets (k=6)", "token-bucket", "gcra"} {
		assert.Contains(t, out, label)
	}
	assert.Contains(t, out, "admitted")
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

func TestSimulateBadInputExitsTwo(t *testing.T) {
	tests := []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"malformed", `{"limit":`, []string{"simulate"}, "malformed JSON"},
		{"unknown policy", `{"limit": 5, "windowMs": 10, "policy": "leaky"}`, []string{"simulate", "-"}, `policy: unknown policy "leaky"`},
		{"zero limit", `{"limit": 0, "windowMs": 10}`, []string{"simulate"}, "limit: 0 is out of range"},
		{"backwards", `{"limit": 1, "windowMs": 10, "requests": [{"at": 9}, {"at": 3}]}`, []string{"simulate"}, "requests[1].at"},
		{"missing file", ``, []string{"simulate", "no-such-file.json"}, "no-such-file.json"},
		{"bad flag", ``, []string{"simulate", "--yaml"}, "usage: playground simulate"},
		{"two files", ``, []string{"simulate", "a", "b"}, "one scenario at a time"},
		{"unknown command", ``, []string{"simulat"}, `unknown command "simulat"`},
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
		{[]string{"simulate", "-h"}, "usage: playground simulate [--json] [FILE|-]"},
		{[]string{"simulate", "--help"}, "print JSON instead of a table"},
		{[]string{"simulate", "-h"}, "burst: 0 to 10000 (0 = limit)"},
		{[]string{"simulate", "-h"}, "arithmetic: floor or exact (default floor)"},
		{[]string{"check", "-h"}, "usage: playground check FILE|-"},
		{[]string{"-h"}, "check FILE|-"},
		{[]string{"--help"}, `"playground COMMAND -h" describes a command`},
		{[]string{"help"}, "simulate [--json] [FILE|-]"},
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

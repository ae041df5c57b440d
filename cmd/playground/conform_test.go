package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/windowlab/playground/explain"
	"github.com/windowlab/playground/internal/redistest"
	"github.com/windowlab/playground/limiter"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// limitedServer is an endpoint limiting by X-Client-Key with the registry's
// token bucket on the real clock, answering 429 with a Retry-After in
// whole seconds that roundDown rounds down (the bug of brandur/redis-cell
// #48) instead of up.
func limitedServer(t *testing.T, p policies.Params, roundDown bool) string {
	t.Helper()
	lim, err := limiter.NewConcurrent(policies.TokenBucket, p, 1)
	require.NoError(t, err)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := scenario.KeyOf(r.Header.Get("X-Client-Key"))
		d := lim.Decide(key, time.Now().UnixMilli(), 1)
		if d.Allowed {
			return
		}
		ra := explain.RetryAfter(d.RetryAfterMs)
		if roundDown {
			ra = strconv.FormatInt(d.RetryAfterMs/1000, 10)
		}
		w.Header().Set("Retry-After", ra)
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// The endpoint's runs wait on real time (the server reads its clock): a
// refill every 500 ms against a tolerance of 150 ms leaves most decisions
// judgeable on a loaded machine.
var conformEndpointArgs = []string{"-policy", "token-bucket", "-limit", "2", "-window", "1000", "-tolerance", "150ms", "-max-requests", "40"}

func TestConformEndpointThatAgreesExitsZero(t *testing.T) {
	url := limitedServer(t, policies.Params{Limit: 2, WindowMs: 1000}, false)
	code, out, errOut := runCmd(t, "", append([]string{"conform", "-url", url}, conformEndpointArgs...)...)
	require.Equal(t, 0, code, "stdout: %s\nstderr: %s", out, errOut)
	assert.Contains(t, out, ": agrees")
}

func TestConformEndpointRoundingRetryAfterDownExitsOne(t *testing.T) {
	url := limitedServer(t, policies.Params{Limit: 2, WindowMs: 1000}, true)
	code, out, errOut := runCmd(t, "", append([]string{"conform", "-url", url}, conformEndpointArgs...)...)
	require.Equal(t, 1, code, "stdout: %s\nstderr: %s", out, errOut)
	assert.Contains(t, out, "smallest counterexample (3 requests")
	assert.Contains(t, out, "differs in retry-after: limiter 0 s, policy 1 s")
	assert.Contains(t, out, `{"limit":2,"windowMs":1000,"policy":{"burst":2,"name":"token-bucket"},"requests":[`)
	assert.Contains(t, errOut, "differs from token-bucket")
}

// conformLua is a fixed window in Lua after conform's argument convention,
// keeping its count with the instant its window ends.
const conformLua = `
local now, cost, limit, w = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local v = redis.call('GET', KEYS[1])
local count, ends = 0, 0
if v then count, ends = string.match(v, '^(%d+) (%d+)$'); count, ends = tonumber(count), tonumber(ends) end
if now >= ends then count = 0; ends = (math.floor(now / w) + 1) * w end
if count + cost > limit then return {0, ends - now, limit - count} end
count = count + cost
redis.call('SET', KEYS[1], string.format('%d %d', count, ends), 'PX', w)
return {1, 0, limit - count}
`

func TestConformRedisScript(t *testing.T) {
	srv := redistest.Start(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "window.lua")
	require.NoError(t, os.WriteFile(good, []byte(conformLua), 0o600))
	args := []string{"conform", "-redis", "redis://" + srv.Addr, "-policy", "fixed-window", "-limit", "3", "-window", "1000", "-reports", "retry-after,remaining"}
	code, out, errOut := runCmd(t, "", append(args, "-script", good)...)
	require.Equal(t, 0, code, "stdout: %s\nstderr: %s", out, errOut)
	assert.Contains(t, out, "agrees")

	// Off by one at the limit: count + cost >= limit refuses the last permit.
	bad := filepath.Join(dir, "off-by-one.lua")
	require.NoError(t, os.WriteFile(bad, []byte(strings.Replace(conformLua, "count + cost > limit", "count + cost >= limit", 1)), 0o600))
	code, out, errOut = runCmd(t, "", append(args, "-script", bad)...)
	require.Equal(t, 1, code, "stdout: %s\nstderr: %s", out, errOut)
	assert.Contains(t, out, "smallest counterexample (3 requests")
	assert.Contains(t, out, "differs in allowed: limiter false, policy true")
}

func TestConformBadInputExitsTwo(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"no target", []string{"-policy", "gcra", "-limit", "2", "-window", "1000"}, "give -url URL, or -redis URL and -script FILE"},
		{"unknown policy", []string{"-policy", "tumbling", "-limit", "2", "-window", "1000", "-url", "http://127.0.0.1:1/"}, `unknown policy "tumbling"`},
		{"no limit", []string{"-policy", "gcra", "-window", "1000", "-url", "http://127.0.0.1:1/"}, "limit"},
		{"another host", []string{"-policy", "gcra", "-limit", "2", "-window", "1000", "-url", "http://example.com/"}, "give -allow-host example.com"},
		{"bad reports", []string{"-policy", "gcra", "-limit", "2", "-window", "1000", "-url", "http://127.0.0.1:1/", "-reports", "colour"}, `"colour" is none of`},
		{"too many requests", []string{"-policy", "gcra", "-limit", "2", "-window", "1000", "-url", "http://127.0.0.1:1/", "-max-requests", "100000"}, "-max-requests 100000 is out of range"},
		{"delay neither number nor word", []string{"-policy", "leaky-bucket", "-limit", "2", "-window", "1000", "-url", "http://127.0.0.1:1/", "-delay", "soon"}, `-delay "soon" is neither a whole number nor "nodelay"`},
		{"delay above the burst", []string{"-policy", "leaky-bucket", "-limit", "2", "-window", "1000", "-url", "http://127.0.0.1:1/", "-burst", "2", "-delay", "3"}, "delay 3 is out of range [0, burst 2]"},
		{"arithmetic not a choice", []string{"-policy", "sliding-counter", "-limit", "2", "-window", "1000", "-url", "http://127.0.0.1:1/", "-arithmetic", "round"}, `arithmetic "round" is neither "floor" nor "exact"`},
		{"buckets not dividing", []string{"-policy", "sliding-buckets", "-limit", "2", "-window", "1000", "-url", "http://127.0.0.1:1/", "-buckets", "7"}, "windowMs 1000 is not a multiple of buckets 7"},
		{"both targets", []string{"-policy", "gcra", "-limit", "2", "-window", "1000", "-url", "http://127.0.0.1:1/", "-redis", "redis://127.0.0.1:1", "-script", "x.lua"}, "not both"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCmd(t, "", append([]string{"conform"}, tt.args...)...)
			assert.Equal(t, 2, code, "stdout: %s\nstderr: %s", out, errOut)
			assert.Contains(t, errOut, tt.want)
		})
	}
}

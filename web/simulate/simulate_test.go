package simulate

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/windowlab/playground/internal/webtest"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web"
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
	_, base, _ := newTestServer(t, API())
	body, err := os.ReadFile("../../lessons/scenarios/car-park.json")
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
	_, base, logs := newTestServer(t, API())
	tests := []struct {
		name, body, field, reason string
	}{
		{"malformed", `{"limit": 5`, "", "malformed JSON"},
		{"unknown policy", `{"limit": 5, "windowMs": 1000, "policy": "tumbling"}`, "policy", "unknown policy"},
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

// TestSimulateRefusesMissingRequestsAndFieldsGivenTwice: a run of no
// requests would answer 200 with nothing, and JSON keeps the last of two
// equal names silently; both are 400 naming the field, as is an option
// the policy refuses. (A server of its
// own: each address may run only so many scenarios a second.)
func TestSimulateRefusesMissingRequestsAndFieldsGivenTwice(t *testing.T) {
	_, base, _ := newTestServer(t, API())
	for _, tt := range []struct{ name, body, field, reason string }{
		{"requests missing", `{"limit": 5, "windowMs": 1000}`, "requests", "missing"},
		{"requests null", `{"limit": 5, "windowMs": 1000, "requests": null}`, "requests", "missing"},
		{"limit twice", `{"limit": 5, "limit": 7, "windowMs": 1000, "requests": []}`, "limit", "given twice"},
		{"burst twice", `{"limit": 5, "windowMs": 1000, "policies": [{"name": "gcra", "burst": 2, "burst": 3}], "requests": []}`, "policies[0].burst", "given twice"},
		// The policy's own refusals name the option, not the lane.
		{"buckets not dividing the window", `{"limit": 5, "windowMs": 30000, "policies": [{"name": "sliding-buckets", "buckets": 7}], "requests": []}`, "policies[0].buckets", "windowMs 30000 is not a multiple of buckets 7"},
		{"burst -1", `{"limit": 5, "windowMs": 1000, "policies": [{"name": "leaky-bucket", "burst": -1}], "requests": []}`, "policies[0].burst", "-1 is out of range"},
		{"no queue for a token bucket", `{"limit": 5, "windowMs": 1000, "policies": [{"name": "token-bucket", "burst": 0}], "requests": []}`, "policies[0].burst", "0 is not allowed"},
		{"arithmetic unknown", `{"limit": 5, "windowMs": 30000, "policies": [{"name": "fixed-window"}, {"name": "sliding-counter", "arithmetic": "round"}], "requests": []}`, "policies[1].arithmetic", `arithmetic "round" is neither "floor" nor "exact"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, _, got := postJSON(t, base+"/api/simulate", tt.body)
			require.Equal(t, http.StatusBadRequest, status, string(got))
			var body struct {
				Fields []struct{ Field, Reason string }
			}
			require.NoError(t, json.Unmarshal(got, &body), string(got))
			require.Len(t, body.Fields, 1, string(got))
			assert.Equal(t, tt.field, body.Fields[0].Field)
			assert.Contains(t, body.Fields[0].Reason, tt.reason)
		})
	}
}

func TestSimulateWantsPOST(t *testing.T) {
	_, base, _ := newTestServer(t, API())
	res, err := http.Get(base + "/api/simulate")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, res.StatusCode)
}

// TestSimulateServesOthersWhileASlowBodyDrips: a body sent a byte at a
// time holds no run slot (the server has one) while it arrives: another
// address's small scenarios are answered 200 meanwhile, and the dripping
// body is refused with 408 once web.BodyReadTimeout has passed.
func TestSimulateServesOthersWhileASlowBodyDrips(t *testing.T) {
	s, err := web.New(web.Config{DatastarPath: webtest.BundlePath(t), RunSlots: 1, BodyReadTimeout: 1500 * time.Millisecond,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, Features: []web.Feature{API()}}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)

	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	body := `{"limit": 5, "windowMs": 1000, "requests": [{"at": 0}]}`
	_, err = fmt.Fprintf(conn, "POST /api/simulate HTTP/1.1\r\nHost: test\r\nX-Forwarded-For: 198.51.100.66\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
	require.NoError(t, err)
	dripped, began := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(dripped)
		for i := range len(body) {
			if _, err := conn.Write([]byte{body[i]}); err != nil {
				return
			}
			if i == 0 {
				close(began)
			}
			time.Sleep(100 * time.Millisecond) // a slow client dripping a body over a real socket
		}
	}()
	select { // the drip has begun: its first byte is on the socket
	case <-began:
	case <-dripped:
	}
	for i := range 5 {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/simulate", strings.NewReader(body))
		req.Header.Set("X-Forwarded-For", "203.0.113.7")
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		got, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("step %d: another address's scenario while a body drips: status %d, want 200; %s", i+1, res.StatusCode, got)
		}
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	got, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(got), "did not arrive within") {
		t.Errorf("the dripping body: status %d, %s; want 408 saying it did not arrive in time", res.StatusCode, got)
	}
	conn.Close()
	<-dripped
}

// TestSimulateDecidesTheQueue: nginx's worked example (rate=1r/s burst=5,
// eight at once) through POST /api/simulate: the first passes at once, the
// next five are admitted with delayMs 1000 to 5000, the last two refused
// with a retry of 1000 and no wait.
// TestSimulateDecidesWithoutAQueue: nginx's limit_req without burst
// ("burst": 0) at 1r/s, eight at once: one passes, seven are refused with
// a retry of 1000 and no wait, and params say "burst": 0 back.
func TestSimulateDecidesWithoutAQueue(t *testing.T) {
	_, base, _ := newTestServer(t, API())
	status, _, body := postJSON(t, base+"/api/simulate",
		`{"limit": 1, "windowMs": 1000, "policy": {"name": "leaky-bucket", "burst": 0}, "requests": [{"at": 0, "count": 8}]}`)
	require.Equal(t, http.StatusOK, status, string(body))
	var got struct {
		Results []struct {
			Params    map[string]int64 `json:"params"`
			Decisions []struct {
				Allowed      bool  `json:"allowed"`
				RetryAfterMs int64 `json:"retryAfterMs"`
				DelayMs      int64 `json:"delayMs"`
			} `json:"decisions"`
		} `json:"results"`
	}
	require.NoError(t, json.Unmarshal(body, &got))
	require.Len(t, got.Results, 1)
	assert.Equal(t, map[string]int64{"limit": 1, "windowMs": 1000, "burst": 0, "delay": 0}, got.Results[0].Params)
	ds := got.Results[0].Decisions
	require.Len(t, ds, 8)
	for i, d := range ds {
		assert.Equal(t, i == 0, d.Allowed, "request %d: allowed", i+1)
		assert.Equal(t, int64(0), d.DelayMs, "request %d: delayMs", i+1)
		if i > 0 {
			assert.Equal(t, int64(1000), d.RetryAfterMs, "request %d: retryAfterMs", i+1)
		}
	}
}

func TestSimulateDecidesTheQueue(t *testing.T) {
	_, base, _ := newTestServer(t, API())
	status, _, body := postJSON(t, base+"/api/simulate",
		`{"limit": 1, "windowMs": 1000, "policy": {"name": "leaky-bucket", "burst": 5}, "requests": [{"at": 0, "count": 8}]}`)
	require.Equal(t, http.StatusOK, status, string(body))
	var got struct {
		Results []struct {
			Params    map[string]int64 `json:"params"`
			Decisions []struct {
				Allowed      bool   `json:"allowed"`
				RetryAfterMs *int64 `json:"retryAfterMs"`
				DelayMs      *int64 `json:"delayMs"`
			} `json:"decisions"`
		} `json:"results"`
	}
	require.NoError(t, json.Unmarshal(body, &got))
	require.Len(t, got.Results, 1)
	assert.Equal(t, map[string]int64{"limit": 1, "windowMs": 1000, "burst": 5, "delay": 0}, got.Results[0].Params)
	ds := got.Results[0].Decisions
	require.Len(t, ds, 8)
	for i, d := range ds {
		require.NotNil(t, d.DelayMs, "request %d: no delayMs", i+1)
		require.NotNil(t, d.RetryAfterMs, "request %d: no retryAfterMs", i+1)
		if i < 6 {
			assert.True(t, d.Allowed, "request %d: refused, want admitted", i+1)
			assert.Equal(t, int64(i)*1000, *d.DelayMs, "request %d: delayMs", i+1)
			continue
		}
		assert.False(t, d.Allowed, "request %d: admitted, want refused", i+1)
		assert.Equal(t, int64(1000), *d.RetryAfterMs, "request %d: retryAfterMs", i+1)
		assert.Equal(t, int64(0), *d.DelayMs, "request %d: a refusal waits for nothing", i+1)
	}
}

// The example over HTTP: three servers that have not yet synced
// admit 15 of a limit of 5, a central store 5, each decision naming the
// node (from 1) that made it.
func TestSimulateSeveralServers(t *testing.T) {
	_, base, _ := newTestServer(t, API())
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

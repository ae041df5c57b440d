package simulate

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/windowlab/playground/explain"
	"github.com/windowlab/playground/internal/ratelimittest"
	"github.com/windowlab/playground/scenario"
)

// TestSimulateAPIHeaders: with ?headers=true every decision of
// /api/simulate's answer carries the fields a server would send, the same
// bytes simulate --json --headers prints (explain.Run), each field read
// back with a structured-field parser; without it, none.
func TestSimulateAPIHeaders(t *testing.T) {
	_, base, _ := newTestServer(t, API())
	carPark, err := os.ReadFile("../../lessons/scenarios/car-park.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, query, body string
		headers           bool
		// want: one decision's fields, by policy label and request index.
		label string
		index int
		want  map[string]string
	}{
		{"token bucket of burst 10 refuses", "?headers=true",
			`{"limit": 5, "windowMs": 30000, "policies": [{"name": "token-bucket", "burst": 10}, {"name": "gcra", "burst": 10}], "requests": [{"at": 0, "count": 11}]}`, true,
			"token-bucket (burst 10)", 10, map[string]string{"Retry-After": "6", "RateLimit-Policy": `"token-bucket";q=10;w=60`, "RateLimit": `"token-bucket";r=0;t=6`}},
		{"leaky bucket queues", "?headers=1",
			`{"limit": 1, "windowMs": 1000, "policy": {"name": "leaky-bucket", "burst": 5}, "requests": [{"at": 0, "count": 3}, {"at": 400}]}`, true,
			"leaky-bucket (burst 5)", 3, map[string]string{"Server-Timing": `queue;dur=2600;desc="waited in the queue"`, "RateLimit-Policy": `"leaky-bucket";q=6;w=6`, "RateLimit": `"leaky-bucket";r=2;t=1`}},
		{"every policy of the car park", "?headers=true", string(carPark), true,
			"sliding-log", 5, map[string]string{"Retry-After": "5", "RateLimit": `"sliding-log";r=0;t=5`}},
		{"two servers: the deciding node's", "?headers=true",
			`{"limit": 5, "windowMs": 30000, "policies": [{"name": "fixed-window", "nodes": 2}], "requests": [{"at": 0, "count": 2}]}`, true,
			"fixed-window on 2 servers, no sync", 1, map[string]string{"RateLimit": `"fixed-window";r=4;t=30`}},
		{"not asked", "", string(carPark), false, "", 0, nil},
		{"asked not to", "?headers=false", string(carPark), false, "", 0, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, _, got := postJSON(t, base+"/api/simulate"+tt.query, tt.body)
			if status != http.StatusOK {
				t.Fatalf("status %d: %s", status, got)
			}
			s, err := scenario.Parse([]byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			run := scenario.RunContext
			if tt.headers {
				run = explain.Run
			}
			res, err := run(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(res)
			if strings.TrimSpace(string(got)) != string(want) {
				t.Errorf("answer differs from the run's JSON:\n%s\nwant\n%s", got, want)
			}
			if !tt.headers {
				if strings.Contains(string(got), `"headers"`) {
					t.Errorf("headers in an answer that did not ask for them")
				}
				return
			}
			var answer struct {
				Results []struct {
					Policy, Label string
					Decisions     []struct {
						Allowed bool
						Headers map[string]string
					}
				}
			}
			if err := json.Unmarshal(got, &answer); err != nil {
				t.Fatal(err)
			}
			found := false
			for pi, p := range answer.Results {
				for i, d := range p.Decisions {
					status := map[bool]string{true: "200 OK", false: "429 Too Many Requests"}[d.Allowed]
					hs := []scenario.Header{{Name: "Status", Value: status}}
					// The order a server sends them in, as the answer has it.
					for _, name := range []string{"Retry-After", "Server-Timing", "RateLimit-Policy", "RateLimit"} {
						if v, ok := d.Headers[name]; ok {
							hs = append(hs, scenario.Header{Name: name, Value: v})
						}
					}
					if len(hs)-1 != len(d.Headers) {
						t.Errorf("%s request %d: unexpected fields in %v", p.Label, i+1, d.Headers)
					}
					parsed := ratelimittest.Parse(t, hs)
					ratelimittest.CheckConsistent(t, p.Label+" request "+strconv.Itoa(i+1), res.Results[pi].Decisions[i], p.Policy, parsed)
					if p.Label != tt.label || i != tt.index {
						continue
					}
					found = true
					for name, v := range tt.want {
						if d.Headers[name] != v {
							t.Errorf("%s request %d: %s = %q, want %q", p.Label, i+1, name, d.Headers[name], v)
						}
					}
				}
			}
			if !found {
				t.Errorf("no request %d of %q in the answer", tt.index+1, tt.label)
			}
		})
	}
}

// TestSimulateAPIHeadersParameterIsABoolean: anything else is 400 naming
// the parameter, as a scenario's mistakes name their field.
func TestSimulateAPIHeadersParameterIsABoolean(t *testing.T) {
	_, base, _ := newTestServer(t, API())
	status, _, got := postJSON(t, base+"/api/simulate?headers=please", `{"limit": 5, "windowMs": 1000, "requests": []}`)
	if status != http.StatusBadRequest {
		t.Fatalf("status %d, want 400: %s", status, got)
	}
	var body struct {
		Fields []struct{ Field, Reason string }
	}
	if err := json.Unmarshal(got, &body); err != nil || len(body.Fields) != 1 || body.Fields[0].Field != "headers" || !strings.Contains(body.Fields[0].Reason, `"please"`) {
		t.Errorf("body %s (%v): want one field, headers, quoting the value", got, err)
	}
}

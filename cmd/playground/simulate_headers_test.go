package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/windowlab/playground/internal/ratelimittest"
	"github.com/windowlab/playground/scenario"
)

// headerBlocks reads the headers simulate --headers prints after its
// table: per policy's label, each request's fields, the status line named
// Status as explain.Headers names it.
func headerBlocks(t *testing.T, out string) map[string][][]scenario.Header {
	t.Helper()
	blocks := map[string][][]scenario.Header{}
	_, after, ok := strings.Cut(out, "\n\n")
	if strings.HasPrefix(after, "In brackets") { // the table's legend
		_, after, ok = strings.Cut(after, "\n\n")
	}
	if !ok {
		t.Fatalf("no headers after the table:\n%s", out)
	}
	label := ""
	for _, line := range strings.Split(strings.TrimRight(after, "\n"), "\n") {
		switch {
		case !strings.HasPrefix(line, " "):
			label = strings.TrimSpace(line)
		case strings.HasPrefix(line, "  #"):
			blocks[label] = append(blocks[label], nil)
		case strings.HasPrefix(line, "    HTTP/1.1 "):
			cur := &blocks[label][len(blocks[label])-1]
			*cur = append(*cur, scenario.Header{Name: "Status", Value: strings.TrimPrefix(line, "    HTTP/1.1 ")})
		default:
			name, value, ok := strings.Cut(strings.TrimSpace(line), ": ")
			if !ok || label == "" || len(blocks[label]) == 0 {
				t.Fatalf("line %q is not a header field under a request", line)
			}
			cur := &blocks[label][len(blocks[label])-1]
			*cur = append(*cur, scenario.Header{Name: name, Value: value})
		}
	}
	return blocks
}

// TestSimulateHeadersParse runs simulate --headers, as text and as JSON,
// and reads every decision's fields back with a structured-field parser:
// the two forms carry the same fields, and the ones each case names are
// what the policy's rule gives (worked in explain's TestHeadersFollowTheDraft).
func TestSimulateHeadersParse(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		// index and want: one decision's field values, by policy label.
		index int
		want  map[string]map[string]string
	}{
		{"a refused request of a token bucket of burst 10 and of gcra",
			`{"limit": 5, "windowMs": 30000, "policies": [{"name": "token-bucket", "burst": 10}, {"name": "gcra", "burst": 10}], "requests": [{"at": 0, "count": 11}]}`, 10,
			map[string]map[string]string{
				"token-bucket (burst 10)": {"Status": "429 Too Many Requests", "Retry-After": "6", "RateLimit-Policy": `"token-bucket";q=10;w=60`, "RateLimit": `"token-bucket";r=0;t=6`},
				"gcra (burst 10)":         {"Status": "429 Too Many Requests", "Retry-After": "6", "RateLimit-Policy": `"gcra";q=10;w=60`, "RateLimit": `"gcra";r=0;t=6`},
			}},
		{"a queued request of a leaky bucket",
			`{"limit": 1, "windowMs": 1000, "policy": {"name": "leaky-bucket", "burst": 5}, "requests": [{"at": 0, "count": 3}, {"at": 400}]}`, 3,
			map[string]map[string]string{
				"leaky-bucket (burst 5)": {"Status": "200 OK", "Server-Timing": `queue;dur=2600;desc="waited in the queue"`, "RateLimit-Policy": `"leaky-bucket";q=6;w=6`, "RateLimit": `"leaky-bucket";r=2;t=1`},
			}},
		{"the car park, every policy", mustRead(t, "../../lessons/scenarios/car-park.json"), 5,
			map[string]map[string]string{
				"sliding-log": {"Status": "429 Too Many Requests", "Retry-After": "5", "RateLimit": `"sliding-log";r=0;t=5`},
			}},
		{"two servers: the deciding node's own count",
			`{"limit": 5, "windowMs": 30000, "policies": [{"name": "fixed-window", "nodes": 2}], "requests": [{"at": 0, "count": 2}]}`, 1,
			map[string]map[string]string{
				// Node 2's first: 4 left of its 5, not the 3 of both together.
				"fixed-window on 2 servers, no sync": {"Status": "200 OK", "RateLimit": `"fixed-window";r=4;t=30`},
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, text, errOut := runCmd(t, tt.in, "simulate", "--headers", "-")
			if code != 0 {
				t.Fatalf("simulate --headers: exit %d: %s", code, errOut)
			}
			code, js, errOut := runCmd(t, tt.in, "simulate", "--headers", "--json", "-")
			if code != 0 {
				t.Fatalf("simulate --headers --json: exit %d: %s", code, errOut)
			}
			var res struct {
				Results []struct {
					Policy, Label string
					Decisions     []struct {
						Allowed bool
						Headers map[string]string
					}
				}
			}
			if err := json.Unmarshal([]byte(js), &res); err != nil {
				t.Fatal(err)
			}
			blocks := headerBlocks(t, text)
			if len(blocks) != len(res.Results) {
				t.Fatalf("%d policies' headers in the text, %d in the JSON", len(blocks), len(res.Results))
			}
			for _, p := range res.Results {
				texts := blocks[p.Label]
				if len(texts) != len(p.Decisions) {
					t.Fatalf("%s: %d responses in the text, %d decisions in the JSON", p.Label, len(texts), len(p.Decisions))
				}
				for i, d := range p.Decisions {
					hs := texts[i]
					got := ratelimittest.Parse(t, hs)
					if got.Policy != p.Policy || got.Limit != p.Policy {
						t.Errorf("%s request %d: the fields name %q and %q, want %q", p.Label, i+1, got.Policy, got.Limit, p.Policy)
					}
					if got.Status == "200 OK" != d.Allowed {
						t.Errorf("%s request %d: status %q, allowed %v", p.Label, i+1, got.Status, d.Allowed)
					}
					// The JSON object holds the same fields, the status
					// line aside (allowed says it).
					if len(d.Headers) != len(hs)-1 {
						t.Errorf("%s request %d: JSON headers %v, text %v", p.Label, i+1, d.Headers, hs)
					}
					for _, h := range hs[1:] {
						if d.Headers[h.Name] != h.Value {
							t.Errorf("%s request %d: JSON %s = %q, text %q", p.Label, i+1, h.Name, d.Headers[h.Name], h.Value)
						}
					}
					if i != tt.index || tt.want[p.Label] == nil {
						continue
					}
					for name, want := range tt.want[p.Label] {
						value := ""
						for _, h := range hs {
							if h.Name == name {
								value = h.Value
							}
						}
						if value != want {
							t.Errorf("%s request %d: %s = %q, want %q", p.Label, i+1, name, value, want)
						}
					}
				}
			}
			for label := range tt.want {
				if blocks[label] == nil {
					t.Errorf("no policy labelled %q in %v", label, blocks)
				}
			}
		})
	}
}

// Without --headers neither form has them: the JSON stays the contract it
// was.
func TestSimulateWithoutHeadersHasNone(t *testing.T) {
	in := `{"limit": 1, "windowMs": 1000, "requests": [{"at": 0, "count": 2}]}`
	for _, args := range [][]string{{"simulate", "-"}, {"simulate", "--json", "-"}} {
		code, out, errOut := runCmd(t, in, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if strings.Contains(out, "RateLimit") || strings.Contains(out, `"headers"`) {
			t.Errorf("%v printed headers:\n%s", args, out)
		}
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/windowlab/playground/internal/cli"
)

// edgeLog is a combined log with known answers at limit 10 per minute:
// client 10.0.0.1 sends twice the limit at a window edge, 10 requests in
// the last second of a minute and 10 in the first of the next; client
// 10.0.0.2 sends 5, well apart.
func edgeLog() string {
	var b strings.Builder
	edge := time.Date(2026, 12, 1, 12, 1, 0, 0, time.UTC)
	line := func(client string, at time.Time) {
		fmt.Fprintf(&b, "%s - - [%s] \"GET /api HTTP/1.1\" 200 10 \"-\" \"test\"\n", client, at.Format("02/Jan/2006:15:04:05 -0700"))
	}
	for range 10 {
		line("10.0.0.1", edge.Add(-time.Second))
	}
	for range 10 {
		line("10.0.0.1", edge)
	}
	for i := range 5 {
		line("10.0.0.2", edge.Add(time.Duration(i)*10*time.Second))
	}
	return b.String()
}

func runTrafficCmd(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), append([]string{"traffic"}, args...), strings.NewReader(stdin), &out, &errOut)
	code := cli.ExitCode("playground", err, &errOut)
	return out.String(), errOut.String(), code
}

// --json on a log with known answers gives them: fixed-window admits the
// whole burst across the edge (its known flaw), the sliding log and the
// token bucket only the limit; the quiet client is never refused.
func TestTrafficJSONKnownAnswers(t *testing.T) {
	out, errOut, code := runTrafficCmd(t, edgeLog(), "--json", "--limit", "10", "--window", "1m", "--policies", "fixed-window,sliding-log,token-bucket,gcra", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Log struct {
			Requests int `json:"requests"`
			Clients  int `json:"clients"`
		} `json:"log"`
		Policies []struct {
			Name           string `json:"name"`
			Requests       int    `json:"requests"`
			Admitted       int    `json:"admitted"`
			Refused        int    `json:"refused"`
			ClientsRefused int    `json:"clientsRefused"`
			Clients        []struct {
				Key                         string
				Requests, Admitted, Refused int
				Peak                        int
			} `json:"clients"`
		} `json:"policies"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Log.Requests != 25 || rep.Log.Clients != 2 {
		t.Errorf("log: %d requests from %d clients, want 25 from 2", rep.Log.Requests, rep.Log.Clients)
	}
	want := map[string][3]int{ // admitted, refused, clients refused
		"fixed-window": {25, 0, 0},
		"sliding-log":  {15, 10, 1},
		"token-bucket": {15, 10, 1},
		"gcra":         {15, 10, 1},
	}
	if len(rep.Policies) != len(want) {
		t.Fatalf("%d policies, want %d", len(rep.Policies), len(want))
	}
	for _, p := range rep.Policies {
		w := want[p.Name]
		if p.Requests != 25 || p.Admitted != w[0] || p.Refused != w[1] || p.ClientsRefused != w[2] {
			t.Errorf("%s: requests %d admitted %d refused %d clients refused %d, want 25, %d, %d, %d", p.Name, p.Requests, p.Admitted, p.Refused, p.ClientsRefused, w[0], w[1], w[2])
		}
		first := p.Clients[0]
		if first.Key != "10.0.0.1" || first.Requests != 20 || first.Refused != w[1] || first.Peak != 10 {
			t.Errorf("%s: first client %+v, want 10.0.0.1 with 20 requests, %d refused, peak 10", p.Name, first, w[1])
		}
	}
}

// --fit names the smallest limit at which no client is refused: 20 for
// fixed-window is wrong (it needs only 10), the sliding log needs 20.
func TestTrafficFit(t *testing.T) {
	out, errOut, code := runTrafficCmd(t, edgeLog(), "--json", "--fit", "clients:0%", "--window", "1m", "--policies", "fixed-window,sliding-log", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Policies []struct {
			Name  string
			Limit int
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(rep.Policies); got != "[{fixed-window 10} {sliding-log 20}]" {
		t.Errorf("fit = %s, want fixed-window 10 and sliding-log 20", got)
	}
}

// --fit on a busier log finds, for every policy and target, the limit a
// brute-force search finds: a replay (full decisions, not the verdicts a
// fit decides by) at every limit from 1 up, the first that meets it.
func TestTrafficFitIsBruteForce(t *testing.T) {
	var b strings.Builder
	start := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for i := range 400 {
		// Four clients, unevenly busy (i² mod 7 is 0, 1, 2 or 4), about
		// four requests a second in time order, every 50th line 5 s late.
		client := fmt.Sprintf("10.0.0.%d", i*i%7)
		at := start.Add(time.Duration(i/4*1000+i%4*10) * time.Millisecond)
		if i%50 == 49 {
			at = at.Add(-5 * time.Second)
		}
		fmt.Fprintf(&b, "%s - - [%s] \"GET / HTTP/1.1\" 200 1 \"-\" \"t\"\n", client, at.Format("02/Jan/2006:15:04:05 -0700"))
	}
	log := b.String()
	type point struct{ clients, requests, refused, refusedClients int }
	brute := map[string][]point{} // by policy, index limit-1
	for limit := 1; limit <= 40; limit++ {
		out, errOut, code := runTrafficCmd(t, log, "--json", "--limit", fmt.Sprint(limit), "--window", "12s", "-")
		if code != 0 {
			t.Fatalf("limit %d: exit %d: %s", limit, code, errOut)
		}
		var rep struct {
			Log      struct{ Clients int }
			Policies []struct {
				Name                              string
				Requests, Refused, ClientsRefused int
			}
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		for _, p := range rep.Policies {
			brute[p.Name] = append(brute[p.Name], point{rep.Log.Clients, p.Requests, p.Refused, p.ClientsRefused})
		}
	}
	met, fits := 0, 0
	for _, tc := range []struct {
		target string
		met    func(point) bool
	}{
		{"clients:0%", func(p point) bool { return p.refusedClients == 0 }},
		{"clients:80%", func(p point) bool { return float64(p.refusedClients) <= 0.8*float64(p.clients) }},
		{"requests:5%", func(p point) bool { return float64(p.refused) <= 0.05*float64(p.requests) }},
	} {
		out, errOut, code := runTrafficCmd(t, log, "--json", "--fit", tc.target, "--window", "12s", "-")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.target, code, errOut)
		}
		var rep struct {
			Policies []struct {
				Name  string
				Limit int
			}
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		for _, f := range rep.Policies {
			fits++
			want := 0
			for i, p := range brute[f.Name] {
				if tc.met(p) {
					want = i + 1
					break
				}
			}
			if want == 0 {
				// The log's times go back and forth: sliding-buckets refuses
				// a late request whose bucket no longer counts at any limit.
				if f.Limit != 0 && f.Limit <= 40 {
					t.Errorf("%s, %s: --fit = %d, but no limit up to 40 meets it", tc.target, f.Name, f.Limit)
				}
				continue
			}
			met++
			if f.Limit != want {
				t.Errorf("%s, %s: --fit = %d, a replay at every limit finds %d", tc.target, f.Name, f.Limit, want)
			}
		}
	}
	if met < 15 {
		t.Errorf("only %d of %d fits had a limit up to 40 to compare with", met, fits)
	}
}

// A client's slice is a scenario simulate runs.
func TestTrafficScenarioOfRunsInSimulate(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := runTrafficCmd(t, edgeLog(), "--scenario-of", "10.0.0.1", "--limit", "10", "--policies", "sliding-log", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	path := filepath.Join(dir, "s.json")
	if err := os.WriteFile(path, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	var sim bytes.Buffer
	if err := run(context.Background(), []string{"simulate", "--json", path}, nil, &sim, &bytes.Buffer{}); err != nil {
		t.Fatalf("simulate: %v\n%s", err, out)
	}
	var res struct {
		Results []struct{ Admitted, Refused int }
	}
	if err := json.Unmarshal(sim.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 1 || res.Results[0].Admitted != 10 || res.Results[0].Refused != 10 {
		t.Errorf("simulate of the slice = %+v, want 10 admitted and 10 refused", res.Results)
	}
}

// Bad input exits 2 with a message naming what was wrong; a log with some
// unreadable lines still answers, and says which.
func TestTrafficBadInput(t *testing.T) {
	for _, tc := range []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"no readable line", "hello world\nfoo\n", []string{"--format", "common", "-"}, "no line of standard input could be read as common"},
		{"unknown policy", edgeLog(), []string{"--policies", "fixed-windw", "-"}, "unknown policy"},
		{"limit out of range", edgeLog(), []string{"--limit", "0", "-"}, "limit"},
		{"bad key", edgeLog(), []string{"--key", "cookie", "-"}, "unknown part"},
		{"key the format lacks", edgeLog(), []string{"--key", "header:X", "-"}, "no header"},
		{"bad sweep", edgeLog(), []string{"--sweep", "10:5", "-"}, "FROM:TO:STEP"},
		{"bad fit", edgeLog(), []string{"--fit", "users:1%", "-"}, "clients:SHARE"},
		{"missing file", "", []string{"/nonexistent/access.log"}, "no such file"},
		{"unknown client", edgeLog(), []string{"--scenario-of", "10.9.9.9", "-"}, "no request of client"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := runTrafficCmd(t, tc.stdin, tc.args...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, tc.want)
			}
		})
	}
	out, errOut, code := runTrafficCmd(t, "garbage line\n"+edgeLog()+"more garbage\n", "--limit", "10", "-")
	if code != 0 || !strings.Contains(out, "2 lines unreadable and left out: line 1: ") || !strings.Contains(out, "; line 27: ") {
		t.Errorf("exit %d, stderr %q, output:\n%s\nwant the unreadable lines 1 and 27 named", code, errOut, out)
	}
}

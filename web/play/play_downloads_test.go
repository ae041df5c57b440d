package play

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/windowlab/playground/play"
)

func TestNeutraliseCell(t *testing.T) {
	tests := []struct{ in, want string }{
		{`=cmd|' /C calc'!A0`, `'=cmd|' /C calc'!A0`},
		{"+1", "'+1"},
		{"-1+2", "'-1+2"},
		{"@SUM(A1)", "'@SUM(A1)"},
		{"\tx", "'\tx"},
		{"\rx", "'\rx"},
		{"car-a", "car-a"},
		{"a=b", "a=b"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := neutraliseCell(tt.in); got != tt.want {
			t.Errorf("neutraliseCell(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestDecisionsCSVNeutralisesFormulas downloads the decisions of a linked
// scenario whose key is a spreadsheet formula: the key column must hold it
// quoted, never as a formula.
func TestDecisionsCSVNeutralisesFormulas(t *testing.T) {
	_, base, _ := newTestServer(t, Playground(play.NewStore(nil)))
	const key = `=cmd|' /C calc'!A0`
	sc := `{"limit":2,"windowMs":1000,"policy":"fixed-window","requests":[{"at":0,"key":` + jsonString(key) + `},{"at":1,"key":"@x"}]}`
	res, err := http.Get(base + "/play/decisions.csv?s=" + url.QueryEscape(sc))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET decisions.csv = %d", res.StatusCode)
	}
	rows, err := csv.NewReader(res.Body).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("%d rows, want a header and 2", len(rows))
	}
	for i, want := range []string{"'" + key, "'@x"} {
		if got := rows[i+1][2]; got != want {
			t.Errorf("row %d: key cell = %q, want %q", i+1, got, want)
		}
	}
}

func jsonString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// TestDecisionsCSVHasTheWait: the download's delay_ms column holds each
// admitted request's wait in the queue, and 0 for a refusal, as
// decisions.json writes it.
func TestDecisionsCSVHasTheWait(t *testing.T) {
	_, base, _ := newTestServer(t, Playground(play.NewStore(nil)))
	sc := `{"limit":1,"windowMs":1000,"policy":{"name":"leaky-bucket","burst":2},"requests":[{"at":0,"count":4}]}`
	res, err := http.Get(base + "/play/decisions.csv?s=" + url.QueryEscape(sc))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	rows, err := csv.NewReader(res.Body).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 5 || rows[0][7] != "delay_ms" {
		t.Fatalf("rows = %q, want a header with delay_ms eighth and 4 rows", rows)
	}
	for i, want := range []string{"0", "1000", "2000", "0"} {
		if got := rows[i+1][7]; got != want {
			t.Errorf("request %d: delay_ms = %q, want %q", i+1, got, want)
		}
	}
}

// TestDecisionsCSVSpellsAsTheJSON downloads one scenario's decisions both
// ways: each CSV cell is the JSON field's value in the same characters
// (a string without its quotes; empty where the JSON has null or leaves
// the field out), and the fractional estimate reads 1.5 and 3/2 in both.
func TestDecisionsCSVSpellsAsTheJSON(t *testing.T) {
	_, base, _ := newTestServer(t, Playground(play.NewStore(nil)))
	// Sliding counter, 2 per second: two at 0 s fill the first window; at
	// 1.25 s the estimate is 2 × 3/4 = 3/2 (the probe asks, the request is
	// refused, 3/2 + 1 > 2); a request costing 5 can never pass.
	sc := `{"limit":2,"windowMs":1000,"policies":[{"name":"sliding-counter","arithmetic":"exact"}],"requests":[{"at":0,"count":2},{"at":1250,"probe":true},{"at":1250},{"at":1300,"cost":5}]}`
	get := func(name string) []byte {
		t.Helper()
		res, err := http.Get(base + "/play/" + name + "?s=" + url.QueryEscape(sc))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s = %d", name, res.StatusCode)
		}
		b, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var out struct {
		Results []struct {
			Decisions []map[string]json.RawMessage `json:"decisions"`
		} `json:"results"`
	}
	if err := json.Unmarshal(get("decisions.json"), &out); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(get("decisions.csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != 1 || len(rows) != 1+len(out.Results[0].Decisions) || len(out.Results[0].Decisions) != 5 {
		t.Fatalf("%d CSV rows for %d policies' decisions, want a header and 5 rows", len(rows), len(out.Results))
	}
	column := map[string]string{"at": "at_ms", "cost": "cost", "allowed": "allowed", "retryAfterMs": "retry_after_ms",
		"delayMs": "delay_ms", "estimate": "estimate", "estimateExact": "estimate_exact", "capacity": "capacity", "probe": "probe", "key": "key"}
	index := map[string]int{}
	for i, h := range rows[0] {
		index[h] = i
	}
	for i, d := range out.Results[0].Decisions {
		row := rows[i+1]
		for field, col := range column {
			at, ok := index[col]
			if !ok {
				t.Fatalf("the CSV has no column %s (header %q)", col, rows[0])
			}
			want := strings.Trim(string(d[field]), `"`)
			if want == "null" {
				want = ""
			}
			if row[at] != want {
				t.Errorf("request %d: %s = %q in the CSV, %s = %s in the JSON", i+1, col, row[at], field, d[field])
			}
		}
	}
	if got := rows[4][index["estimate"]] + " " + rows[4][index["estimate_exact"]]; got != "1.5 3/2" {
		t.Errorf("request 4: estimate and estimate_exact = %q, want \"1.5 3/2\"", got)
	}
}

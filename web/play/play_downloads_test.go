package play

import (
	"encoding/csv"
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
// admitted request's wait in the queue, empty for a refusal.
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
	for i, want := range []string{"0", "1000", "2000", ""} {
		if got := rows[i+1][7]; got != want {
			t.Errorf("request %d: delay_ms = %q, want %q", i+1, got, want)
		}
	}
}

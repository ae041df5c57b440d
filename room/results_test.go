package room

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestResultsRows: a revealed first-admit question about two lanes of the
// car park, answered by two devices, gives per lane its truth and a tally
// row per value given, then each device's answers in the order they came,
// every number as the question's JSON spells it.
func TestResultsRows(t *testing.T) {
	q, err := newQuestion(3, Ask{Kind: KindFirstAdmit, At: 26_000, Key: "car", Lanes: []int{0, 1}}, carPark(), DefaultBounds(), t0)
	if err != nil {
		t.Fatal(err)
	}
	q.Answers = map[string]Answer{
		"late":  {Values: []int64{31_000, 55_000}, At: t0.Add(2 * time.Second)},
		"early": {Values: []int64{30_000, Never}, At: t0.Add(time.Second)},
	}
	if _, err := q.Results(); !errors.Is(err, ErrNotRevealed) {
		t.Fatalf("before the reveal: Results = %v, want ErrNotRevealed", err)
	}
	sol, err := q.Solve(carPark())
	if err != nil {
		t.Fatal(err)
	}
	q.Revealed, q.Truth = true, sol.Truth // 30 s for the fixed window, 55 s for the log
	rows, err := q.Results()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rows[0], ResultsHeader) {
		t.Fatalf("row 0 = %v, want the header %v", rows[0], ResultsHeader)
	}
	fw, log := q.Label(0), q.Label(1)
	early, late := DeviceName("early"), DeviceName("late")
	// lane, row, device, value, count, right; the question's columns and
	// the meaning are checked below.
	want := [][]string{
		{fw, "truth", "", "30000", "", "true"},
		{fw, "tally", "", "30000", "1", "true"},
		{fw, "tally", "", "31000", "1", "false"},
		{log, "truth", "", "55000", "", "true"},
		{log, "tally", "", "-1", "1", "false"},
		{log, "tally", "", "55000", "1", "true"},
		{fw, "answer", early, "30000", "", "true"},
		{log, "answer", early, "-1", "", "false"},
		{fw, "answer", late, "31000", "", "false"},
		{log, "answer", late, "55000", "", "true"},
	}
	if Never != -1 {
		t.Fatalf("Never = %d; this table spells it -1", Never)
	}
	if len(rows)-1 != len(want) {
		t.Fatalf("%d rows after the header, want %d: %q", len(rows)-1, len(want), rows[1:])
	}
	col := func(name string) int { return slices.Index(ResultsHeader, name) }
	for i, w := range want {
		r := rows[i+1]
		if len(r) != len(ResultsHeader) {
			t.Fatalf("row %d has %d fields, want %d", i+1, len(r), len(ResultsHeader))
		}
		got := []string{r[col("lane")], r[col("row")], r[col("device")], r[col("value")], r[col("count")], r[col("right")]}
		if !slices.Equal(got, w) {
			t.Errorf("row %d = %q, want %q", i+1, got, w)
		}
		if q := []string{r[col("question")], r[col("kind")], r[col("at_ms")], r[col("cost")], r[col("n")]}; !slices.Equal(q, []string{"3", "first-admit", "26000", "1", "1"}) {
			t.Errorf("row %d: question columns %q, want 3 first-admit 26000 1 1", i+1, q)
		}
		if m := r[col("meaning")]; m == "" || m == r[col("value")] {
			t.Errorf("row %d: meaning %q, want the kind's words for %s", i+1, m, r[col("value")])
		}
	}
	if m := rows[5][col("meaning")]; !strings.Contains(m, "never") && !strings.Contains(m, "Never") {
		t.Errorf("the Never value's meaning is %q, want it to say never", m)
	}
	// The same values as the question's JSON spells them.
	b, err := json.Marshal(q)
	if err != nil {
		t.Fatal(err)
	}
	var j struct {
		Truth   []json.RawMessage `json:"truth"`
		Answers map[string]struct {
			Values []json.RawMessage `json:"values"`
		} `json:"answers"`
		Request struct {
			At json.RawMessage `json:"at"`
		} `json:"request"`
	}
	if err := json.Unmarshal(b, &j); err != nil {
		t.Fatal(err)
	}
	if got := rows[1][col("value")]; got != string(j.Truth[0]) {
		t.Errorf("the fixed window's truth is %s in the CSV, %s in the JSON", got, j.Truth[0])
	}
	if got := rows[8][col("value")]; got != string(j.Answers["early"].Values[1]) {
		t.Errorf("the early device's Never is %s in the CSV, %s in the JSON", got, j.Answers["early"].Values[1])
	}
	if got := rows[1][col("at_ms")]; got != string(j.Request.At) {
		t.Errorf("the question's instant is %s in the CSV, %s in the JSON", got, j.Request.At)
	}
	var nilQ *Question
	if _, err := nilQ.Results(); !errors.Is(err, ErrNoQuestion) {
		t.Errorf("no question: Results = %v, want ErrNoQuestion", err)
	}
}

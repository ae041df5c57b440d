package room

import (
	"encoding/csv"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/windowlab/playground/room"
)

// TestRoomQuestionCSV: the presenter downloads a revealed question's
// tally and answers as CSV; the rows parse with encoding/csv, hold each
// lane's truth as the room's JSON spells it, a tally that counts both
// phones in every lane and one answer row per phone and lane. Before the
// reveal the download is refused (409), and to an attendee always (403).
func TestRoomQuestionCSV(t *testing.T) {
	fx := newRoomFixture(t, nil)
	presenter := fx.device(t)
	id, _, sess := fx.startRoom(t, presenter)
	lanes := len(sess.Scenario().Specs())
	if res := presenter.get("/room/" + id + "/question.csv"); res.status != http.StatusConflict || !strings.Contains(res.body, "No question is open") {
		t.Errorf("with no question: status %d, want 409 saying there is no question; %.300s", res.status, res.body)
	}
	if res := presenter.post("/room/"+id+"/ask", `{"askKind":"admit","askAt":"36 s","cost":1}`); res.status != http.StatusOK {
		t.Fatalf("ask: status %d: %s", res.status, res.header.Get("X-Problem"))
	}
	phones := []*device{fx.joined(t, id), fx.joined(t, id)}
	for i, p := range phones {
		if res := p.post("/room/"+id+"/answer?q=1", signalsFor(1, lanes, strconv.Itoa(i))); res.status != http.StatusOK {
			t.Fatalf("phone %d: answer status %d: %.300s", i, res.status, res.body)
		}
	}
	if res := presenter.get("/room/" + id + "/question.csv"); res.status != http.StatusConflict || !strings.Contains(res.body, "reveal it first") {
		t.Errorf("before the reveal: status %d, want 409 saying to reveal first; %.300s", res.status, res.body)
	}
	if res := presenter.post("/room/"+id+"/reveal", `{}`); res.status != http.StatusOK {
		t.Fatalf("reveal: status %d: %s", res.status, res.header.Get("X-Problem"))
	}
	if res := phones[0].get("/room/" + id + "/question.csv"); res.status != http.StatusForbidden {
		t.Errorf("an attendee downloading the results: status %d, want 403", res.status)
	}
	res := presenter.get("/room/" + id + "/question.csv")
	if res.status != http.StatusOK {
		t.Fatalf("the presenter's download: status %d; %.300s", res.status, res.body)
	}
	if ct := res.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		t.Errorf("Content-Type %q, want text/csv", ct)
	}
	if cd := res.header.Get("Content-Disposition"); !strings.Contains(cd, "attachment") || !strings.Contains(cd, "question-1.csv") {
		t.Errorf("Content-Disposition %q, want an attachment named …question-1.csv", cd)
	}
	rows, err := csv.NewReader(strings.NewReader(res.body)).ReadAll()
	if err != nil {
		t.Fatalf("the CSV does not parse: %v\n%s", err, res.body)
	}
	if len(rows) == 0 || !slices.Equal(rows[0], room.ResultsHeader) {
		t.Fatalf("header %v, want %v", rows, room.ResultsHeader)
	}
	col := func(name string) int { return slices.Index(rows[0], name) }
	rm, err := fx.rooms.ByID(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(rm.Question)
	if err != nil {
		t.Fatal(err)
	}
	var j struct {
		Truth []json.RawMessage `json:"truth"`
	}
	if err := json.Unmarshal(b, &j); err != nil || len(j.Truth) != lanes {
		t.Fatalf("the question's JSON: %v, %d truths for %d lanes", err, len(j.Truth), lanes)
	}
	truths, answers := 0, 0
	tallied := map[string]int{}
	for n, r := range rows[1:] {
		lane := -1
		for i := range rm.Question.Lanes {
			if rm.Question.Label(i) == r[col("lane")] {
				lane = i
			}
		}
		if lane < 0 {
			t.Fatalf("row %d: lane %q is none of the question's", n+1, r[col("lane")])
		}
		switch r[col("row")] {
		case "truth":
			if r[col("value")] != string(j.Truth[lane]) {
				t.Errorf("row %d: lane %s's truth %s, the JSON says %s", n+1, r[col("lane")], r[col("value")], j.Truth[lane])
			}
			truths++
		case "tally":
			c, err := strconv.Atoi(r[col("count")])
			if err != nil {
				t.Errorf("row %d: count %q: %v", n+1, r[col("count")], err)
			}
			tallied[r[col("lane")]] += c
		case "answer":
			if want := strconv.FormatBool(r[col("value")] == string(j.Truth[lane])); r[col("right")] != want {
				t.Errorf("row %d: right %s for %s against the truth %s", n+1, r[col("right")], r[col("value")], j.Truth[lane])
			}
			answers++
		default:
			t.Errorf("row %d: row kind %q, want truth, tally or answer", n+1, r[col("row")])
		}
	}
	if truths != lanes || answers != 2*lanes {
		t.Errorf("%d truth rows and %d answer rows, want %d and %d", truths, answers, lanes, 2*lanes)
	}
	for i := range rm.Question.Lanes {
		if got := tallied[rm.Question.Label(i)]; got != 2 {
			t.Errorf("lane %s: the tally counts %d answers, want 2", rm.Question.Label(i), got)
		}
	}
}

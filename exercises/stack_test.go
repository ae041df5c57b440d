package exercises

import (
	"strconv"
	"strings"
	"testing"
)

// A stack question counts what the scenario's lanes admit in turn: a
// request refused by the first lane costs the second nothing.
func TestStackQuestionCountsWhatEveryLaneAdmits(t *testing.T) {
	// Lane 1, 2 per second, admits all six (two in each second); lane 2, 3
	// per 10 s, sees all six and admits the first three. Lane 1 alone
	// would say 6, lane 2 alone 3; adding a third request at 0 s, which
	// lane 1 refuses, must leave lane 2's three untouched.
	const two = `{"title": "t", "question": "q", "ask": "stack", "scenario": {"limit": 2, "windowMs": 1000,
		"policies": ["fixed-window", {"name": "fixed-window", "limit": 3, "windowMs": 10000}],
		"requests": [{"at": 0, "count": %s}, {"at": 1000, "count": 2}, {"at": 2000, "count": 2}]}}`
	for _, tt := range []struct {
		atZero string
		want   int
		notes  []string // the trace's note for each request
	}{
		{"2", 3, []string{"every lane admits it", "every lane admits it", "every lane admits it", "the lanes before it admitted it", "the lanes before it admitted it", "the lanes before it admitted it"}},
		{"3", 3, []string{"every lane admits it", "every lane admits it", "the first lane; the lanes after it are not asked", "every lane admits it", "the lanes before it admitted it", "the lanes before it admitted it", "the lanes before it admitted it"}},
	} {
		e, err := Parse([]byte(strings.Replace(two, "%s", tt.atZero, 1)), "stack.json", nil)
		if err != nil {
			t.Fatal(err)
		}
		sol, err := e.Instance(0).Solve()
		if err != nil {
			t.Fatal(err)
		}
		if sol.Count != tt.want || sol.Text() != strconv.Itoa(tt.want) {
			t.Errorf("%s at 0 s: the stack admits %d (%q), want %d", tt.atZero, sol.Count, sol.Text(), tt.want)
		}
		if len(sol.Trace) != len(tt.notes) {
			t.Fatalf("%s at 0 s: %d steps of working, want %d", tt.atZero, len(sol.Trace), len(tt.notes))
		}
		for i, st := range sol.Trace {
			if st.Note != tt.notes[i] {
				t.Errorf("%s at 0 s, step %d: note %q, want %q", tt.atZero, i+1, st.Note, tt.notes[i])
			}
		}
		if got := sol.Trace[len(sol.Trace)-1].Policy; !strings.HasPrefix(got, "lane 2: ") {
			t.Errorf("%s at 0 s: the last request is settled by %q, want lane 2", tt.atZero, got)
		}
		fb, err := e.Instance(0).Check("6", nil)
		if err != nil || !fb.Readable || fb.Correct || fb.Direction != "too many" {
			t.Errorf("%s at 0 s: checking 6, lane 1's count alone: %+v, %v; want a readable wrong answer, too many", tt.atZero, fb, err)
		}
	}
}

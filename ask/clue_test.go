package ask

import (
	"strconv"
	"strings"
	"testing"

	"github.com/windowlab/playground/scenario"
)

// clueFor checks text against q and returns the feedback's clue.
func clueFor(t *testing.T, q Question, text string, choices ...string) Feedback {
	t.Helper()
	sol, err := Solve(q)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := Check(q, sol, text, choices)
	if err != nil {
		t.Fatal(err)
	}
	return fb
}

// A first-admit clue says how the moment is off, worked out from the
// learner's moment: the car park under a fixed window opens at 30 s.
func TestFirstAdmitClueSaysHowTheMomentIsOff(t *testing.T) {
	for _, tt := range []struct {
		policy, given, want string
	}{
		{"fixed-window", "10 s", "10 s is before the question's moment, 20 s"},
		{"fixed-window", "60 s", "Off by exactly 30 s (1 window)"},
		{"fixed-window", "29.999 s", "Off by one millisecond at the edge"},
		{"fixed-window", "25 s", "At 25 s the request is still refused: "},
		{"fixed-window", "25 s", "comes with a retry-after"}, // the fixed window's retry-after is exact
		{"fixed-window", "40 s", "At 40 s the request passes, but an earlier moment"},
		{"sliding-log", "30.001 s", "Off by one millisecond"},
		{"fixed-window", "30 s", ""}, // right: no clue
	} {
		q := Question{Kind: "first-admit", Scenario: carPark(), Lanes: lanes(t, tt.policy), Request: &scenario.Request{At: 20_000, Key: "car"}}
		fb := clueFor(t, q, tt.given)
		if tt.want == "" && fb.Clue != "" || !strings.Contains(fb.Clue, tt.want) {
			t.Errorf("%s, %s: clue = %q, want it to say %q", tt.policy, tt.given, fb.Clue, tt.want)
		}
		if strings.Contains(fb.Clue, "30 s") && !fb.Correct && tt.want != "Off by exactly 30 s (1 window)" {
			t.Errorf("%s, %s: clue %q states the answer", tt.policy, tt.given, fb.Clue)
		}
	}
}

// A count clue points at the request the count went wrong at: ten cars
// in the car park, of which the fixed window lets in 8 (five by 25 s are
// full at 15 s, then 35 s, 40 s and 40 s in the next window).
func TestCountClueNamesTheRequestMiscounted(t *testing.T) {
	s := scenario.Scenario{Limit: 5, WindowMs: 30_000, Requests: []scenario.Request{
		{At: 0, Cost: 1, Count: 1}, {At: 5000, Cost: 1, Count: 2}, {At: 15_000, Cost: 1, Count: 2},
		{At: 25_000, Cost: 1, Count: 1}, {At: 35_000, Cost: 1, Count: 1}, {At: 40_000, Cost: 1, Count: 3},
	}}
	q := Question{Kind: "count", Scenario: s, Lanes: lanes(t, "fixed-window")}
	sol, err := Solve(q)
	if err != nil {
		t.Fatal(err)
	}
	if sol.Count != 9 {
		t.Fatalf("the fixed window admits %d; the test expects 9 (25 s refused, the next window's four admitted)", sol.Count)
	}
	for _, tt := range []struct{ given, want string }{
		{"10", "counts every request sent, the refused ones too"},
		{"9", ""},
		{"5", "your count runs out before the request at 35 s, which the policy admits, after the refusals before it"},
		{"3", "your count runs out before the 1st of the 2 requests at 15 s, which the policy admits. Check it"},
	} {
		if fb := clueFor(t, q, tt.given); tt.want == "" && fb.Clue != "" || !strings.Contains(fb.Clue, tt.want) {
			t.Errorf("count %s: clue = %q, want it to say %q", tt.given, fb.Clue, tt.want)
		}
	}
	// The sliding log refuses 35 s as well: a count one too high points at
	// the first refusal.
	q.Lanes = lanes(t, "sliding-log")
	sol, err = Solve(q)
	if err != nil {
		t.Fatal(err)
	}
	if fb := clueFor(t, q, strconv.Itoa(sol.Count+1)); !strings.Contains(fb.Clue, "Check the request at 25 s: there is no room for it") {
		t.Errorf("sliding log, %d: clue = %q, want it to point at 25 s", sol.Count+1, fb.Clue)
	}
	// Eight at one instant: "the request at 0 s" would name none of them.
	q = Question{Kind: "count", Scenario: scenario.Scenario{Limit: 5, WindowMs: 1000, Requests: []scenario.Request{{At: 0, Cost: 1, Count: 8}}}, Lanes: lanes(t, "fixed-window")}
	sol, err = Solve(q)
	if err != nil || sol.Count != 5 {
		t.Fatalf("eight at 0 s under 5 per second: %d admitted (%v), want 5", sol.Count, err)
	}
	if fb := clueFor(t, q, "7"); !strings.Contains(fb.Clue, "Check the 6th of the 8 requests at 0 s: there is no room for it") {
		t.Errorf("eight at 0 s, 7: clue = %q, want it to name the 6th of the 8", fb.Clue)
	}
	if fb := clueFor(t, q, "3"); !strings.Contains(fb.Clue, "runs out before the 4th of the 8 requests at 0 s") {
		t.Errorf("eight at 0 s, 3: clue = %q, want it to name the 4th of the 8", fb.Clue)
	}
}

// A yes-or-no clue says what to work out, never which way it goes, and a
// which clue names the lanes the answer has wrong.
func TestOutcomeAndWhichCluesDoNotGiveTheAnswer(t *testing.T) {
	r := &scenario.Request{At: 45_000, Key: "car"}
	q := Question{Kind: "outcome", Scenario: carPark(), Lanes: lanes(t, "sliding-counter/floor"), Request: r}
	sol, err := Solve(q)
	if err != nil {
		t.Fatal(err)
	}
	wrong := "yes"
	if sol.Outcome {
		wrong = "no"
	}
	fb := clueFor(t, q, wrong)
	if !strings.Contains(fb.Clue, "weighted by how much of it the last 30 s still covers, rounded down") {
		t.Errorf("outcome clue = %q, want the counter's carried part, rounded down", fb.Clue)
	}
	for _, w := range []string{"admitted", "refused", "room"} {
		if strings.Contains(fb.Clue, w) {
			t.Errorf("outcome clue %q says %q: it gives the answer away", fb.Clue, w)
		}
	}
	late := scenario.Scenario{Limit: 5, WindowMs: 30_000, Requests: []scenario.Request{{At: 25_000, Key: "car", Cost: 1, Count: 5}}}
	q = Question{Kind: "which", Scenario: late, Lanes: lanes(t, "fixed-window", "sliding-log"), Request: &scenario.Request{At: 31_000, Key: "car"}}
	// Five cars at 25 s: at 31 s the fixed window admits (a new window)
	// and the log, which still holds them, refuses.
	fb = clueFor(t, q, "", "fixed-window", "sliding-log")
	if !strings.Contains(fb.Clue, "The others are right. Look again at the sliding log: ") {
		t.Errorf("which clue = %q, want it to name the sliding log alone", fb.Clue)
	}
}

func TestCacheLineClueWorksOutTheLearnersRing(t *testing.T) {
	q := Question{Kind: "cache-line-k", Scenario: scenario.Scenario{Limit: 10, WindowMs: 60_000}}
	sol, err := Solve(q)
	if err != nil {
		t.Fatal(err)
	}
	small := clueFor(t, q, strconv.Itoa(sol.Count-1))
	if !strings.Contains(small.Clue, "fits, but it is not the largest") {
		t.Errorf("k %d: clue = %q", sol.Count-1, small.Clue)
	}
	big := clueFor(t, q, "60")
	if !strings.Contains(big.Clue, "60") || big.Clue == "" {
		t.Errorf("k 60: clue = %q, want the ring of 60 worked out", big.Clue)
	}
}

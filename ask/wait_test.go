package ask

import (
	"strings"
	"testing"

	"github.com/windowlab/playground/scenario"
)

// nginx's rate=1r/s burst=5: eight requests at 0 s.
func eightAtOnce() scenario.Scenario {
	return scenario.Scenario{Limit: 1, WindowMs: 1000, Requests: []scenario.Request{{At: 0, Cost: 1, Count: 8}}}
}

func waitQuestion(t *testing.T, s scenario.Scenario, ref string, at, n int64) Question {
	t.Helper()
	return Question{Kind: "wait", Scenario: s, Lanes: lanes(t, ref), Request: &scenario.Request{At: at, Count: n}, MaxN: 8}
}

// The wait is the queue's DelayMs: the worked example (1 r/s, burst 5,
// eight at one instant) has the first served at once and each after it
// one drain interval (1 s) later, so the fourth waits 3 s.
func TestWaitIsTheQueuesDelay(t *testing.T) {
	empty := scenario.Scenario{Limit: 1, WindowMs: 1000}
	for _, tt := range []struct {
		name   string
		s      scenario.Scenario
		ref    string
		at, n  int64
		wantMs int64
	}{
		{"the first of eight", empty, "leaky-bucket/5", 0, 1, 0},
		{"the second of eight", empty, "leaky-bucket/5", 0, 2, 1000},
		{"the fourth of eight", empty, "leaky-bucket/5", 0, 4, 3000},
		{"the sixth of eight, the last to fit", empty, "leaky-bucket/5", 0, 6, 5000},
		{"after eight, at 2.5 s", eightAtOnce(), "leaky-bucket/5", 2500, 1, 3500},
		{"after eight, at 1 s", eightAtOnce(), "leaky-bucket/5", 1000, 1, 5000},
		{"after eight, long after", eightAtOnce(), "leaky-bucket/5", 9000, 1, 0},
		{"a lane that never queues", eightAtOnce(), "token-bucket/5", 9000, 1, 0},
	} {
		sol, err := Solve(waitQuestion(t, tt.s, tt.ref, tt.at, tt.n))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if sol.Wait != tt.wantMs || sol.Truth[0] != tt.wantMs {
			t.Errorf("%s: wait = %d ms (truth %v), want %d", tt.name, sol.Wait, sol.Truth, tt.wantMs)
		}
		if len(sol.Trace) != 1 || sol.Trace[0].Decision.Detail.DelayMs != tt.wantMs {
			t.Errorf("%s: working %+v, want the asked request's decision", tt.name, sol.Trace)
		}
	}
}

// A refused request never waits: an exercise cannot ask about one (the
// error names the field to change), and a room's lane answers Never.
func TestWaitOfARefusedRequest(t *testing.T) {
	q := waitQuestion(t, eightAtOnce(), "leaky-bucket/5", 500, 1)
	_, err := Solve(q)
	if err == nil || !strings.HasPrefix(err.Error(), "at: ") || !strings.Contains(err.Error(), "refuses") {
		t.Fatalf("asking the wait of a refused request: err = %v, want one naming at and the refusal", err)
	}
	q.NeverAnswers = true
	sol, err := Solve(q)
	if err != nil {
		t.Fatal(err)
	}
	k, _ := Lookup("wait")
	if sol.Truth[0] != Never || !strings.Contains(k.Word(q, Never), "refused") {
		t.Errorf("room: truth %v worded %q, want Never worded as refused", sol.Truth, k.Word(q, sol.Truth[0]))
	}
	if v, err := k.Value(q, 0, "refused"); err != nil || v != Never {
		t.Errorf("room: \"refused\" reads as %d, %v; want Never", v, err)
	}
	if bad := k.Check(q, 0, 6000); bad == "" {
		t.Errorf("room: a wait of 6 s, past the 5 s the queue can hold anyone, is not refused")
	}
}

// A wait is read as a moment is: with its unit, a bare number in seconds,
// a decimal comma, a word for none; a bare number that only makes sense
// in milliseconds is asked about.
func TestWaitParseAndGrade(t *testing.T) {
	q := waitQuestion(t, eightAtOnce(), "leaky-bucket/5", 2500, 1) // waits 3.5 s
	sol, err := Solve(q)
	if err != nil {
		t.Fatal(err)
	}
	k, _ := Lookup("wait")
	for _, tt := range []struct {
		text     string
		readable bool
		correct  bool
		problem  string // part of the message, for an unreadable answer
		dir      string
	}{
		{"3.5 s", true, true, "", ""},
		{"3,5 s", true, true, "", ""},
		{"3500 ms", true, true, "", ""},
		{"3.5", true, true, "", ""},
		{"waits 3.5 seconds", true, true, "", ""},
		{"3 s", true, false, "", "too short"},
		{"4.5 s", true, false, "", "too long"},
		{"none", true, false, "", "too short"},
		{"3500", false, false, "Did you mean 3500 ms", ""},
		{"1e3", false, false, "exponent", ""},
		{"soon", false, false, "Give a wait", ""},
		{"-2 s", false, false, "Give a wait", ""},
	} {
		fb := k.Grade(q, sol, tt.text, nil)
		if fb.Readable != tt.readable || fb.Correct != tt.correct || fb.Direction != tt.dir {
			t.Errorf("%q: readable = %v, correct = %v, direction %q; want %v, %v, %q (%s)", tt.text, fb.Readable, fb.Correct, fb.Direction, tt.readable, tt.correct, tt.dir, fb.Problem)
		}
		if !strings.Contains(fb.Problem, tt.problem) {
			t.Errorf("%q: problem %q, want it to hold %q", tt.text, fb.Problem, tt.problem)
		}
		if strings.Contains(fb.Problem, "3.5 s,") || strings.Contains(fb.Problem, "3500 ms,") {
			t.Errorf("%q: the message's examples give the answer away: %s", tt.text, fb.Problem)
		}
	}
}

// A wait's clue is worked out from the learner's wait.
func TestWaitClueSaysHowTheWaitIsOff(t *testing.T) {
	for _, tt := range []struct {
		name  string
		s     scenario.Scenario
		ref   string
		at    int64
		given string
		want  string
	}{
		{"0 for a request that queues", eightAtOnce(), "leaky-bucket/5", 2500, "0", "not served at once"},
		{"a wait for one served at once", eightAtOnce(), "leaky-bucket/5", 9000, "2 s", "nothing holds it back"},
		{"the moment it leaves, not the wait", eightAtOnce(), "leaky-bucket/5", 2500, "6 s", "count from 2.5 s"},
		{"one drain interval off", eightAtOnce(), "leaky-bucket/5", 2500, "2.5 s", "1 drain interval"},
		{"two drain intervals off", eightAtOnce(), "leaky-bucket/5", 2500, "5.5 s", "2 drain intervals"},
		{"a refusal's retry-after", eightAtOnce(), "leaky-bucket/5", 1500, "1 s", "retry-after"},
		{"off otherwise", eightAtOnce(), "leaky-bucket/5", 2500, "0.2 s", "Work it again"},
	} {
		fb := clueFor(t, waitQuestion(t, tt.s, tt.ref, tt.at, 1), tt.given)
		if !strings.Contains(fb.Clue, tt.want) {
			t.Errorf("%s: clue %q, want it to hold %q", tt.name, fb.Clue, tt.want)
		}
		if fb.Correct {
			t.Errorf("%s: %q graded correct", tt.name, tt.given)
		}
	}
}

// A room asks every lane about the last of the next N requests at the
// clock: a queue holds it, a lane that never queues serves it at once, and
// a lane whose queue is full turns it away.
func TestWaitInARoom(t *testing.T) {
	k, _ := Lookup("wait")
	for _, tt := range []struct {
		n    int64
		want []int64
	}{
		{4, []int64{3000, 0}},
		{6, []int64{5000, Never}},
		{8, []int64{Never, Never}},
	} {
		q := Question{Kind: "wait", Scenario: scenario.Scenario{Limit: 1, WindowMs: 1000}, Lanes: lanes(t, "leaky-bucket/5", "token-bucket/5"),
			Request: &scenario.Request{At: 0, Count: tt.n}, MaxN: 8, NeverAnswers: true}
		sol, err := Solve(q)
		if err != nil {
			t.Fatalf("n %d: %v", tt.n, err)
		}
		for i, want := range tt.want {
			if sol.Truth[i] != want {
				t.Errorf("n %d, lane %d: wait = %d, want %d", tt.n, i, sol.Truth[i], want)
			}
			if bad := k.Check(q, i, sol.Truth[i]); bad != "" {
				t.Errorf("n %d, lane %d: the truth is refused: %s", tt.n, i, bad)
			}
		}
		if ask := k.Ask(q); !strings.Contains(ask, "the last of them") {
			t.Errorf("n %d: asked %q, want it to say it is about the last of them", tt.n, ask)
		}
	}
	// A lane that never queues takes any wait a lane of the question could
	// give: refusing 1 s there would tell the room its answer before the
	// reveal. Beyond the longest queue's wait, every lane refuses.
	q := Question{Kind: "wait", Scenario: scenario.Scenario{Limit: 1, WindowMs: 1000}, Lanes: lanes(t, "leaky-bucket/5", "token-bucket/5"), Request: &scenario.Request{At: 0}}
	if bad := k.Check(q, 1, 1000); bad != "" {
		t.Errorf("a wait of 1 s in the lane that never queues is refused, which gives its answer away: %s", bad)
	}
	if bad := k.Check(q, 1, 6000); bad == "" {
		t.Error("a wait of 6 s, longer than any lane can hold anyone, is not refused")
	}
	alone := Question{Kind: "wait", Scenario: q.Scenario, Lanes: lanes(t, "token-bucket/5"), Request: &scenario.Request{At: 0}}
	if why := Fits(k, alone); !strings.Contains(why, "makes a request wait") {
		t.Errorf("a wait question about a token bucket alone fits (%q); want it left out", why)
	}
	if why := Fits(k, q); why != "" {
		t.Errorf("a wait question with a leaky bucket does not fit: %s", why)
	}
	if v, err := k.Value(q, 0, "2,5 s"); err != nil || v != 2500 {
		t.Errorf("\"2,5 s\" reads as %d, %v; want 2500", v, err)
	}
}

// An asked request without a key is the scenario's client's when all its
// requests share one, for one asked request as for several: asking about
// the second of two more cars in a car park of named cars must not put
// them under the default key, behind an empty queue.
func TestWaitOfSeveralAskedIsTheSoleClients(t *testing.T) {
	named := scenario.Scenario{Limit: 1, WindowMs: 1000, Requests: []scenario.Request{{At: 0, Key: "car", Cost: 1, Count: 3}}}
	for _, n := range []int64{1, 2, 3} {
		unnamed := waitQuestion(t, named, "leaky-bucket/5", 500, n)
		keyed := waitQuestion(t, named, "leaky-bucket/5", 500, n)
		keyed.Request.Key = "car"
		got, err := Solve(unnamed)
		if err != nil {
			t.Fatalf("%d asked: %v", n, err)
		}
		want, err := Solve(keyed)
		if err != nil {
			t.Fatalf("%d asked, keyed: %v", n, err)
		}
		// Three at 0 leave 2 queued; 0.5 s on 2.5 remain ahead of the
		// first asked, which waits 2.5 s, each after it 1 s more.
		if got.Wait != want.Wait || want.Wait != 1500+n*1000 {
			t.Errorf("%d asked: the last waits %d ms without a key, %d ms as the car's; want %d", n, got.Wait, want.Wait, 1500+n*1000)
		}
	}
}

package ask

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/windowlab/playground/scenario"
)

// carPark: five cars at 0 s, limit 5 per 30 s.
func carPark() scenario.Scenario {
	return scenario.Scenario{Limit: 5, WindowMs: 30_000, Requests: []scenario.Request{{At: 0, Key: "car", Cost: 1, Count: 5}}}
}

func lanes(t *testing.T, refs ...string) []Lane {
	t.Helper()
	var out []Lane
	for _, ref := range refs {
		spec, err := scenario.ParsePolicyRef(ref)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, Lane{Spec: spec, Ref: ref})
	}
	return out
}

func TestEveryKindIsRegisteredOnce(t *testing.T) {
	want := []string{"outcome", "admit", "count", "first-admit", "which", "stack", "cache-line-k", "wait"}
	got := Names()
	for _, n := range want {
		if !slices.Contains(got, n) {
			t.Errorf("kind %q is not registered (have %v)", n, got)
		}
	}
	for i, n := range got {
		if slices.Contains(got[:i], n) {
			t.Errorf("kind %q is registered twice", n)
		}
	}
}

// One solver per question, whatever the caller: the same request gives
// the same truth asked as an exercise's outcome or a room's admit, and a
// which-question admits exactly the lanes whose outcome is admitted.
func TestSolversAgreeAcrossKinds(t *testing.T) {
	ls := lanes(t, "fixed-window", "sliding-log", "token-bucket")
	for _, at := range []int64{29_999, 30_000, 31_000, 45_000} {
		r := &scenario.Request{At: at, Key: "car"}
		var truths [][]int64
		for _, kind := range []string{"outcome", "admit", "which"} {
			sol, err := Solve(Question{Kind: kind, Scenario: carPark(), Lanes: ls, Request: r})
			if err != nil {
				t.Fatalf("at %d ms, %s: %v", at, kind, err)
			}
			truths = append(truths, sol.Truth)
			if kind == "which" {
				for i, l := range ls {
					if got := slices.Contains(sol.Admit, l.Ref); got != (sol.Truth[i] == 1) {
						t.Errorf("at %d ms: %s in Admit = %v, truth %d", at, l.Ref, got, sol.Truth[i])
					}
				}
			}
		}
		if !slices.Equal(truths[0], truths[1]) || !slices.Equal(truths[1], truths[2]) {
			t.Errorf("at %d ms: outcome %v, admit %v, which %v; want one truth", at, truths[0], truths[1], truths[2])
		}
	}
}

func TestCountOfTheScenarioOrOfTheNextN(t *testing.T) {
	ls := lanes(t, "fixed-window", "sliding-log")
	sol, err := Solve(Question{Kind: "count", Scenario: carPark(), Lanes: ls})
	if err != nil || !slices.Equal(sol.Truth, []int64{5, 5}) || sol.Count != 5 {
		t.Errorf("count of the scenario: truth %v, count %d (%v); want 5 and 5", sol.Truth, sol.Count, err)
	}
	sol, err = Solve(Question{Kind: "count", Scenario: carPark(), Lanes: ls, Request: &scenario.Request{At: 31_000, Key: "car", Count: 3}, MaxN: 20})
	if err != nil || !slices.Equal(sol.Truth, []int64{3, 3}) {
		t.Errorf("three more at 31 s: truth %v (%v), want [3 3]", sol.Truth, err)
	}
	if len(sol.Trace) != 6 {
		t.Errorf("three more at 31 s in two lanes: %d steps of working, want 6", len(sol.Trace))
	}
	_, err = Solve(Question{Kind: "count", Scenario: carPark(), Lanes: ls, Request: &scenario.Request{At: 31_000, Count: 21}, MaxN: 20})
	if err == nil || !strings.Contains(err.Error(), "1 to 20 requests, not 21") {
		t.Errorf("21 of at most 20: err = %v", err)
	}
}

func TestFirstAdmitNeverOnlyWhereAsked(t *testing.T) {
	q := Question{Kind: "first-admit", Scenario: carPark(), Lanes: lanes(t, "sliding-log"), Request: &scenario.Request{At: 31_000, Key: "car", Cost: 6}}
	if _, err := Solve(q); err == nil || !strings.Contains(err.Error(), "no request passes within three windows") {
		t.Errorf("a cost above the limit, never allowed: err = %v", err)
	}
	q.NeverAnswers = true
	sol, err := Solve(q)
	if err != nil || !slices.Equal(sol.Truth, []int64{Never}) {
		t.Errorf("a cost above the limit, never allowed as an answer: truth %v (%v), want [Never]", sol.Truth, err)
	}
	q.Request = &scenario.Request{At: 26_000, Key: "car"}
	sol, err = Solve(q)
	if err != nil || sol.Moment != 30_000 {
		t.Fatalf("the log from 26 s: moment %d (%v), want 30000", sol.Moment, err)
	}
	var notes []string
	for _, st := range sol.Trace {
		notes = append(notes, st.Note)
	}
	if want := []string{"a request at 26 s, the moment asked from, is refused", "one millisecond too early", "the first instant that admits"}; !slices.Equal(notes, want) {
		t.Errorf("working notes %q, want %q", notes, want)
	}
}

// A room's phone sends each lane's value as text; the kinds read it the
// way the exercises read a typed time, decimal comma included.
func TestLaneValues(t *testing.T) {
	q := Question{Kind: "first-admit", Scenario: carPark(), Lanes: lanes(t, "sliding-log"), Request: &scenario.Request{At: 31_000}}
	k, _ := Lookup(q.Kind)
	for _, tt := range []struct {
		text string
		want int64
		err  string
	}{
		{"40.5 s", 40_500, ""},
		{"40,5 s", 40_500, ""},
		{"never", Never, ""},
		{"soon", 0, `"soon" is not a moment`},
	} {
		v, err := k.Value(q, 0, tt.text)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%q: err = %v, want it to say %q", tt.text, err, tt.err)
		case tt.err == "" && (err != nil || v != tt.want):
			t.Errorf("%q = %d (%v), want %d", tt.text, v, err, tt.want)
		}
	}
	if bad := k.Check(q, 0, 30_999); !strings.Contains(bad, "before the question's moment") {
		t.Errorf("30.999 s: check %q, want it before the moment", bad)
	}
}

func TestUnknownKindNamesTheKinds(t *testing.T) {
	_, err := Solve(Question{Kind: "guess"})
	if err == nil || !strings.Contains(err.Error(), "first-admit") {
		t.Errorf("err = %v, want it to name the kinds", err)
	}
	var u UnreadableError
	_, err = outcome{name: "outcome"}.Parse(Question{}, "maybe", nil)
	if !errors.As(err, &u) {
		t.Errorf("\"maybe\" as an outcome: err %v, want an UnreadableError", err)
	}
}

// The presenter's menu comes from the kinds themselves: a kind a room can
// ask is listed by adding its file, in the place it gives.
func TestRoomMenuListsTheRoomKindsInOrder(t *testing.T) {
	var got []string
	for _, k := range RoomKinds() {
		label, _ := k.Menu()
		if label == "" {
			t.Errorf("%s: listed with no label", k.Name())
		}
		got = append(got, k.Name())
	}
	if want := []string{"admit", "count", "first-admit", "wait"}; !slices.Equal(got, want) {
		t.Errorf("room kinds %v, want %v", got, want)
	}
}

// Every kind words, checks and offers its answers for a question it
// validates, whatever the caller (no nil request or lane goes unhandled).
func TestEveryKindWordsWhatItSolves(t *testing.T) {
	stacked := carPark()
	stacked.Policies = []scenario.PolicySpec{{Name: "fixed-window"}, {Name: "sliding-log"}}
	for _, kind := range Names() {
		k, _ := Lookup(kind)
		q := Question{Kind: kind, Scenario: carPark(), MaxN: 20, NeverAnswers: true}
		switch k.Lanes() {
		case AnyLanes:
			q.Lanes = lanes(t, "sliding-log")
		case SeveralLanes:
			q.Lanes = lanes(t, "sliding-log", "fixed-window")
		case NoLanes:
			q.Scenario = stacked
		}
		if k.Instant() != WholeScenario {
			q.Request = &scenario.Request{At: 31_000, Key: "car"}
		}
		sol, err := Solve(q)
		if err != nil {
			t.Errorf("%s: %v", kind, err)
			continue
		}
		if len(sol.Trace) == 0 || len(sol.Truth) == 0 {
			t.Errorf("%s: truth %v with %d steps of working; want both", kind, sol.Truth, len(sol.Trace))
		}
		right := sol.Text()
		if right == "" {
			t.Errorf("%s: the right answer has no words", kind)
		}
		if kind == "which" {
			continue // answered by ticks, below
		}
		if fb := k.Grade(q, sol, right, nil); !fb.Correct || fb.Given != right {
			t.Errorf("%s: the right answer %q typed back reads as %q, correct = %v (%s)", kind, right, fb.Given, fb.Correct, fb.Problem)
		}
		for i := range q.Lanes {
			if bad := k.Check(q, i, sol.Truth[i]); bad != "" {
				t.Errorf("%s: the truth %d of lane %d is refused: %s", kind, sol.Truth[i], i, bad)
			}
			if k.Word(q, sol.Truth[i]) == "" {
				t.Errorf("%s: the truth %d has no words", kind, sol.Truth[i])
			}
		}
	}
	q := Question{Kind: "which", Scenario: carPark(), Lanes: lanes(t, "sliding-log", "fixed-window"), Request: &scenario.Request{At: 31_000, Key: "car"}}
	sol, err := Solve(q)
	if err != nil {
		t.Fatal(err)
	}
	k, _ := Lookup("which")
	ticks := sol.Admit
	if len(ticks) == 0 {
		ticks = []string{"none"}
	}
	if fb := k.Grade(q, sol, "", ticks); !fb.Correct {
		t.Errorf("which: ticking %v, the truth, is not correct (%s)", ticks, fb.Problem)
	}
}

// Validation errors name the kind after the article its sound takes, so a
// form's message reads "an admit question", never "a admit question".
func TestValidationErrorsTakeTheKindsArticle(t *testing.T) {
	r := &scenario.Request{At: 1_000, Key: "car"}
	cases := []struct {
		kind    string
		lanes   []Lane
		request *scenario.Request
		want    string
	}{
		{"admit", nil, r, "an admit question asks about at least one lane"},
		{"outcome", nil, r, "an outcome question asks about at least one lane"},
		{"outcome", lanes(t, "fixed-window"), nil, "an outcome question is about a request at an instant: give the instant"},
		{"count", nil, nil, "a count question asks about at least one lane"},
		{"first-admit", nil, r, "a first-admit question asks about at least one lane"},
	}
	for i, c := range cases {
		q := Question{Kind: c.kind, Scenario: carPark(), Lanes: c.lanes, Request: c.request}
		err := Validate(&q)
		if err == nil || err.Error() != c.want {
			t.Errorf("case %d (%s): Validate = %v, want %q", i, c.kind, err, c.want)
		}
	}
}

// A room's question names its client as a client, so the unnamed one reads
// as a name too ("The client “default” sends…", never "default sends…").
func TestRoomQuestionsNameTheClient(t *testing.T) {
	ls := lanes(t, "fixed-window")
	cases := []struct {
		kind    string
		request scenario.Request
		want    string
	}{
		{"count", scenario.Request{At: 2_000, Count: 10, Cost: 1}, "The client “default” sends 10 requests (cost 1 each) at 2 s: how many get through?"},
		{"admit", scenario.Request{At: 2_000, Key: "alice", Cost: 1}, "Will a request from the client “alice” (cost 1) at 2 s be admitted?"},
		{"first-admit", scenario.Request{At: 2_000, Cost: 1}, "From 2 s on, what is the first moment a request from the client “default” (cost 1) gets in?"},
	}
	for i, c := range cases {
		k, ok := Lookup(c.kind)
		if !ok {
			t.Fatalf("case %d: no kind %q", i, c.kind)
		}
		r := c.request
		if got := k.Ask(Question{Kind: c.kind, Scenario: carPark(), Lanes: ls, Request: &r, MaxN: 20}); got != c.want {
			t.Errorf("case %d (%s): asks %q, want %q", i, c.kind, got, c.want)
		}
	}
}

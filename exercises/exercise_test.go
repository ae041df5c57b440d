package exercises

import (
	"strings"
	"testing"

	"github.com/windowlab/playground/lessons"
)

func load(t *testing.T) *Set {
	t.Helper()
	lib, err := lessons.Load()
	if err != nil {
		t.Fatal(err)
	}
	set, err := Load(lib)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func TestEveryExerciseSolvesAndVaries(t *testing.T) {
	set := load(t)
	if len(set.Exercises) < 20 {
		t.Errorf("%d exercises; want at least 20", len(set.Exercises))
	}
	for _, e := range set.Exercises {
		for seed := range uint64(20) {
			in := e.Instance(seed)
			sol, err := in.Solve()
			if err != nil {
				t.Errorf("%s seed %d: %v", e.ID, seed, err)
				continue
			}
			if sol.Text() == "" || len(sol.Trace) == 0 {
				t.Errorf("%s seed %d: empty answer or trace", e.ID, seed)
			}
			fb, err := in.Check(sol.Text(), sol.Admit)
			if err != nil || !fb.Correct {
				t.Errorf("%s seed %d: its own answer %q is not accepted: %+v %v", e.ID, seed, sol.Text(), fb, err)
			}
			if strings.Contains(in.Question(), "{") {
				t.Errorf("%s: question keeps a placeholder: %s", e.ID, in.Question())
			}
		}
		if a, b := e.Instance(7), e.Instance(7); a.At != b.At || a.Scenario.Limit != b.Scenario.Limit {
			t.Errorf("%s: the same seed gave different variants", e.ID)
		}
	}
}

func TestVariantsDiffer(t *testing.T) {
	e := load(t).Get("try-it-1-exact")
	seen := map[int64]bool{}
	for seed := range uint64(30) {
		seen[e.Instance(seed).At] = true
	}
	if len(seen) < 5 {
		t.Errorf("30 seeds gave only %d different times", len(seen))
	}
}

func TestParseAnswer(t *testing.T) {
	tests := []struct {
		kind, text string
		choices    []string
		want       string // Solution.Text of the answer read, or "unreadable"
	}{
		{AskFirstAdmit, "36", nil, "36 s"},
		{AskFirstAdmit, "36s", nil, "36 s"},
		{AskFirstAdmit, "36 s", nil, "36 s"},
		{AskFirstAdmit, "36000ms", nil, "36 s"},
		{AskFirstAdmit, "36000 ms", nil, "36 s"},
		{AskFirstAdmit, "36.5 s", nil, "36.5 s"},
		{AskFirstAdmit, "30.001 s", nil, "30.001 s"},
		{AskFirstAdmit, "at 36 seconds", nil, "36 s"},
		{AskFirstAdmit, "soon", nil, "unreadable"},
		{AskFirstAdmit, "", nil, "unreadable"},
		{AskOutcome, "yes", nil, "admitted"},
		{AskOutcome, "No", nil, "refused"},
		{AskOutcome, "admitted", nil, "admitted"},
		{AskOutcome, "Refused.", nil, "refused"},
		{AskOutcome, "rejected, over the limit", nil, "refused"},
		{AskOutcome, "accepted", nil, "admitted"},
		{AskOutcome, "maybe", nil, "unreadable"},
		{AskCount, "7", nil, "7"},
		{AskCount, " 12 requests", nil, "12"},
		{AskCount, "seven", nil, "unreadable"},
		{AskWhich, "both", nil, "sliding-log and sliding-counter/exact"},
		{AskWhich, "neither", nil, "neither"},
		{AskWhich, "the log", nil, "sliding-log"},
		{AskWhich, "counter", nil, "sliding-counter/exact"},
		{AskWhich, "sliding-log, sliding-counter", nil, "sliding-log and sliding-counter/exact"},
		{AskWhich, "the moon", nil, "unreadable"},
		{AskWhich, "", []string{"sliding-log"}, "sliding-log"},
		{AskWhich, "", []string{"none"}, "neither"},
		{AskWhich, "", []string{"none", "sliding-log"}, "unreadable"},
	}
	lanes := []string{"sliding-log", "sliding-counter/exact"}
	for _, tt := range tests {
		ans, err := ParseAnswer(tt.kind, tt.text, tt.choices, lanes)
		got := "unreadable"
		if err == nil {
			got = Solution{Kind: tt.kind, Outcome: ans.Outcome, Moment: ans.Moment, Count: ans.Count, Admit: ans.Admit}.Text()
		} else if _, ok := err.(UnreadableError); !ok {
			t.Errorf("ParseAnswer(%s, %q): error %v is not an UnreadableError", tt.kind, tt.text, err)
		}
		if got != tt.want {
			t.Errorf("ParseAnswer(%s, %q, %v) = %q, want %q", tt.kind, tt.text, tt.choices, got, tt.want)
		}
	}
}

func TestParseRejectsBadFilesNamingTheField(t *testing.T) {
	lib, err := lessons.Load()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ file, want string }{
		{`{`, "not a valid exercise file"},
		{`{"title": "x", "question": "q", "scenario": "try-it", "ask": "outcome", "at": "33 s"}`, "policy: missing"},
		{`{"title": "x", "question": "q", "scenario": "nowhere", "policy": "sliding-log", "ask": "count"}`, "scenario: no scenario named"},
		{`{"title": "x", "question": "q", "scenario": "try-it", "policy": "leaky", "ask": "count"}`, "policy: unknown policy"},
		{`{"title": "x", "question": "q", "scenario": "try-it", "policy": "sliding-log", "ask": "guess"}`, "ask:"},
		{`{"title": "x", "question": "q", "scenario": "try-it", "policy": "sliding-log", "ask": "outcome", "at": "soon"}`, "at:"},
		{`{"title": "x", "question": "q", "scenario": "try-it", "policies": ["sliding-log"], "ask": "which", "at": "1 s"}`, "at least two"},
		{`{"title": "x", "question": "q", "scenario": "try-it", "policy": "sliding-log", "ask": "count", "colour": "red"}`, "unknown field"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.file), "bad.json", lib)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%s): err = %v, want it to mention %q", tt.file, err, tt.want)
		}
	}
}

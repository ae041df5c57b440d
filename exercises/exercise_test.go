package exercises

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/windowlab/playground/scenario"
)

// lessonsCatalog is the catalog the site uses, read from the lessons
// folder on disk: this package cannot import lessons, which imports it.
type lessonsCatalog struct {
	scenarios map[string]scenario.Scenario
	slugs     map[string]bool
}

func (c lessonsCatalog) Scenario(name string) (scenario.Scenario, error) {
	if strings.HasPrefix(name, scenario.GeneratedPrefix) {
		return scenario.Generated(name)
	}
	s, ok := c.scenarios[name]
	if !ok {
		return s, fmt.Errorf("no scenario named %q", name)
	}
	return s, nil
}

func (c lessonsCatalog) HasLesson(slug string) bool { return c.slugs[slug] }

func loadCatalog(t *testing.T) lessonsCatalog {
	t.Helper()
	c := lessonsCatalog{scenarios: map[string]scenario.Scenario{}, slugs: map[string]bool{}}
	files, err := filepath.Glob("../lessons/scenarios/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios in ../lessons/scenarios (%v)", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := scenario.Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		c.scenarios[strings.TrimSuffix(filepath.Base(f), ".json")] = s
	}
	lessonFile := regexp.MustCompile(`^\d+-([a-z0-9-]+)\.md$`)
	mds, _ := filepath.Glob("../lessons/*.md")
	for _, f := range mds {
		if m := lessonFile.FindStringSubmatch(filepath.Base(f)); m != nil {
			c.slugs[m[1]] = true
		}
	}
	return c
}

func load(t *testing.T) *Set {
	t.Helper()
	set, err := Load(loadCatalog(t))
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
	lib := loadCatalog(t)
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

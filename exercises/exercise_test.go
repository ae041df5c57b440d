package exercises

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/windowlab/playground/policies"
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
	if len(set.Exercises) < 30 {
		t.Errorf("%d exercises; want at least 30", len(set.Exercises))
	}
	// Every family of policy gets practice, not only the sliding ones.
	asked := map[string]bool{}
	for _, e := range set.Exercises {
		for _, ref := range e.Lanes() {
			if spec, err := scenario.ParsePolicyRef(ref); err == nil {
				asked[spec.Name] = true
			}
		}
	}
	for _, name := range []string{policies.TokenBucket, policies.GCRA, policies.SlidingBuckets} {
		if !asked[name] {
			t.Errorf("no exercise asks about %s", name)
		}
	}
	for _, e := range set.Exercises {
		if e.Vary == nil {
			t.Errorf("%s: no vary, so it has no \"Another one\"", e.ID)
			continue
		}
		variants := map[string]bool{}
		for seed := range uint64(20) {
			in := e.Instance(seed)
			variants[fmt.Sprint(in.At, in.Scenario.Limit)] = true
		}
		if len(variants) < 3 {
			t.Errorf("%s: 20 seeds gave %d different variants; want at least 3", e.ID, len(variants))
		}
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
		{AskFirstAdmit, "36,5", nil, "36.5 s"},
		{AskFirstAdmit, "36,5 s", nil, "36.5 s"},
		{AskFirstAdmit, "30,001 s", nil, "30.001 s"},
		{AskFirstAdmit, "36,000 ms", nil, "36 s"},
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
		{AskWhich, "both", nil, "sliding log and sliding counter (exact)"},
		{AskWhich, "neither", nil, "none of them"},
		{AskWhich, "the log", nil, "sliding log"},
		{AskWhich, "counter", nil, "sliding counter (exact)"},
		{AskWhich, "sliding-log, sliding-counter", nil, "sliding log and sliding counter (exact)"},
		{AskWhich, "sliding log", nil, "sliding log"},
		{AskWhich, "the moon", nil, "unreadable"},
		{AskWhich, "", []string{"sliding-log"}, "sliding log"},
		{AskWhich, "", []string{"none"}, "none of them"},
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
		{`{"title": "x", "question": "q", "scenario": "try-it", "policy": "tumbling", "ask": "count"}`, "policy: unknown policy"},
		{`{"title": "x", "question": "q", "scenario": "try-it", "policy": "sliding-log", "ask": "guess"}`, "ask:"},
		{`{"title": "x", "question": "q", "scenario": "try-it", "policy": "sliding-log", "ask": "outcome", "at": "soon"}`, "at:"},
		{`{"title": "x", "question": "q", "scenario": "try-it", "policies": ["sliding-log"], "ask": "which", "at": "1 s"}`, "at least two"},
		{`{"title": "x", "question": "q", "scenario": "try-it", "policy": "sliding-log", "ask": "count", "colour": "red"}`, "unknown field"},
		{`{"title": "x", "question": "q", "scenario": "stacking", "policy": "sliding-log", "ask": "stack"}`, "policy: a stack question is about the scenario's own lanes"},
		{`{"title": "x", "question": "q", "scenario": {"limit": 1, "windowMs": 1000, "policy": "sliding-log", "requests": [{"at": 0}]}, "ask": "stack"}`, "at least two policies"},
		{`{"title": "x", "question": "q", "scenario": "stacking", "ask": "stack", "at": "1 s"}`, "at: a stack question is about the whole scenario"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.file), "bad.json", lib)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%s): err = %v, want it to mention %q", tt.file, err, tt.want)
		}
	}
}

func TestLabelReadsAsPeopleWriteIt(t *testing.T) {
	for ref, want := range map[string]string{
		"sliding-log":           "sliding log",
		"sliding-counter/exact": "sliding counter (exact)",
		"sliding-counter/floor": "sliding counter (floor)",
		"sliding-buckets/6":     "ring of 6 sub-buckets",
		"token-bucket/10":       "token bucket (burst 10)",
		"gcra":                  "GCRA",
		"fixed-window":          "fixed window",
	} {
		if got := Label(ref); got != want {
			t.Errorf("Label(%q) = %q, want %q", ref, got, want)
		}
	}
}

// A bare number is read in seconds; one that only makes sense in
// milliseconds is not marked wrong but questioned.
func TestBareMillisecondsAreQuestioned(t *testing.T) {
	in := load(t).Get("try-it-2-exact").Instance(0)
	for _, tt := range []struct {
		text        string
		wantProblem string // "" when the answer is read and judged
		wantRight   bool
	}{
		{"36000", "Did you mean 36000 ms (36 s)?", false},
		{"36000 ms", "", true},
		{"36", "", true},
		{"36,5", "", false},
		{"500", "", false}, // 500 s is past the scenario, but 500 ms is before the question: simply wrong
	} {
		fb, err := in.Check(tt.text, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tt.wantProblem != "" {
			if fb.Readable || !strings.Contains(fb.Problem, tt.wantProblem) {
				t.Errorf("%q: readable = %v, problem %q; want it questioned with %q", tt.text, fb.Readable, fb.Problem, tt.wantProblem)
			}
			continue
		}
		if !fb.Readable || fb.Correct != tt.wantRight {
			t.Errorf("%q: readable = %v, correct = %v (%s); want readable, correct = %v", tt.text, fb.Readable, fb.Correct, fb.Problem, tt.wantRight)
		}
	}
}

// A hint's example times are worked out so that none of them is the
// answer, for every exercise and variant.
func TestTimeHintsNeverGiveTheAnswer(t *testing.T) {
	for _, e := range load(t).Exercises {
		if e.Ask != AskFirstAdmit {
			continue
		}
		for seed := range uint64(30) {
			in := e.Instance(seed)
			sol, err := in.Solve()
			if err != nil {
				t.Fatal(err)
			}
			examples := in.TimeExamples(sol)
			if len(examples) == 0 {
				t.Fatalf("%s seed %d: no examples", e.ID, seed)
			}
			for _, ex := range examples {
				ans, err := ParseAnswer(AskFirstAdmit, ex, nil, nil)
				if err != nil {
					t.Errorf("%s seed %d: example %q does not read: %v", e.ID, seed, ex, err)
				} else if ans.Moment == sol.Moment {
					t.Errorf("%s seed %d: example %q is the answer", e.ID, seed, ex)
				}
			}
			fb, _ := in.Check("whenever", nil)
			if strings.Contains(fb.Problem, " "+sol.Text()+",") || strings.Contains(fb.Problem, " "+sol.Text()+" or") {
				t.Errorf("%s seed %d: the message for an unreadable answer names the answer %s: %s", e.ID, seed, sol.Text(), fb.Problem)
			}
		}
	}
	// The case that was wrong: Try it 2's answer was the hint's first example.
	in := load(t).Get("try-it-2-exact").Instance(0)
	sol, _ := in.Solve()
	if sol.Moment == 12000 || sol.Moment == 12500 {
		t.Fatalf("the answer changed to %s; pick another exercise for this check", sol.Text())
	}
}

// A question that says nothing else has come must not come with a scenario
// holding later requests: the learner sees the list under the question.
func TestQuestionsThatSayNothingElseCameHoldNoLaterRequests(t *testing.T) {
	phrases := []string{"nothing else", "nothing has arrived since", "nothing since", "none since"}
	for _, e := range load(t).Exercises {
		q := strings.ToLower(e.Question)
		says := false
		for _, p := range phrases {
			says = says || strings.Contains(q, p)
		}
		if !says || e.Ask == AskCount {
			continue
		}
		earliest := e.at
		if e.Vary != nil && e.Vary.At != nil {
			earliest = min(earliest, e.Vary.At.from)
		}
		for _, r := range e.base.Requests {
			if r.At >= earliest {
				t.Errorf("%s: the question says nothing else came, but the scenario holds a request at %d ms, at or after %d ms", e.ID, r.At, earliest)
			}
		}
	}
}

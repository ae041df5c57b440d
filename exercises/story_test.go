package exercises

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/windowlab/playground/ask"
	"github.com/windowlab/playground/scenario"
)

// "Another one" asks another problem, not the same one with another
// instant: over seeds 0 to 19 every exercise gives at least three answers
// (two for a yes-or-no question, which has no third).
func TestEveryExercisesVariantsChangeTheAnswer(t *testing.T) {
	for _, e := range load(t).Exercises {
		answers := map[string]bool{}
		for seed := range uint64(20) {
			in := e.Instance(seed)
			sol, err := in.Solve()
			if err != nil {
				t.Fatalf("%s seed %d: %v", e.ID, seed, err)
			}
			answers[sol.Text()] = true
			if seed != 0 && in.trivial(sol) {
				t.Errorf("%s seed %d: asks for the first moment at or after %s and answers %s", e.ID, seed, scenario.FormatMs(in.At), sol.Text())
			}
			if c := in.contradiction(sol); c != "" {
				t.Errorf("%s seed %d: %s", e.ID, seed, c)
			}
		}
		if want := e.WantAnswers(); len(answers) < want {
			t.Errorf("%s: seeds 0-19 give %d answer(s) %v; want at least %d", e.ID, len(answers), keys(answers), want)
		}
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

var (
	// storyTime is a time as a story writes it; storyNumber a bare number
	// or one spelled out (not "one", which stories use as a word).
	storyTime   = regexp.MustCompile(`(\d+(?:\.\d+)?) (ms|s)\b`)
	storyNumber = regexp.MustCompile(`(?i)\b(\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty)\b`)
	spelled     = map[string]int64{"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twenty": 20}
)

// told is every value a variant's story may tell: its times (in ms) and
// its numbers, each taken from the variant's own data.
func told(in Instance) (times, numbers map[int64]bool) {
	s := in.Scenario
	times = map[int64]bool{in.At: true, s.WindowMs: true}
	numbers = map[int64]bool{s.Limit: true, int64(len(s.Requests)): true}
	var total int64
	for _, r := range s.Requests {
		times[r.At] = true
		numbers[max(r.Count, 1)] = true
		total += max(r.Count, 1)
	}
	numbers[total] = true
	specs := slices.Clone(s.Policies)
	for _, ref := range in.Exercise.Lanes() {
		if spec, err := s.Lane(ref); err == nil {
			specs = append(specs, spec)
		}
	}
	for _, spec := range specs {
		p := spec.Out(s)
		times[p.WindowMs] = true
		numbers[p.Limit] = true
		numbers[int64(p.Burst)] = true
		numbers[p.Buckets] = true
		if p.Buckets > 0 {
			times[p.WindowMs/p.Buckets] = true // one sub-bucket
		}
		if p.Limit > 0 {
			times[p.WindowMs/p.Limit] = true // one refill, or one emission interval
		}
		// On several servers: how many, how often they sync and how far
		// their clocks are apart.
		numbers[int64(p.Nodes)] = true
		times[p.SyncMs] = true
		for _, ms := range p.SkewMs.Ms() {
			times[max(ms, -ms)] = true
		}
	}
	return times, numbers
}

// Every number a story tells comes from the variant's own data: a story
// that says "a car tries at 24 s" while the data hold other cars, or
// "five requests" while the limit drawn is 7, fails here.
func TestEveryStorysNumbersComeFromTheVariantsData(t *testing.T) {
	for _, e := range load(t).Exercises {
		for seed := range uint64(20) {
			in := e.Instance(seed)
			text := in.Question()
			times, numbers := told(in)
			for _, m := range storyTime.FindAllStringSubmatch(text, -1) {
				ms, err := scenario.ParseMoment(m[0], 0)
				if err != nil || !times[ms] {
					t.Errorf("%s seed %d: the story tells %q, which is no time of the variant's data: %s", e.ID, seed, m[0], text)
				}
			}
			rest := storyTime.ReplaceAllString(text, "")
			for _, m := range storyNumber.FindAllString(rest, -1) {
				n, ok := spelled[strings.ToLower(m)]
				if !ok {
					n, _ = strconv.ParseInt(m, 10, 64)
				}
				if !numbers[n] {
					t.Errorf("%s seed %d: the story tells %q, which is no number of the variant's data: %s", e.ID, seed, m, text)
				}
			}
			// A question about one more request tells every request before it
			// the page lists, so story and list agree.
			if !e.WholeScenario() {
				tells := map[int64]bool{}
				for _, m := range storyTime.FindAllString(text, -1) {
					if ms, err := scenario.ParseMoment(m, 0); err == nil {
						tells[ms] = true
					}
				}
				for _, r := range in.Scenario.Requests {
					if !tells[r.At] {
						t.Errorf("%s seed %d: the data hold a request at %s that the story does not tell: %s", e.ID, seed, scenario.FormatMs(r.At), text)
					}
				}
			}
		}
	}
}

func TestClaimReadsWhatAStoryStates(t *testing.T) {
	for _, tt := range []struct {
		text string
		want int
	}{
		{"A request at {at} is refused. When is the first moment?", -1},
		{"A car is turned away at {at}. What is the earliest moment?", -1},
		{"A car at {at} is let in. How many more?", 1},
		{"Is a request at {at} admitted?", 0}, // asked, not stated
		{"A request at 25 s is refused. Is one at {at}?", 0},
	} {
		if got := claim(tt.text); got != tt.want {
			t.Errorf("claim(%q) = %d, want %d", tt.text, got, tt.want)
		}
	}
}

func TestParseNamesAStorysMistakes(t *testing.T) {
	for _, tt := range []struct {
		name, file, want string
	}{
		{"unknown placeholder", `{"title": "x", "question": "limit {limit} {bogus}", "scenario": "try-it", "ask": "outcome", "policy": "sliding-log", "at": "33 s"}`, "question: {bogus} is not a placeholder"},
		{"refused where admitted", `{"title": "x", "question": "A request at {at} is refused. When does one pass?", "scenario": {"limit": 5, "windowMs": 30000, "requests": [{"at": 30000, "count": 5}]}, "ask": "first-admit", "policy": "sliding-log", "at": "10 s"}`, "question: it says the request at {at} (10 s) is refused, but the sliding log admits it"},
		{"vary.limit an object", `{"title": "x", "question": "q", "scenario": "try-it", "ask": "outcome", "policy": "sliding-log", "at": "33 s", "vary": {"limit": {"from": 1, "to": 99999}}}`, "vary.limit: a JSON object, where the field takes a list of two whole numbers"},
		{"vary.at.from a number", `{"title": "x", "question": "q", "scenario": "try-it", "ask": "outcome", "policy": "sliding-log", "at": "33 s", "vary": {"at": {"from": 31, "to": "40 s", "step": "1 s"}}}`, `vary.at.from: a JSON number, where the field takes a time in quotes`},
		{"vary.window backwards", `{"title": "x", "question": "q", "scenario": "try-it", "ask": "outcome", "policy": "sliding-log", "at": "33 s", "vary": {"window": {"from": "20 s", "to": "10 s", "step": "1 s"}}}`, "vary.window: want 1 ms <= from <= to"},
	} {
		_, err := Parse([]byte(tt.file), "x.json", loadCatalog(t))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want it to say %q", tt.name, err, tt.want)
		}
	}
}

// A window drawn by vary.window scales every instant with it, so the
// story keeps its shape: the fixed window's car park, full by a third of
// the window, opens again when the next window starts.
func TestVaryWindowScalesTheStory(t *testing.T) {
	e := load(t).Get("fw-first-admit")
	if e.Vary.Window == nil {
		t.Fatal("fw-first-admit has no vary.window")
	}
	for seed := range uint64(20) {
		in := e.Instance(seed)
		sol, err := in.Solve()
		if err != nil {
			t.Fatal(err)
		}
		if sol.Moment != in.Scenario.WindowMs {
			t.Errorf("seed %d: window %s, answer %s; the next window starts at %s", seed, scenario.FormatMs(in.Scenario.WindowMs), sol.Text(), scenario.FormatMs(in.Scenario.WindowMs))
		}
		if !ask.AnswersInMoments(e.Ask) || in.At >= sol.Moment {
			t.Errorf("seed %d: asked at %s, answer %s", seed, scenario.FormatMs(in.At), sol.Text())
		}
	}
}

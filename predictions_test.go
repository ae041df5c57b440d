package playground_test

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/PuerkitoBio/goquery"

	"github.com/windowlab/playground/exercises"
	"github.com/windowlab/playground/lessons"
)

// TestEveryLessonAsksBeforeItShows: each lesson asks at least one
// prediction, and no prediction's answer is readable above it. In the
// page's visible text from the previous prediction's example (or the
// section's heading) down to the question, and in the question's own
// block, the answer as the page prints it must not appear: a time with its
// unit ("36 s", "36000 ms"), an outcome word, a count, the label of the
// policies that admit. Its hint must not use it either.
func TestEveryLessonAsksBeforeItShows(t *testing.T) {
	lib, _ := load(t)
	for _, l := range lib.Lessons {
		r, err := lib.Render(l, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Predictions) == 0 {
			t.Errorf("%s asks for no prediction before its examples", l.Slug)
		}
		for _, p := range answersAbove(t, r) {
			t.Error(p)
		}
	}
}

// answersAbove checks one rendered lesson's predictions, as
// TestEveryLessonAsksBeforeItShows says, and returns what it found.
func answersAbove(t *testing.T, r *lessons.Rendered) []string {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(r.HTML)))
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	var above strings.Builder // visible text since the last heading or example
	doc.Find("body").Children().Each(func(_ int, s *goquery.Selection) {
		switch {
		case s.Is("h2, h3, details[data-predict-reveal]"):
			above.Reset()
			return
		case !s.Is("[data-testid=predict]"):
			above.WriteString(" " + visibleText(s))
			return
		}
		id := s.AttrOr("data-predict", "")
		i := slices.IndexFunc(r.Predictions, func(p *lessons.Prediction) bool { return p.ID == id })
		if i < 0 {
			found = append(found, fmt.Sprintf("%s: a block for prediction %q, which Render did not report", r.Lesson.Slug, id))
			return
		}
		sol, err := r.Predictions[i].Exercise.Instance(0).Solve()
		if err != nil {
			t.Fatal(err)
		}
		if where := answerIn(sol, above.String()); where != "" {
			found = append(found, fmt.Sprintf("%s: the text above prediction %s gives its answer away: %q", r.Lesson.Slug, id, where))
		}
		if where := answerIn(sol, s.Find(".hint").Text()); where != "" {
			found = append(found, fmt.Sprintf("%s: prediction %s's hint uses its answer: %q", r.Lesson.Slug, id, where))
		}
		s = s.Clone()
		s.Find("label.choice, input").Remove() // an outcome's choices are "admitted" and "refused"
		if where := answerIn(sol, visibleText(s)); where != "" {
			found = append(found, fmt.Sprintf("%s: prediction %s's block shows its answer before it is committed: %q", r.Lesson.Slug, id, where))
		}
	})
	return found
}

// answerIn returns the words around the answer's first appearance in text
// as the page would print it, "" when it does not appear. Claims are marked
// «so» (see visibleText). A count is a bare number, so it counts only
// where it is not a setting: not followed by a unit or "per" ("60 per
// minute" is a limit, not 60 admitted). An outcome word is common in
// setting a scene ("five admitted in the last window") and in asking ("is
// it admitted?"), so it counts only as a claim's value or said of
// something ("the car is refused").
func answerIn(sol exercises.Solution, text string) string {
	text = strings.Join(strings.Fields(text), " ")
	var forms []string
	unit := ""
	switch sol.Kind {
	case exercises.AskFirstAdmit:
		forms = []string{regexp.QuoteMeta(sol.Text()), strconv.FormatInt(sol.Moment, 10) + " ?ms"}
	case exercises.AskCount, exercises.AskStack:
		forms = []string{strconv.Itoa(sol.Count)}
		unit = `(?: ?(?:ms|s|%|B|kB|MB|per|seconds?|minutes?|times)\b|[.,]\d)`
	case exercises.AskOutcome:
		forms = []string{"«" + sol.Text() + "»", `(?:is|are|was|were|be|gets?) (?:then |also |still |now )?` + sol.Text()}
	default:
		forms = []string{regexp.QuoteMeta(sol.Text())}
	}
	for _, f := range forms {
		re := regexp.MustCompile(`(?i)(?:^|[^\w.,])(` + f + `)`)
		for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
			rest := text[m[3]:]
			if regexp.MustCompile(`^\w`).MatchString(rest) || unit != "" && regexp.MustCompile(`^`+unit).MatchString(rest) {
				continue // a longer word or number, or a setting
			}
			return text[max(0, m[2]-40):min(len(text), m[3]+20)]
		}
	}
	return ""
}

// visibleText is the selection's text with each claim's value marked «so».
func visibleText(s *goquery.Selection) string {
	s = s.Clone()
	s.Find("[data-testid=claim]").Each(func(_ int, c *goquery.Selection) {
		c.SetText("«" + strings.TrimSpace(c.Text()) + "»")
	})
	return s.Text()
}

// exampleAllowlist holds the only computed examples a lesson may show
// without asking first, by lesson and example (Example.String), each with
// why asking would teach nothing.
var exampleAllowlist = map[[2]string]string{
	{"sliding-log", "claim {{admitted sliding-log boundary-burst}}"}:               "a recap: lesson 1 reveals it after asking about the boundary burst",
	{"sliding-log", "```memory-calculator #1"}:                                     "a calculator for the learner's own limit and key count, not an outcome to predict",
	{"sliding-counter", "claim {{admitted sliding-counter/floor boundary-burst}}"}: "a recap: lesson 1 reveals it after asking about the boundary burst",
	{"sliding-counter", "claim {{admitted sliding-log boundary-burst}}"}:           "a recap: lesson 1 reveals it after asking about the boundary burst",
	{"sliding-counter", "claim {{admitted fixed-window boundary-burst}}"}:          "a recap: lesson 1 reveals it after asking about the boundary burst",
}

// unguardedExamples names each computed example of the library's lessons
// that no prediction guards and the allowlist does not hold.
func unguardedExamples(t *testing.T, lib *lessons.Library, allow map[[2]string]string) []string {
	t.Helper()
	var out []string
	for _, l := range lib.Lessons {
		exs, err := lib.Examples(l)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range exs {
			if e.Guard == "" && allow[[2]string{l.Slug, e.String()}] == "" {
				out = append(out, l.Slug+": "+e.String())
			}
		}
	}
	return out
}

// TestEveryComputedExampleIsGuarded: every table, lane, widget and claim
// about a scenario's decisions sits inside a prediction's region, unless
// the allowlist says why it need not.
func TestEveryComputedExampleIsGuarded(t *testing.T) {
	lib, _ := load(t)
	for _, u := range unguardedExamples(t, lib, exampleAllowlist) {
		t.Errorf("%s is shown before any prediction: guard it with a ```predict block, or add it to exampleAllowlist with the reason it need not be", u)
	}
}

// TestTheGuardCheckFindsAnUnguardedExample plants a lesson with a table
// shown before any question, and checks the guard check names it, and
// accepts it once guarded or allowed.
func TestTheGuardCheckFindsAnUnguardedExample(t *testing.T) {
	const table = "```scenario-table\n{\"caption\": \"planted\", \"scenario\": \"car-park\"}\n```\n"
	const lanes = "```lanes\n{\"caption\": \"planted lanes\", \"scenario\": \"car-park\"}\n```\n"
	const predict = "```predict\n{\"id\": \"p\", \"scenario\": \"car-park\", \"policy\": \"fixed-window\", \"ask\": \"count\", \"question\": \"How many?\"}\n```\n"
	const end = "```predict-end\n```\n"
	for _, tt := range []struct {
		name  string
		body  string
		allow map[[2]string]string
		want  []string
	}{
		{"a table before any question", table, nil, []string{"planted: ```scenario-table planted"}},
		{"a claim after the region", predict + "\n" + table + "\n" + end + "\nSo {{admitted fixed-window car-park = 9}}.\n", nil, []string{"planted: claim {{admitted fixed-window car-park}}"}},
		{"a table guarded", predict + "\n" + table + "\n" + end, nil, nil},
		{"lanes guarded", predict + "\n" + lanes + "\nSo {{admitted fixed-window car-park = 9}}.\n\n" + end, nil, nil},
		{"a table allowed", table, map[[2]string]string{{"planted", "```scenario-table planted"}: "a recap"}, nil},
		{"a memory claim is no example", "It keeps {{bytes-per-key fixed-window limit 100 = 16 B}}.\n", nil, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lib, err := lessons.LoadFS(fstest.MapFS{
				"01-planted.md":           {Data: []byte("---\ntitle: Planted\nsummary: s\n---\n" + tt.body)},
				"scenarios/car-park.json": {Data: []byte(`{"limit": 5, "windowMs": 30000, "requests": [{"at": 0}, {"at": 5000, "count": 2}, {"at": 15000, "count": 2}, {"at": 25000}, {"at": 35000}, {"at": 40000, "count": 3}]}`)},
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := unguardedExamples(t, lib, tt.allow); !slices.Equal(got, tt.want) {
				t.Errorf("unguarded = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestTheAnswerAboveCheckCanFail plants answers above predictions, in
// prose and in claims, and checks each is found, and that a setting that
// happens to equal a count is not.
func TestTheAnswerAboveCheckCanFail(t *testing.T) {
	const (
		outcome = "```predict\n{\"id\": \"p\", \"scenario\": \"car-park\", \"policy\": \"sliding-counter/exact\", \"ask\": \"outcome\", \"at\": \"35 s\", \"question\": \"Is the car at 35 s admitted?\"}\n```\n\n```predict-end\n```\n"
		count   = "```predict\n{\"id\": \"p\", \"scenario\": \"car-park\", \"policy\": \"fixed-window\", \"ask\": \"count\", \"question\": \"How many get in?\"}\n```\n\n```predict-end\n```\n"
		first   = "```predict\n{\"id\": \"p\", \"scenario\": \"car-park\", \"policy\": \"fixed-window\", \"ask\": \"first-admit\", \"at\": \"25 s\", \"question\": \"When?\"}\n```\n\n```predict-end\n```\n"
	)
	for _, tt := range []struct {
		name, body string
		want       bool
	}{
		{"an outcome in prose", "## A\n\nThe car at 35 s is refused.\n\n" + outcome, true},
		{"an outcome in a claim", "The car is {{outcome sliding-counter/exact car-park at 35s = refused}}.\n\n" + outcome, true},
		{"an outcome above the heading", "The car at 35 s is refused.\n\n## A\n\n" + outcome, false},
		{"an outcome inside the previous example", strings.Replace(strings.Replace(count, `"p"`, `"q"`, 1), "\n\n```predict-end", "\n\nThe car at 35 s is refused.\n\n```predict-end", 1) + "\n" + outcome, false},
		{"an outcome after the previous example", strings.Replace(count, `"p"`, `"q"`, 1) + "\nThe car at 35 s is refused.\n\n" + outcome, true},
		{"a count", "In the end 9 of the cars get in.\n\n" + count, true},
		{"a count that is a setting", "Nine spaces, 9 per 30 s, and a 9 s wait.\n\n" + count, false},
		{"a time", "The window opens at 30 s.\n\n" + first, true},
		{"a time in ms", "The window opens at 30000 ms.\n\n" + first, true},
		{"a time that only starts alike", "The window opens at 30.5 s.\n\n" + first, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lib, err := lessons.LoadFS(fstest.MapFS{
				"01-planted.md":           {Data: []byte("---\ntitle: Planted\nsummary: s\n---\n" + tt.body)},
				"scenarios/car-park.json": {Data: []byte(`{"limit": 5, "windowMs": 30000, "requests": [{"at": 0}, {"at": 5000, "count": 2}, {"at": 15000, "count": 2}, {"at": 25000}, {"at": 35000}, {"at": 40000, "count": 3}]}`)},
			})
			if err != nil {
				t.Fatal(err)
			}
			r, err := lib.Render(lib.Lessons[0], nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Predictions) == 0 {
				t.Fatalf("no prediction rendered: %v", r.Problems)
			}
			if found := answersAbove(t, r); (len(found) > 0) != tt.want {
				t.Errorf("found %q; want an answer found: %v", found, tt.want)
			}
		})
	}
}

// TestTheListedExamplesAreAskedBeforeTold: the examples issue 22 found told
// before they were asked (lesson 1's epoch, lesson 2's exact wait, lesson
// 3's Try-it, lesson 4's stacked limits, lesson 5's choice of k) each have
// their telling only below the prediction that asks them: nowhere above
// its block, not even in an earlier prediction's reveal, which
// TestEveryLessonAsksBeforeItShows does not look into.
func TestTheListedExamplesAreAskedBeforeTold(t *testing.T) {
	lib, _ := load(t)
	for _, tt := range []struct {
		lesson, prediction string
		tellings           []string
	}{
		{"fixed-window", "epoch-first-admit", []string{"the block ends at 1000 ms"}},
		{"sliding-log", "sl-exact-wait", []string{"one window after the oldest timestamp"}},
		{"sliding-counter", "try-it-1-exact", []string{"0.9 × 5 = «4.5»"}},
		{"where-they-disagree", "stack", []string{"only «60» get through"}},
		{"ring-of-buckets", "cache-line-k", []string{"k = 60", "«504 B»", "«1.1 %»"}},
	} {
		l := lib.Lesson(tt.lesson)
		if l == nil {
			t.Fatalf("no lesson %q", tt.lesson)
		}
		r, err := lib.Render(l, nil)
		if err != nil {
			t.Fatal(err)
		}
		above, below, found := tellingSides(t, r, tt.prediction)
		if !found {
			t.Errorf("%s: no prediction %q", tt.lesson, tt.prediction)
			continue
		}
		for _, tell := range tt.tellings {
			if strings.Contains(above, tell) {
				t.Errorf("%s: %q is told above prediction %s, which asks it", tt.lesson, tell, tt.prediction)
			}
			if !strings.Contains(below, tell) {
				t.Errorf("%s: %q is not told below prediction %s either: the check has nothing to hold", tt.lesson, tell, tt.prediction)
			}
		}
	}
}

// tellingSides returns the visible prose of a rendered lesson above the
// prediction id's block and below it, claims marked «so»; the widgets'
// controls (a slider's choices of k) are left out, being settings to pick
// rather than anything told.
func tellingSides(t *testing.T, r *lessons.Rendered, id string) (above, below string, found bool) {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(r.HTML)))
	if err != nil {
		t.Fatal(err)
	}
	var a, b strings.Builder
	doc.Find("body").Children().Each(func(_ int, s *goquery.Selection) {
		s = s.Clone()
		s.Find("form, .k-links").Remove()
		switch {
		case s.Is("[data-testid=predict]") && s.AttrOr("data-predict", "") == id:
			found = true
		case found:
			b.WriteString(" " + visibleText(s))
		default:
			a.WriteString(" " + visibleText(s))
		}
	})
	norm := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	return norm(a.String()), norm(b.String()), found
}

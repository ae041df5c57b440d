package exercises

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/windowlab/playground/ask"
	"github.com/windowlab/playground/scenario"
)

//go:embed *.json
var content embed.FS

// The kinds of question an exercise can ask.
const (
	AskOutcome    = "outcome"     // is a request at "at" admitted?
	AskFirstAdmit = "first-admit" // the first instant at or after "at" that admits a request
	AskCount      = "count"       // how many of the scenario's requests are admitted
	AskWhich      = "which"       // which of "policies" admit a request at "at"
	// AskStack is how many of the scenario's requests its own lanes admit
	// when applied in turn, as a service stacks a per-second and a
	// per-minute limit (scenario.Stacked, as a lesson's stacked lanes).
	AskStack = "stack"
	// AskCacheLineK is the largest k of a ring of sub-buckets that divides
	// the scenario's window and whose state for one key fits a 64-byte
	// cache line (scenario.CacheLineBuckets, as the ring lesson's claim).
	AskCacheLineK = "cache-line-k"
)

// AsksWholeScenario reports whether a question of the kind, in an
// exercise file, is about the scenario as a whole rather than about one
// more request at an instant: the file then gives no "at".
func AsksWholeScenario(kind string) bool {
	k, ok := ask.Lookup(kind)
	return ok && k.Instant() != ask.AtInstant
}

// WholeScenario reports whether the question is about the scenario as a
// whole rather than about one more request at an instant.
func (e *Exercise) WholeScenario() bool { return AsksWholeScenario(e.Ask) }

// Exercise is one exercise file.
type Exercise struct {
	ID       string          `json:"id"`
	Title    string          `json:"title"`
	Lesson   string          `json:"lesson"`
	Question string          `json:"question"`
	Scenario json.RawMessage `json:"scenario"` // a scenario name or an inline scenario
	Policy   string          `json:"policy"`
	Policies []string        `json:"policies"`
	Ask      string          `json:"ask"`
	At       string          `json:"at"`
	Explain  string          `json:"explain"`
	Vary     *Vary           `json:"vary"`
	Comment  string          `json:"comment"`

	base scenario.Scenario
	at   int64
}

// Vary says how "Another one" changes the exercise. Each field is optional.
type Vary struct {
	At    *Range    `json:"at"`    // a new question time, in steps
	Limit *[2]int64 `json:"limit"` // a new limit in [from, to]; requests whose count was the limit keep filling it, an evenly spread full window is spread again
	// Window is a new window, in steps; every instant of the scenario and
	// the question's (drawn or written) is scaled with it, so the story
	// keeps its shape while its answer moves. A draw whose instants would
	// not fall on whole milliseconds is drawn again.
	Window *Range `json:"window"`
}

// Range is an inclusive span of times written as people write them.
type Range struct {
	From string `json:"from"`
	To   string `json:"to"`
	Step string `json:"step"`

	from, to, step int64
}

// parse reads the range's times, saying what is wrong under field: each
// a time, from at least least, to no earlier than from, in steps of at
// least a millisecond.
func (r *Range) parse(field string, least int64, bad func(string, ...any)) {
	for _, f := range []struct {
		name string
		text string
		dst  *int64
	}{{"from", r.From, &r.from}, {"to", r.To, &r.to}, {"step", r.Step, &r.step}} {
		var err error
		if *f.dst, err = scenario.ParseMoment(f.text, 0); err != nil {
			bad("%s.%s: %v", field, f.name, err)
		}
	}
	if r.from < least || r.step < 1 || r.to < r.from {
		bad("%s: want %s <= from <= to and a step of at least 1 ms", field, scenario.FormatMs(least))
	}
}

// Catalog is what an exercise file may name: the shared scenarios it runs
// and the lesson it belongs to. The lessons library is the catalog the
// site uses; declaring it here keeps this package free of the lessons'
// rendering, and lets the lessons link to exercises.
type Catalog interface {
	Scenario(name string) (scenario.Scenario, error)
	HasLesson(slug string) bool
}

// Set is every exercise, in file-name order.
type Set struct {
	Exercises []*Exercise
}

// Load reads the exercises embedded in this package, resolving scenarios
// and lessons by name through lib.
func Load(lib Catalog) (*Set, error) {
	return LoadFS(content, lib)
}

// LoadFS reads every *.json file at the top of fsys.
func LoadFS(fsys fs.FS, lib Catalog) (*Set, error) {
	names, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return nil, err
	}
	set := &Set{}
	var errs []error
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		e, err := Parse(data, name, lib)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if set.Get(e.ID) != nil {
			errs = append(errs, fmt.Errorf("exercises: %s: a second exercise with id %q", name, e.ID))
			continue
		}
		set.Exercises = append(set.Exercises, e)
	}
	return set, errors.Join(errs...)
}

// Get returns the exercise with the id, or nil.
func (s *Set) Get(id string) *Exercise {
	for _, e := range s.Exercises {
		if e.ID == id {
			return e
		}
	}
	return nil
}

// Parse reads and validates one exercise file. name is the file's name,
// used for messages and as the id when the file gives none. Every problem
// is reported, each naming its field.
func Parse(data []byte, name string, lib Catalog) (*Exercise, error) {
	var e Exercise
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return nil, fmt.Errorf("exercises: %s: %s", name, decodeProblem(err))
	}
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if e.ID == "" {
		e.ID = strings.TrimSuffix(path.Base(name), ".json")
	}
	for _, r := range e.ID {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			bad("id: %q may hold only a-z, 0-9 and -", e.ID)
			break
		}
	}
	if e.Title == "" {
		bad("title: missing")
	}
	if e.Question == "" {
		bad("question: missing")
	}
	if unknown := unknownPlaceholders(e.Question); len(unknown) > 0 {
		bad("question: %s %s not a placeholder; the question may use %s", strings.Join(unknown, ", "), isAre(len(unknown)), strings.Join(placeholderNames(), ", "))
	}
	if lib != nil && e.Lesson != "" && !lib.HasLesson(e.Lesson) {
		bad("lesson: no lesson %q", e.Lesson)
	}
	s, err := resolveScenario(e.Scenario, lib)
	if err != nil {
		bad("scenario: %v", err)
	}
	e.base = s
	kind, known := ask.Lookup(e.Ask)
	switch {
	case !known:
		bad("ask: %q is not one of %s", e.Ask, strings.Join(ask.Names(), ", "))
	case kind.Lanes() == ask.AnyLanes:
		if e.Policy == "" {
			bad("policy: missing (for example \"sliding-counter/exact\")")
		} else if _, err := s.Lane(e.Policy); err != nil {
			// s.Lane reads "#N" too: the scenario's own lane, with the
			// servers it runs on, which a short ref cannot write.
			if strings.HasPrefix(e.Policy, "#") {
				bad("policy: %q: the scenario's lanes are %s", e.Policy, strings.Join(ownLanes(s), ", "))
			} else {
				bad("policy: %v", err)
			}
		}
		if len(e.Policies) > 0 {
			bad("policies: only a \"which\" question lists policies; use policy")
		}
	case kind.Lanes() == ask.SeveralLanes:
		if len(e.Policies) < 2 {
			bad("policies: a %q question needs at least two", e.Ask)
		}
		for i, p := range e.Policies {
			if _, err := scenario.ParsePolicyRef(p); err != nil {
				bad("policies[%d]: %v", i, err)
			}
		}
		if e.Policy != "" {
			bad("policy: a %q question lists its policies under policies", e.Ask)
		}
	case kind.Lanes() == ask.NoLanes:
		if e.Policy != "" || len(e.Policies) > 0 {
			bad("policy: a %s question is about %s; leave policy and policies out", e.Ask, kind.About())
		}
	}
	if !e.WholeScenario() {
		if e.At == "" {
			bad("at: missing (the time of the request asked about, like \"33 s\")")
		} else if e.at, err = scenario.ParseMoment(e.At, 0); err != nil {
			bad("at: %v", err)
		}
	} else if e.At != "" {
		bad("at: a %s question is about the whole scenario; leave at out", e.Ask)
	}
	if v := e.Vary; v != nil {
		if v.At != nil {
			if e.WholeScenario() {
				bad("vary.at: a %s question has no time to vary", e.Ask)
			}
			v.At.parse("vary.at", 0, bad)
		}
		if v.Window != nil {
			v.Window.parse("vary.window", 1, bad)
			if v.Window.to > scenario.MaxWindowMs {
				bad("vary.window.to: %s is longer than the longest window, %s", v.Window.To, scenario.FormatMs(scenario.MaxWindowMs))
			}
		}
		if v.Limit != nil && (v.Limit[0] < 1 || v.Limit[1] < v.Limit[0] || v.Limit[1] > 1000) {
			bad("vary.limit: want [from, to] with 1 <= from <= to <= 1000")
		}
	}
	if len(problems) == 0 {
		// The answer must be computable: a file whose question has no answer
		// is as broken as one with a missing field.
		in := e.Instance(0)
		if sol, err := in.Solve(); err != nil {
			bad("computing the answer: %v", err)
		} else if !in.onGrid(sol) {
			bad("computing the answer: %s is a moment between two milliseconds rounded up, which no one working by hand would write; choose numbers whose answer falls on a millisecond", sol.Text())
		} else if c := in.contradiction(sol); c != "" {
			bad("question: %s", c)
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("exercises: %s: %s", name, strings.Join(problems, "; "))
	}
	return &e, nil
}

func resolveScenario(raw json.RawMessage, lib Catalog) (scenario.Scenario, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return scenario.Scenario{}, errors.New("missing (a scenario name such as \"try-it\", or a scenario object)")
	}
	if raw[0] == '"' {
		var name string
		if err := json.Unmarshal(raw, &name); err != nil {
			return scenario.Scenario{}, err
		}
		if lib == nil {
			return scenario.Scenario{}, fmt.Errorf("no scenario library to find %q in", name)
		}
		return lib.Scenario(name)
	}
	return scenario.Parse(raw)
}

// Lanes returns the policies the exercise asks about; none for a kind
// about something else (a stack, which asks about the scenario's own
// lanes, or a ring's k).
func (e *Exercise) Lanes() []string {
	k, ok := ask.Lookup(e.Ask)
	switch {
	case !ok || k.Lanes() == ask.NoLanes:
		return nil
	case k.Lanes() == ask.SeveralLanes:
		return slices.Clone(e.Policies)
	}
	return []string{e.Policy}
}

// LaneNames names the lanes the variant asks about for its author: a
// policy ref as it is written, and the scenario's own lane "#N" with what
// that lane is, "#1 (fixed-window on 3 nodes, sync 500 ms)", since the
// bare index says nothing to someone reading a message about it.
func (in Instance) LaneNames() []string {
	refs := in.Exercise.Lanes()
	out := make([]string, len(refs))
	for i, ref := range refs {
		out[i] = laneName(in.Scenario, ref)
	}
	return out
}

func laneName(s scenario.Scenario, ref string) string {
	if !strings.HasPrefix(ref, "#") {
		return ref
	}
	spec, err := s.Lane(ref)
	if err != nil {
		return ref
	}
	return ref + " (" + spec.Label(s) + ")"
}

// ownLanes names each of the scenario's lanes as "#N (label)".
func ownLanes(s scenario.Scenario) []string {
	specs := s.Specs()
	out := make([]string, len(specs))
	for i, spec := range specs {
		out[i] = fmt.Sprintf("#%d (%s)", i+1, spec.Label(s))
	}
	return out
}

// Kind is the exercise's kind of question; Parse has checked it is one.
func (e *Exercise) Kind() ask.Kind {
	k, _ := ask.Lookup(e.Ask)
	return k
}

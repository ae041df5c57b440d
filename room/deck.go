package room

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/windowlab/playground/scenario"
)

// A deck is a workshop prepared beforehand: a sequence of steps, each a
// scenario to show and, if the presenter wants, a question to ask about it
// with its countdown, and a note only the presenter sees. It is written as
// a JSON file (docs/rooms.md, decks/README.md), checked by `playground
// check`, loaded into a room, stepped through with one key, and saved back
// from the room.

// MaxDeckBytes bounds a deck file: fifty steps of lesson-sized scenarios
// take well under a quarter of it, and a room keeps the deck in its value.
const MaxDeckBytes = 256 << 10

// Deck is a prepared workshop.
type Deck struct {
	Title   string `json:"title"`
	Comment string `json:"comment,omitempty"` // for whoever edits the file; not shown
	Steps   []Step `json:"steps"`
}

// Step is one step of a deck.
type Step struct {
	// Title heads the step on the presenter's screen and the remote.
	Title string `json:"title"`
	// Note is for the presenter's own screen only, never the projector.
	Note string `json:"note,omitempty"`
	// Scenario is what the lanes show: the requests before the question's
	// moment, or the whole scenario for a step without a question.
	Scenario scenario.Scenario `json:"scenario"`
	// Ask is the question, nil for a step that only shows.
	Ask *StepAsk `json:"ask,omitempty"`
}

// StepAsk is a step's question as a deck file writes it: the fields of Ask
// in the words a person types ("40 s", lanes counted from 1).
type StepAsk struct {
	Kind Kind   `json:"kind"`
	At   string `json:"at"`
	Key  string `json:"key,omitempty"`
	Cost int64  `json:"cost,omitempty"`
	N    int64  `json:"n,omitempty"`
	// Lanes are the scenario's lanes asked about, the first being 1; none
	// means every lane.
	Lanes []int `json:"lanes,omitempty"`
	// Seconds is the countdown, 0 for none. RevealOnTime and
	// RevealWhenAll default to true with a countdown, false without.
	Seconds       int   `json:"seconds,omitempty"`
	RevealOnTime  *bool `json:"revealOnTime,omitempty"`
	RevealWhenAll *bool `json:"revealWhenAll,omitempty"`
}

// Ask is the step's question as the room asks it. It fails, naming the
// field, on a moment it cannot read.
func (s StepAsk) ask() (Ask, error) {
	at, err := scenario.ParseMoment(s.At, 0)
	if err != nil {
		return Ask{}, fieldErr("at", "%v (write a time such as \"40 s\" or \"500 ms\")", err)
	}
	a := Ask{Kind: s.Kind, At: at, Key: s.Key, Cost: s.Cost, N: s.N, Timer: Timer{Seconds: s.Seconds}}
	for _, l := range s.Lanes {
		a.Lanes = append(a.Lanes, l-1)
	}
	timed := s.Seconds > 0
	a.Timer.OnTime = timed
	if s.RevealOnTime != nil {
		a.Timer.OnTime = *s.RevealOnTime
	}
	a.Timer.WhenAll = timed
	if s.RevealWhenAll != nil {
		a.Timer.WhenAll = *s.RevealWhenAll
	}
	return a, nil
}

// Shown is the scenario a step puts on screen: for a question, its
// requests before the question's moment, with the clock at that moment;
// for a step that only shows, every request, with the clock at the last.
func (s Step) Shown() (sc scenario.Scenario, clockMs int64) {
	sc = s.Scenario
	sc.Policies = slices.Clone(sc.Policies)
	if s.Ask == nil {
		sc.Requests = slices.Clone(sc.Requests)
		if n := len(sc.Requests); n > 0 {
			clockMs = sc.Requests[n-1].At
		}
		return sc, clockMs
	}
	a, _ := s.Ask.ask() // checked by ParseDeck
	sc.Requests = nil
	for _, r := range s.Scenario.Requests {
		if r.At < a.At {
			sc.Requests = append(sc.Requests, r)
		}
	}
	return sc, a.At
}

// Question is the step's question as Rooms.Ask takes it; false for a step
// that only shows.
func (s Step) Question() (Ask, bool) {
	if s.Ask == nil {
		return Ask{}, false
	}
	a, err := s.Ask.ask()
	return a, err == nil
}

// ScenarioSource finds a scenario by name, as the lessons' library does.
type ScenarioSource interface {
	Scenario(name string) (scenario.Scenario, error)
}

// DeckError lists every problem of a deck, each naming its field
// ("steps[2].ask.at").
type DeckError struct {
	Name     string // the file's name, for messages
	Problems []string
}

func (e *DeckError) Error() string {
	return fmt.Sprintf("deck %s: %s", e.Name, strings.Join(e.Problems, "; "))
}

type fieldError struct {
	field string
	why   string
}

func (e *fieldError) Error() string { return e.field + ": " + e.why }

func fieldErr(field, format string, args ...any) error {
	return &fieldError{field, fmt.Sprintf(format, args...)}
}

// wireDeck is a deck file: a step's scenario is a name or an object.
type wireDeck struct {
	Title   string     `json:"title"`
	Comment string     `json:"comment"`
	Steps   []wireStep `json:"steps"`
}

type wireStep struct {
	Title    string          `json:"title"`
	Note     string          `json:"note"`
	Scenario json.RawMessage `json:"scenario"`
	Ask      *StepAsk        `json:"ask"`
}

// ParseDeck reads and checks a deck file: every field, every scenario
// (by name through src, or written out) and every question, which is
// built and solved against its step's scenario as the room would, so a
// deck that checks cleanly runs without a refusal in front of a room.
// Every problem is reported, each naming its field.
func ParseDeck(data []byte, name string, src ScenarioSource, b Bounds) (*Deck, error) {
	bad := &DeckError{Name: name}
	add := func(format string, args ...any) { bad.Problems = append(bad.Problems, fmt.Sprintf(format, args...)) }
	if len(data) > MaxDeckBytes {
		add("the file holds %d bytes, more than a deck may (%d)", len(data), MaxDeckBytes)
		return nil, bad
	}
	var w wireDeck
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		add("%s", jsonProblem(err))
		return nil, bad
	}
	if dec.More() {
		add("more than one JSON value: a deck is one object")
		return nil, bad
	}
	d := &Deck{Title: strings.TrimSpace(w.Title), Comment: w.Comment}
	if d.Title == "" {
		add("title: missing (the workshop's name, shown to the presenter)")
	}
	switch {
	case len(w.Steps) == 0:
		add("steps: missing (a deck has at least one step)")
	case len(w.Steps) > b.Steps:
		add("steps: %d steps, more than a deck may hold (%d)", len(w.Steps), b.Steps)
	}
	for i, ws := range w.Steps {
		field := fmt.Sprintf("steps[%d]", i)
		st, errs := parseStep(ws, src, b)
		for _, err := range errs {
			add("%s.%v", field, err)
		}
		d.Steps = append(d.Steps, st)
	}
	if len(bad.Problems) > 0 {
		return nil, bad
	}
	return d, nil
}

func parseStep(ws wireStep, src ScenarioSource, b Bounds) (Step, []error) {
	var errs []error
	st := Step{Title: strings.TrimSpace(ws.Title), Note: ws.Note, Ask: ws.Ask}
	if st.Title == "" {
		errs = append(errs, fieldErr("title", "missing (a few words the presenter's screen heads the step with)"))
	}
	raw := bytes.TrimSpace(ws.Scenario)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		errs = append(errs, fieldErr("scenario", "missing (a lesson scenario's name such as \"car-park\", or a scenario object)"))
		return st, errs
	case raw[0] == '"':
		var name string
		if err := json.Unmarshal(raw, &name); err != nil {
			errs = append(errs, fieldErr("scenario", "%v", err))
			return st, errs
		}
		sc, err := src.Scenario(name)
		if err != nil {
			errs = append(errs, fieldErr("scenario", "%v", err))
			return st, errs
		}
		st.Scenario = sc
	default:
		sc, err := scenario.Parse(raw)
		if err != nil {
			errs = append(errs, fieldErr("scenario", "%v", err))
			return st, errs
		}
		st.Scenario = sc
	}
	if st.Ask == nil {
		return st, errs
	}
	a, err := st.Ask.ask()
	if err != nil {
		return st, append(errs, prefixed("ask.", err))
	}
	// The room refuses what newQuestion refuses: build and solve it now,
	// against the whole scenario, so a question at an instant the file's
	// own requests take is refused rather than silently asked without them.
	if _, err := newQuestion(0, a, st.Scenario, b, time.Time{}); err != nil {
		errs = append(errs, fieldErr("ask", "%s", strings.TrimPrefix(err.Error(), "room: ")))
	}
	return st, errs
}

func prefixed(p string, err error) error {
	var fe *fieldError
	if errors.As(err, &fe) {
		return &fieldError{p + fe.field, fe.why}
	}
	return fieldErr(strings.TrimSuffix(p, "."), "%v", err)
}

// jsonProblem words a decoding error for a deck's author.
func jsonProblem(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("not JSON at byte %d: %v", syn.Offset, err)
	case errors.As(err, &typ):
		return fmt.Sprintf("%s: want %s, not %s", typ.Field, typ.Type, typ.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return fmt.Sprintf("%s is not a field of a deck (title, comment, steps; a step: title, note, scenario, ask)", strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return err.Error()
}

// MarshalDeck writes d as a deck file ParseDeck reads back, with every
// scenario written out.
func MarshalDeck(d *Deck) ([]byte, error) {
	return json.MarshalIndent(d, "", "  ")
}

// clone copies the deck deeply.
func (d *Deck) clone() *Deck {
	if d == nil {
		return nil
	}
	c := *d
	c.Steps = make([]Step, len(d.Steps))
	for i, s := range d.Steps {
		s.Scenario.Policies = slices.Clone(s.Scenario.Policies)
		s.Scenario.Requests = slices.Clone(s.Scenario.Requests)
		if s.Ask != nil {
			a := *s.Ask
			a.Lanes = slices.Clone(a.Lanes)
			s.Ask = &a
		}
		c.Steps[i] = s
	}
	return &c
}

// Errors about decks in a room.
var (
	ErrNoDeck   = errors.New("room: no deck is loaded; load one first")
	ErrNoStep   = errors.New("room: the deck has no such step")
	ErrDeckFull = errors.New("room: the deck holds its maximum of steps")
)

// LoadDeck puts deck d (checked by ParseDeck) in the room, before its
// first step.
func (rs *Rooms) LoadDeck(ctx context.Context, id, presenter string, d *Deck) (*Room, error) {
	if len(d.Steps) > rs.bounds.Steps {
		return nil, ErrDeckFull
	}
	return rs.update(ctx, id, presenter, "", ActStep, func(r *Room, _ time.Time) error {
		r.Deck = d.clone()
		r.Step = -1
		return nil
	})
}

// GoTo makes step i of the room's deck the one on screen and returns it:
// the caller loads its scenario into the session (Step.Shown) and asks its
// question (Step.Question), as the presenter's own controls would.
func (rs *Rooms) GoTo(ctx context.Context, id, presenter string, i int) (*Room, Step, error) {
	var st Step
	r, err := rs.update(ctx, id, presenter, "", ActStep, func(r *Room, _ time.Time) error {
		if r.Deck == nil {
			return ErrNoDeck
		}
		if i < 0 || i >= len(r.Deck.Steps) {
			return ErrNoStep
		}
		r.Step = i
		st = r.Deck.clone().Steps[i]
		return nil
	})
	return r, st, err
}

// AddStep appends a step to the room's deck (starting one titled title if
// there is none): the presenter's way to build a deck from the controls,
// one shown scenario and question at a time.
func (rs *Rooms) AddStep(ctx context.Context, id, presenter, title string, st Step) (*Room, error) {
	return rs.update(ctx, id, presenter, "", ActStep, func(r *Room, _ time.Time) error {
		if r.Deck == nil {
			r.Deck = &Deck{Title: title}
			r.Step = -1
		}
		if len(r.Deck.Steps) >= rs.bounds.Steps {
			return ErrDeckFull
		}
		r.Deck.Steps = append(r.Deck.Steps, *st.copy())
		return nil
	})
}

func (s Step) copy() *Step {
	c := (&Deck{Steps: []Step{s}}).clone().Steps[0]
	return &c
}

// MoveStep moves step i of the deck by delta places (-1 up, +1 down), or
// deletes it with delta 0.
func (rs *Rooms) MoveStep(ctx context.Context, id, presenter string, i, delta int) (*Room, error) {
	return rs.update(ctx, id, presenter, "", ActStep, func(r *Room, _ time.Time) error {
		if r.Deck == nil {
			return ErrNoDeck
		}
		steps := r.Deck.Steps
		if i < 0 || i >= len(steps) {
			return ErrNoStep
		}
		if delta == 0 {
			r.Deck.Steps = slices.Delete(steps, i, i+1)
			if r.Step >= len(r.Deck.Steps) {
				r.Step = len(r.Deck.Steps) - 1
			}
			return nil
		}
		j := i + delta
		if j < 0 || j >= len(steps) {
			return ErrNoStep
		}
		steps[i], steps[j] = steps[j], steps[i]
		return nil
	})
}

// Preview builds and solves question a about sc outside any room, as a
// deck's check prints it.
func Preview(a Ask, sc scenario.Scenario) (*Question, Solution, error) {
	q, err := newQuestion(1, a, sc, DefaultBounds(), time.Time{})
	if err != nil {
		return nil, Solution{}, err
	}
	sol, err := q.Solve(sc)
	return q, sol, err
}

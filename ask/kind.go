package ask

import (
	"fmt"
	"slices"
	"strings"

	"github.com/windowlab/playground/scenario"
)

// Kind is one kind of question. The methods that read or word one lane's
// value (Value, Check, Word, Choices) serve a room, whose answers are one
// number per lane; Parse, Grade and Text serve the exercises and
// predictions, whose answer is one typed text (and ticked boxes).
type Kind interface {
	// Name is how files and forms name the kind ("first-admit").
	Name() string
	// Instant says whether a question of the kind is about a request at
	// an instant (Question.Request).
	Instant() Instant
	// Lanes says how many lanes a question of the kind asks about.
	Lanes() LaneRule
	// About says, for a kind that asks about no lanes of its own, what it
	// is about instead ("the scenario's own lanes, in order"); "" for the
	// others.
	About() string
	// Validate checks what q asks of the kind beyond what its Instant,
	// Lanes and AsksAboutN say (ask.Validate checks those first), naming
	// what is wrong. It does not solve q.
	Validate(q *Question) error
	// Solve computes the truth by running the policies.
	Solve(q Question) (Solution, error)
	// Parse reads a typed answer (and, for a kind with boxes, the ticked
	// choices: lane refs, or "none"). An answer it cannot read is an
	// UnreadableError saying what would be read.
	Parse(q Question, text string, choices []string) (Answer, error)
	// Grade reads text (and choices) and compares the answer with sol.
	Grade(q Question, sol Solution, text string, choices []string) Feedback
	// Clue says, for a wrong answer a, which part of the working it differs
	// in (a request miscounted, a window, the retry, a millisecond at the
	// edge) without stating the right answer: the step between "Not quite"
	// and the answer. "" when there is nothing to point at.
	Clue(q Question, sol Solution, a Answer) string
	// Text words an answer, given or right, as the pages state it.
	Text(q Question, a Answer) string
	// Hint says what kind of answer the field takes, in the words of the
	// form asking (an exercise page, or a prediction in a lesson). A
	// time's examples are worked out from sol so that none is the answer.
	Hint(q Question, sol Solution, form Form) string
	// Ask words the question, for a room, which asks without a text of its
	// own.
	Ask(q Question) string
	// Value reads one lane's answer as a phone sends it: a tapped choice
	// or a typed text.
	Value(q Question, lane int, text string) (int64, error)
	// Check says what is wrong with v as lane's answer, "" when nothing.
	Check(q Question, lane int, v int64) string
	// Word writes one lane's value the way the kind means it.
	Word(q Question, v int64) string
	// Choices are the one-tap values of every lane, in the order offered;
	// nil when the answer is typed.
	Choices(q Question) []int64
}

// Instant is whether a kind of question is about a request at an instant.
type Instant int

const (
	// AtInstant: the question is about one more request (or N of them) at
	// an instant; Question.Request is required.
	AtInstant Instant = iota
	// Either: asked with a request, the question is about it; asked with
	// none, about the scenario's own requests.
	Either
	// WholeScenario: the question is about the scenario as a whole and
	// takes no request.
	WholeScenario
)

// LaneRule is how many lanes a kind of question asks about.
type LaneRule int

const (
	// AnyLanes: one or more, each answered alone (an exercise names one).
	AnyLanes LaneRule = iota
	// SeveralLanes: at least two, answered together.
	SeveralLanes
	// NoLanes: none of its own; the question is about something else
	// (Kind.About).
	NoLanes
)

// aKind is the kind's name after its indefinite article, as an error
// message starts: "an admit", "an outcome", "a count". Kind names are
// lower-case words whose first letter decides (none starts with a silent
// consonant or a "you" sound), so the letter is enough.
func aKind(k Kind) string {
	name := k.Name()
	if name != "" && strings.ContainsRune("aeiou", rune(name[0])) {
		return "an " + name
	}
	return "a " + name
}

// checkLanes checks q's lanes against the kind's rule.
func checkLanes(q *Question, k Kind) error {
	switch n := len(q.Lanes); {
	case k.Lanes() == AnyLanes && n == 0:
		return fmt.Errorf("%s question asks about at least one lane", aKind(k))
	case k.Lanes() == SeveralLanes && n < 2:
		return fmt.Errorf("%s question asks about at least two lanes", aKind(k))
	case k.Lanes() == NoLanes && n > 0:
		return fmt.Errorf("%s question is about %s: it takes no lanes", aKind(k), k.About())
	}
	return nil
}

// Form is where an answer is typed, for Hint.
type Form int

const (
	ExercisePage Form = iota // an exercise's own page
	Prediction               // a prediction block in a lesson
)

// Never is a lane's value for "no instant within the horizon admits it".
const Never int64 = -1

// HorizonWindows is how far a first-admit question looks, in windows of
// the lane: three windows, by which every policy has forgotten everything
// before the question.
const HorizonWindows = 3

// Lane is one policy a question asks about.
type Lane struct {
	Spec scenario.PolicySpec
	// Ref is the short form the question was written with
	// (scenario.ParsePolicyRef), which a ticked box sends back; "" for a
	// lane taken from the scenario, which has none.
	Ref string
}

// Question is one question of a kind.
type Question struct {
	Kind string
	// Scenario holds the settings and the requests the question is about.
	// Requests at or after Request.At are not replayed.
	Scenario scenario.Scenario
	// Lanes are the policies asked about, in order; a kind about the
	// scenario's own lanes, or about none, has none.
	Lanes []Lane
	// Request is the request asked about, with Count the number of them
	// (a count question's N); nil for a question about the scenario's own
	// requests. A Key of "" is the scenario's client (scenario.WhatIf).
	Request *scenario.Request
	// MaxN bounds a count question's N (0: no request may be asked about
	// more than once).
	MaxN int64
	// NeverAnswers lets a first-admit question have no admitting instant
	// as its truth (Never). Without it a question no instant answers
	// cannot be asked: an exercise must have an answer to compute.
	// Likewise a wait question whose request a lane refuses: with it that
	// lane's truth is Never (refused, it never waits), without it the
	// question cannot be asked.
	NeverAnswers bool
}

// LaneRefs are the refs of q's lanes, in order.
func (q Question) LaneRefs() []string {
	out := make([]string, len(q.Lanes))
	for i, l := range q.Lanes {
		out[i] = l.Ref
	}
	return out
}

// horizon is how far a first-admit question looks in lane i, in ms.
func (q Question) horizon(i int) int64 { return Horizon(q.Scenario, q.Lanes[i].Spec) }

// Horizon is how far after the asked instant a first-admit question looks
// for the lane of spec in s: HorizonWindows of the lane's own window. A
// lesson's claim looks as far, so that a claim and an exercise agree.
func Horizon(s scenario.Scenario, spec scenario.PolicySpec) int64 {
	return HorizonWindows * spec.Params(s).WindowMs
}

// request is the asked request, one of them, with a cost of at least 1.
func (q Question) request() scenario.Request {
	r := *q.Request
	r.Count = 1
	if r.Cost == 0 {
		r.Cost = 1
	}
	return r
}

// Solution is a question's truth with the working that produced it.
type Solution struct {
	Kind string
	// Truth is the right value per lane (for a question about the whole
	// scenario, one value): 1 admitted or 0 refused, a count, a moment
	// in ms (Never), or a wait in ms (Never for a refusal).
	Truth []int64
	// The single answer an exercise states, in the field of its kind.
	Outcome bool     // outcome: is the request admitted?
	Moment  int64    // first-admit: ms
	Wait    int64    // wait: ms (Never for a refused request, in a room)
	Count   int      // count, stack; k for cache-line-k
	Admit   []string // which: the refs of the lanes that admit
	Trace   []Step
}

// Answer is an answer as read.
type Answer struct {
	Outcome bool
	Moment  int64
	Wait    int64 // ms
	Count   int
	Admit   []string // refs, in the question's lane order
	Bare    bool     // a time written without a unit, read as seconds
}

// Feedback is the result of checking one answer.
type Feedback struct {
	Readable   bool
	Problem    string // why the answer could not be read
	Correct    bool
	Given      string // the answer as read, in the page's words
	Right      string // the computed answer, in the page's words
	Solution   Solution
	Difference string // for times: how far off the answer was, "2.5 s too early"
	// Direction says which way a wrong time or count is off ("too early",
	// "too many") without giving the answer away, so the learner can try
	// again before looking.
	Direction string
	// Clue is, for a wrong answer, the kind's hint worked out from it
	// (Kind.Clue).
	Clue string
}

// kinds is the registry: every kind, by name, in the order registered.
var kinds []Kind

// register adds a kind; each kind's file calls it from init.
func register(k Kind) {
	if _, ok := Lookup(k.Name()); ok {
		panic("ask: a second kind named " + k.Name())
	}
	kinds = append(kinds, k)
}

// Lookup finds the kind with the name.
func Lookup(name string) (Kind, bool) {
	i := slices.IndexFunc(kinds, func(k Kind) bool { return k.Name() == name })
	if i < 0 {
		return nil, false
	}
	return kinds[i], true
}

// Names lists the kinds' names, each quoted by nothing, in the order
// registered.
func Names() []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k.Name()
	}
	return out
}

// Of is the kind of the question, or an error naming the kinds there are.
func Of(q Question) (Kind, error) {
	if k, ok := Lookup(q.Kind); ok {
		return k, nil
	}
	return nil, fmt.Errorf("%q is not one of %s", q.Kind, strings.Join(Names(), ", "))
}

// Solve validates q and computes its truth.
func Solve(q Question) (Solution, error) {
	k, err := Of(q)
	if err != nil {
		return Solution{}, err
	}
	if err := q.Scenario.Validate(); err != nil {
		return Solution{}, err
	}
	if err := validate(k, &q); err != nil {
		return Solution{}, err
	}
	return k.Solve(q)
}

// Validate checks what q asks of its kind, naming what is wrong, and
// fills in the defaults (a count of one request). It does not solve q.
func Validate(q *Question) error {
	k, err := Of(*q)
	if err != nil {
		return err
	}
	return validate(k, q)
}

func validate(k Kind, q *Question) error {
	if err := checkRequest(q, k, AsksAboutN(k.Name())); err != nil {
		return err
	}
	if err := checkLanes(q, k); err != nil {
		return err
	}
	return k.Validate(q)
}

// checkRequest checks the request of a question about one at an instant:
// required by AtInstant, refused by WholeScenario, and of a count of one
// unless the kind takes more (many). A count of 0 means one.
func checkRequest(q *Question, k Kind, many bool) error {
	if q.Request != nil {
		own := *q.Request // the caller's request stays as it was
		q.Request = &own
	}
	r := q.Request
	switch {
	case r == nil && k.Instant() == AtInstant:
		return fmt.Errorf("%s question is about a request at an instant: give the instant", aKind(k))
	case r != nil && k.Instant() == WholeScenario:
		return fmt.Errorf("%s question is about the whole scenario: it takes no instant", aKind(k))
	case r == nil:
		return nil
	case !many && r.Count > 1:
		return fmt.Errorf("%s question is about one request, not %d", aKind(k), r.Count)
	case !many || r.Count == 0:
		r.Count = 1
	}
	if r.Count < 1 || r.Count > max(q.MaxN, 1) {
		return fmt.Errorf("a count question asks about 1 to %d requests, not %d", max(q.MaxN, 1), r.Count)
	}
	return nil
}

// Text words the single answer sol states, as the pages state it.
func (sol Solution) Text() string {
	k, ok := Lookup(sol.Kind)
	if !ok {
		return ""
	}
	return k.Text(Question{Kind: sol.Kind}, sol.Right())
}

// inMoments is implemented by a kind whose answer is a moment, which the
// millisecond grid may have rounded (see AnswersInMoments).
type inMoments interface{ answersInMoments() }

// AnswersInMoments reports whether the kind's answer is a moment in ms.
func AnswersInMoments(kind string) bool {
	k, _ := Lookup(kind)
	_, ok := k.(inMoments)
	return ok
}

// inWaits is implemented by a kind whose answer is a wait in ms
// (Solution.Wait), which the policy rounds up to the next millisecond
// (see AnswersInWaits).
type inWaits interface{ answersInWaits() }

// AnswersInWaits reports whether the kind's answer is a wait in ms.
func AnswersInWaits(kind string) bool {
	k, _ := Lookup(kind)
	_, ok := k.(inWaits)
	return ok
}

// inWholes is implemented by a kind whose answer is a whole number, which
// a form may ask for with a numeric keyboard.
type inWholes interface{ answersInWholeNumbers() }

// AnswersInWholeNumbers reports whether the kind's answer is a whole number.
func AnswersInWholeNumbers(kind string) bool {
	k, _ := Lookup(kind)
	_, ok := k.(inWholes)
	return ok
}

// Ticks reports whether a question of the kind is answered by ticking
// its lanes' boxes (and "none"), rather than by typing or tapping.
func Ticks(kind string) bool {
	k, ok := Lookup(kind)
	return ok && k.Lanes() == SeveralLanes
}

// offPlayground is implemented by a kind whose question the playground
// cannot show: it runs lanes side by side, each fed every request, and a
// stack's question is about lanes applied in turn.
type offPlayground interface{ notOnPlayground() }

// OnPlayground reports whether the playground can show a question of the
// kind, with its lanes and the request it is about.
func OnPlayground(kind string) bool {
	k, _ := Lookup(kind)
	_, off := k.(offPlayground)
	return !off
}

// manyRequests is implemented by a kind that asks about N requests at the
// instant rather than one.
type manyRequests interface{ asksAboutN() }

// AsksAboutN reports whether a question of the kind takes a number of
// requests (Question.Request.Count) to ask about.
func AsksAboutN(kind string) bool {
	k, _ := Lookup(kind)
	_, ok := k.(manyRequests)
	return ok
}

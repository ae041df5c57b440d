package room

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"time"

	"github.com/windowlab/playground/ask"
	"github.com/windowlab/playground/scenario"
)

// Kind is what a question asks about the next step of the scenario.
type Kind string

// Kinds of question a room asks, named here for the code that asks them by
// name; Kinds lists every one (ask.RoomKinds: wait, too), and package ask
// holds what each means.
const (
	// KindAdmit: will the next request (client, cost, instant) be admitted?
	// An answer value is 1 for admitted, 0 for refused.
	KindAdmit Kind = "admit"
	// KindCount: of the next N requests, all at the instant, how many get
	// through? An answer value is a count from 0 to N.
	KindCount Kind = "count"
	// KindFirstAdmit: what is the first instant, at or after the asked one,
	// at which the client's request gets in? An answer value is that instant
	// in ms, or Never.
	KindFirstAdmit Kind = "first-admit"
)

// Kinds are the kinds a room asks, in the order the presenter's menu
// offers them (ask.RoomKinds): each is answered lane by lane, and package
// ask words, solves and checks it.
func Kinds() []Kind {
	var out []Kind
	for _, k := range ask.RoomKinds() {
		out = append(out, Kind(k.Name()))
	}
	return out
}

// orList writes kinds as "a, b or c".
func orList(kinds []Kind) string {
	var b strings.Builder
	for i, k := range kinds {
		switch {
		case i == 0:
		case i == len(kinds)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(string(k))
	}
	return b.String()
}

// Never is the answer value for "no instant within the horizon admits it".
const Never = ask.Never

// HorizonWindows is how far a first-admit question looks, in windows of the
// lane: as the exercises do, three windows, by which every policy has
// forgotten everything before the question.
const HorizonWindows = ask.HorizonWindows

// Ask is what the presenter asks: the kind, the request it is about and
// the lanes it asks about.
type Ask struct {
	Kind Kind
	At   int64  // the request's instant, ms (the playground's clock)
	Key  string // the client; "" means scenario.DefaultKey
	Cost int64  // 0 means 1
	N    int64  // KindCount: how many requests; 0 means 1
	// Lanes are indexes into the scenario's lanes (scenario.Specs); none
	// means every lane.
	Lanes []int
	// Timer is the question's countdown, if any.
	Timer Timer
}

// Timer is a question's countdown and when it reveals by itself.
type Timer struct {
	// Seconds is the countdown; 0 for none.
	Seconds int `json:"seconds,omitempty"`
	// OnTime reveals the question when the countdown runs out.
	OnTime bool `json:"onTime,omitempty"`
	// WhenAll reveals the question once every phone of the room has
	// answered (at least one).
	WhenAll bool `json:"whenAll,omitempty"`
}

// check refuses a countdown longer than max or below zero.
func (t Timer) check(max time.Duration) error {
	if t.Seconds < 0 || time.Duration(t.Seconds)*time.Second > max {
		return fmt.Errorf("room: a countdown of %d s is not between 0 and %d s", t.Seconds, int(max.Seconds()))
	}
	if t.OnTime && t.Seconds == 0 {
		return errors.New("room: revealing when time is up needs a countdown of at least one second")
	}
	return nil
}

// Question is an asked question with its answers. Lanes, Limit and
// WindowMs are copied from the scenario when asked, so the question keeps
// its meaning if lanes are added or reordered; Reveal refuses to compute a
// truth if the shared settings changed meanwhile.
type Question struct {
	ID       int                   `json:"id"` // 1 for the room's first question, and so on
	Kind     Kind                  `json:"kind"`
	Request  scenario.Request      `json:"request"` // Count is N for KindCount, else 1
	Limit    int64                 `json:"limit"`
	WindowMs int64                 `json:"windowMs"`
	Lanes    []scenario.PolicySpec `json:"lanes"`
	Asked    time.Time             `json:"asked"`
	// Timer is the countdown from Asked, and Deadline when it ends (zero
	// without one).
	Timer    Timer     `json:"timer,omitzero"`
	Deadline time.Time `json:"deadline,omitzero"`
	// Answers holds one answer per attendee id; an attendee may change it
	// until the reveal.
	Answers  map[string]Answer `json:"answers,omitempty"`
	Revealed bool              `json:"revealed"`
	// Truth is the right value per lane, computed at the reveal; nil before.
	Truth []int64 `json:"truth,omitempty"`
	// Prior counts the scenario's requests before the question's moment
	// when it was asked, and PriorSum is their checksum (priorOf): the
	// attendees answer for those, so Solve refuses if they changed.
	Prior    int    `json:"prior"`
	PriorSum uint64 `json:"priorSum"`
}

// Answer is one attendee's answer: one value per lane asked about, in the
// question's lane order, meaning what the question's Kind says.
type Answer struct {
	Values []int64   `json:"values"`
	At     time.Time `json:"at"`
	// Name is the attendee's nickname when it answered, for the room's
	// record after the attendee has left.
	Name string `json:"name,omitempty"`
}

// ErrSettingsChanged is returned by Reveal when the limit or window is not
// what it was when the question was asked: the question no longer means
// what the attendees answered.
var ErrSettingsChanged = errors.New("room: the limit or window changed since the question was asked: undo that change, or ask again")

// ErrRequestsChanged is returned by Solve (so by Reveal) when the
// requests before the question's moment are not those it was asked about:
// the truth would change under answers given for what the room was shown.
var ErrRequestsChanged = errors.New("room: the requests before the question's moment changed since it was asked: undo that change, or ask again")

// InstantTakenError refuses a question at an instant that already has
// requests: "a request at 0 s" beside six at 0 s could come before them
// (the policies would admit it) or after them (what the lanes draw at
// 0 s), and the room cannot show both.
type InstantTakenError struct {
	At       int64 // ms
	Requests int64 // already at At, after expanding counts
}

func (e *InstantTakenError) Error() string {
	are := "requests are"
	if e.Requests == 1 {
		are = "request is"
	}
	return fmt.Sprintf("room: %d %s already at %s, and a request asked about at that moment could come before or after them: ask at %s, just after them, or later",
		e.Requests, are, scenario.FormatMs(e.At), scenario.FormatMs(e.At+1))
}

// priorOf counts the requests before at (a prefix: requests are in time
// order) and checksums them.
func priorOf(reqs []scenario.Request, at int64) (int, uint64) {
	h := fnv.New64a()
	var buf [8]byte
	n := 0
	for _, r := range reqs {
		if r.At >= at {
			break
		}
		for _, v := range []int64{r.At, r.Cost, r.Count, int64(len(r.Key))} {
			binary.LittleEndian.PutUint64(buf[:], uint64(v))
			h.Write(buf[:])
		}
		h.Write([]byte(r.Key))
		n++
	}
	return n, h.Sum64()
}

// ErrRevealed is returned for an answer after the reveal.
var ErrRevealed = errors.New("room: the answer has been revealed; answers are closed")

// newQuestion checks ask against the scenario and builds the question. It
// also solves it once, so a question that cannot be answered is refused
// now rather than at the reveal; that solution is dropped unseen.
func newQuestion(id int, a Ask, sc scenario.Scenario, b Bounds, now time.Time) (*Question, error) {
	maxN := b.QuestionN
	q := &Question{ID: id, Kind: a.Kind, Limit: sc.Limit, WindowMs: sc.WindowMs, Asked: now, Timer: a.Timer}
	if err := a.Timer.check(b.Countdown); err != nil {
		return nil, err
	}
	if kinds := Kinds(); !slices.Contains(kinds, a.Kind) {
		return nil, fmt.Errorf("room: unknown kind of question %q (want %s)", a.Kind, orList(kinds))
	}
	if a.At < 0 {
		return nil, fmt.Errorf("room: the request's instant %d ms is before the clock's start", a.At)
	}
	if a.Key == "" {
		a.Key = scenario.DefaultKey
	}
	if len(a.Key) > scenario.MaxKeyLen {
		return nil, fmt.Errorf("room: the client name is %d bytes, more than %d", len(a.Key), scenario.MaxKeyLen)
	}
	if a.Cost == 0 {
		a.Cost = 1
	}
	if a.Cost < 1 || a.Cost > scenario.MaxCost {
		return nil, fmt.Errorf("room: the request's cost %d is not between 1 and %d", a.Cost, scenario.MaxCost)
	}
	q.Request = scenario.Request{At: a.At, Key: a.Key, Cost: a.Cost, Count: a.N}
	var taken int64
	for _, r := range sc.Requests {
		if r.At == a.At {
			taken += r.Count
		}
	}
	if taken > 0 {
		return nil, &InstantTakenError{At: a.At, Requests: taken}
	}
	q.Prior, q.PriorSum = priorOf(sc.Requests, a.At)

	specs := sc.Specs()
	lanes := a.Lanes
	if len(lanes) == 0 {
		for i := range specs {
			lanes = append(lanes, i)
		}
	}
	for n, i := range lanes {
		if i < 0 || i >= len(specs) {
			return nil, fmt.Errorf("room: there is no lane %d (the scenario has %d)", i+1, len(specs))
		}
		if slices.Contains(lanes[:n], i) {
			return nil, fmt.Errorf("room: lane %d is asked about twice", i+1)
		}
		q.Lanes = append(q.Lanes, specs[i])
	}
	kind, asked := q.Ask()
	if why := ask.Fits(kind, asked); why != "" {
		return nil, fmt.Errorf("room: %s", why)
	}
	asked.MaxN = maxN
	if err := ask.Validate(&asked); err != nil {
		return nil, fmt.Errorf("room: %w", err)
	}
	q.Request.Count = asked.Request.Count // a count of one filled in
	if _, err := q.Solve(sc); err != nil {
		return nil, err
	}
	return q, nil
}

// Ask is the question as package ask asks it: its kind, and the
// question about no requests yet (Solve adds those before its moment).
// Words, choices and checks need only that.
func (q *Question) Ask() (ask.Kind, ask.Question) {
	k, ok := ask.Lookup(string(q.Kind))
	if !ok {
		// newQuestion asks only Kinds; a stored question of another kind
		// would be from another version, and reads as a count.
		k, _ = ask.Lookup(string(KindCount))
	}
	r := q.Request
	aq := ask.Question{
		Kind:         string(q.Kind),
		Scenario:     scenario.Scenario{Limit: q.Limit, WindowMs: q.WindowMs},
		Request:      &r,
		MaxN:         max(r.Count, 1),
		NeverAnswers: true,
	}
	for _, spec := range q.Lanes {
		aq.Lanes = append(aq.Lanes, ask.Lane{Spec: spec})
	}
	return k, aq
}

// Label names lane i of the question the way the playground does.
func (q *Question) Label(i int) string {
	return q.Lanes[i].Label(scenario.Scenario{Limit: q.Limit, WindowMs: q.WindowMs})
}

// Solution is a question's truth with the decisions that show the working.
type Solution struct {
	Truth []int64 // per lane, as an answer's values
	// Working holds, per lane, the decisions an explanation walks through:
	// KindAdmit the request's decision; KindCount the N decisions;
	// KindFirstAdmit the decision at the asked instant, one millisecond
	// before the first admitting instant (when that differs) and at it.
	Working [][]scenario.Decision
}

// Solve computes the truth by running the scenario's requests before the
// asked instant, plus the asked request(s), through each lane with the
// solvers the exercises use (package ask). Requests at or after the asked
// instant are left out, so firing the asked request before revealing does
// not change the truth; the ones before it must be those it was asked
// about (ErrRequestsChanged).
func (q *Question) Solve(sc scenario.Scenario) (Solution, error) {
	if sc.Limit != q.Limit || sc.WindowMs != q.WindowMs {
		return Solution{}, ErrSettingsChanged
	}
	if n, sum := priorOf(sc.Requests, q.Request.At); n != q.Prior || sum != q.PriorSum {
		return Solution{}, ErrRequestsChanged
	}
	kind, asked := q.Ask()
	for _, r := range sc.Requests {
		if r.At >= q.Request.At {
			break
		}
		asked.Scenario.Requests = append(asked.Scenario.Requests, r)
	}
	sol, err := kind.Solve(asked)
	if err != nil {
		return Solution{}, fmt.Errorf("room: %w", err)
	}
	out := Solution{Truth: sol.Truth, Working: make([][]scenario.Decision, len(q.Lanes))}
	for _, st := range sol.Trace {
		out.Working[st.Lane] = append(out.Working[st.Lane], st.Decision)
	}
	return out, nil
}

// check says what is wrong with an answer's values, naming the lane.
func (q *Question) check(values []int64) error {
	if len(values) != len(q.Lanes) {
		return fmt.Errorf("room: the question asks about %d lanes; the answer has %d values", len(q.Lanes), len(values))
	}
	kind, asked := q.Ask()
	for i, v := range values {
		if bad := kind.Check(asked, i, v); bad != "" {
			return fmt.Errorf("room: lane %s: %s", q.Label(i), bad)
		}
	}
	return nil
}

// Marks says, after the reveal, which of an answer's values are right; nil
// before the reveal.
func (q *Question) Marks(a Answer) []bool {
	if !q.Revealed || len(a.Values) != len(q.Truth) {
		return nil
	}
	marks := make([]bool, len(a.Values))
	for i, v := range a.Values {
		marks[i] = v == q.Truth[i]
	}
	return marks
}

// Tally counts the answers per lane.
type Tally struct {
	Answered int
	Lanes    []LaneTally
}

// LaneTally is the distribution of one lane's answers.
type LaneTally struct {
	// Votes lists answer values with how many gave each, in increasing
	// value (Never first). For KindAdmit both 0 and 1, and for KindCount
	// every value from 0 to N, are listed even with no votes, so the
	// projector's bars do not jump as answers arrive.
	Votes []Vote
}

// Vote is one answer value and how many gave it. Right is set after the
// reveal, on the value that is the truth.
type Vote struct {
	Value int64
	Count int
	Right bool
}

// Tally counts the answers. It reveals nothing: Right is false everywhere
// until the question is revealed.
func (q *Question) Tally() Tally {
	t := Tally{Answered: len(q.Answers), Lanes: make([]LaneTally, len(q.Lanes))}
	kind, asked := q.Ask()
	choices := kind.Choices(asked)
	for i := range q.Lanes {
		counts := map[int64]int{}
		for _, v := range choices {
			counts[v] = 0
		}
		for _, a := range q.Answers {
			if i < len(a.Values) {
				counts[a.Values[i]]++
			}
		}
		values := make([]int64, 0, len(counts))
		for v := range counts {
			values = append(values, v)
		}
		slices.Sort(values)
		for _, v := range values {
			right := q.Revealed && i < len(q.Truth) && q.Truth[i] == v
			t.Lanes[i].Votes = append(t.Lanes[i].Votes, Vote{Value: v, Count: counts[v], Right: right})
		}
	}
	return t
}

// clone copies the question deeply.
func (q *Question) clone() *Question {
	if q == nil {
		return nil
	}
	c := *q
	c.Lanes = slices.Clone(q.Lanes)
	c.Truth = slices.Clone(q.Truth)
	if q.Answers != nil {
		c.Answers = make(map[string]Answer, len(q.Answers))
		for id, a := range q.Answers {
			a.Values = slices.Clone(a.Values)
			c.Answers[id] = a
		}
	}
	return &c
}

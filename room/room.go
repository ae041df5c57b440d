package room

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/windowlab/playground/scenario"
)

// Bounds limit what rooms can grow to, so a server stays within memory and a
// forgotten room ends. DefaultBounds gives the documented values; each has
// its own error when reached.
type Bounds struct {
	// Rooms is how many rooms a server holds at once (ErrFull). Each costs
	// at most about 1.5 MB (its undo history, below, dominates), so the
	// default 50 stay under 100 MB.
	Rooms int
	// RoomsPerClient is how many of them one client (one network address,
	// Rooms.OpenFor's owner) may hold at once (ErrClientRooms): five, so a
	// school running a few workshops behind one public address is served,
	// while it takes ten addresses, not one, to hold every room.
	RoomsPerClient int
	// Followers is how many attendees may join one room (ErrRoomFull): the
	// 1,000 the load target asks a room to hold. The web layer should cap a
	// room's open streams at the same number (plus Devices), since watching
	// needs no joining.
	Followers int
	// Answers is how many answers one question holds (ErrTooManyAnswers);
	// one per attendee, so it needs to be no more than Followers.
	Answers int
	// Linger is how long a room lives after its presenter was last seen
	// (an action, or the presenter's page still open and calling Touch).
	Linger time.Duration
	// Lifetime is how long a room lives at most, presenter or not, so a
	// presenter's forgotten tab does not keep it for ever.
	Lifetime time.Duration
	// History is how many actions Undo can take back.
	History int
	// HistoryRequests bounds the scenario requests held in the undo
	// history, summed over its entries: the oldest entries go first when
	// it is exceeded. 25,000 requests are about 1.2 MB.
	HistoryRequests int
	// Devices is how many devices may hold the presenter capability: the
	// presenter's first one plus paired remotes (ErrTooManyDevices).
	Devices int
	// PairTTL is how long a pairing code may be redeemed after it is issued.
	PairTTL time.Duration
	// PairAttempts is how many wrong pairing codes one client (one network
	// address, Rooms.PairFrom's client) may try against the issued code
	// before it is refused for that code (ErrPairTries). They are counted
	// per client, so an attendee who knows the room's address cannot void
	// the presenter's code by guessing.
	PairAttempts int
	// PairGuesses is how many wrong codes, from every client together, void
	// the issued code: a backstop against guessing from many addresses.
	// Against 31⁸ codes, 100 guesses find it with odds below one in 8
	// billion.
	PairGuesses int
	// QuestionN is the largest N of a count question: a phone's answer
	// buttons go from 0 to N.
	QuestionN int64
	// Past is how many revealed questions a room keeps for its results
	// (Room.Past), and PastAnswers how many answers they may hold in all:
	// the oldest questions go first beyond either, so a room's value stays
	// well under a NATS message (5,000 answers of seven lanes are about
	// 600 KB of JSON).
	Past        int
	PastAnswers int
	// Steps is how many steps a deck may hold (ErrDeckSteps).
	Steps int
	// Countdown is the longest countdown a question may have.
	Countdown time.Duration
}

// DefaultBounds are the bounds a server runs with.
func DefaultBounds() Bounds {
	return Bounds{
		Rooms:           50,
		RoomsPerClient:  5,
		Followers:       1000,
		Answers:         1000,
		Linger:          30 * time.Minute,
		Lifetime:        24 * time.Hour,
		History:         20,
		HistoryRequests: 25_000,
		Devices:         4,
		PairTTL:         5 * time.Minute,
		PairAttempts:    5,
		PairGuesses:     100,
		QuestionN:       20,
		Past:            100,
		PastAnswers:     5_000,
		Steps:           50,
		Countdown:       10 * time.Minute,
	}
}

// validate refuses bounds that would make a room unusable.
func (b Bounds) validate() error {
	if b.Rooms < 1 || b.RoomsPerClient < 1 || b.PairGuesses < 1 || b.Followers < 1 || b.Answers < 1 || b.Linger <= 0 || b.Lifetime <= 0 ||
		b.History < 1 || b.HistoryRequests < 1 || b.Devices < 1 || b.PairTTL <= 0 || b.PairAttempts < 1 || b.QuestionN < 1 ||
		b.Past < 1 || b.PastAnswers < 1 || b.Steps < 1 || b.Countdown <= 0 {
		return fmt.Errorf("room: every bound must be positive: %+v", b)
	}
	return nil
}

// Errors for bounds and refusals; each says what happened and what to do.
var (
	ErrFull           = errors.New("room: the server holds its maximum of rooms; try again when a workshop has ended")
	ErrRoomFull       = errors.New("room: this room is full: it holds its maximum of attendees")
	ErrTooManyAnswers = errors.New("room: this question holds its maximum of answers")
	ErrTooManyDevices = errors.New("room: the presenter already uses the maximum of devices")
	ErrNotFound       = errors.New("room: no such room (it may have ended)")
	ErrNotPresenter   = errors.New("room: only the presenter can do that")
	ErrNotAttendee    = errors.New("room: join the room first")
	ErrNoQuestion     = errors.New("room: no question is open")
	ErrOldQuestion    = errors.New("room: that question has been replaced by a new one")
	ErrNothingToUndo  = errors.New("room: there is nothing to undo")
	ErrPairing        = errors.New("room: that pairing code is wrong or has expired; ask the presenter's device for a new one")
	ErrPairTries      = errors.New("room: this device has tried too many wrong pairing codes; ask the presenter's device for a new code")
	ErrClientRooms    = errors.New("room: this network address already holds its share of the server's rooms; close one of them first")
	ErrJoinsClosed    = errors.New("room: the presenter has closed this room to new devices")
	ErrNoDevice       = errors.New("room: no device of this room has that name (it may have been removed)")
)

// Role is what a device is to a room.
type Role int

// The roles. A Viewer watches (watching is no capability); an Attendee has
// joined and may answer; the Presenter holds the capability to drive.
const (
	Viewer Role = iota
	Attendee
	Presenter
)

func (r Role) String() string {
	return [...]string{"viewer", "attendee", "presenter"}[r]
}

// Action is something a device asks a room to do.
type Action string

// The actions. Drive covers every playground action (fire, clock, settings).
const (
	ActDrive   Action = "drive"
	ActAsk     Action = "ask"
	ActReveal  Action = "reveal"
	ActDismiss Action = "dismiss"
	ActPoint   Action = "point"
	ActUndo    Action = "undo"
	ActPair    Action = "pair"
	ActClose   Action = "close"
	ActAnswer  Action = "answer"
	ActJoins   Action = "joins"  // open or close the room to new devices
	ActRemove  Action = "remove" // remove, let back or rename an attendee's device
	ActName    Action = "name"   // give one's own device a nickname
	ActStep    Action = "step"   // load a deck, or go to one of its steps
)

// Can reports whether the role may take the action: the presenter
// everything but answering (the presenter knows the truth), an attendee only
// answering, a viewer nothing.
func (r Role) Can(a Action) bool {
	switch r {
	case Presenter:
		return a != ActAnswer
	case Attendee:
		return a == ActAnswer || a == ActName
	}
	return false
}

// Room is one workshop room. It is plain data, serialisable as JSON, so a
// Store may keep it anywhere; the methods change it and take the time as a
// parameter. A Room is not safe for concurrent use: Store.Update serialises
// changes.
type Room struct {
	ID   string `json:"id"`   // 128 random bits; names the room in its followers' URLs
	Code string `json:"code"` // the join code
	// Session is the id of the play session the room shows. A play session
	// id lets whoever holds it drive the session, so it must never reach an
	// attendee's page.
	Session string `json:"session"`
	// Owner is the hash of the network address that opened the room (see
	// Bounds.RoomsPerClient), never the address itself.
	Owner         string    `json:"owner,omitempty"`
	Created       time.Time `json:"created"`
	PresenterSeen time.Time `json:"presenterSeen"`
	// Presenters are the hashes of the presenter capabilities, one per
	// device; the capabilities themselves are never stored.
	Presenters []string             `json:"presenters"`
	Pairing    *Pairing             `json:"pairing,omitempty"`
	Attendees  map[string]time.Time `json:"attendees,omitempty"` // attendee id → when joined
	// Names are the attendees' nicknames (attendee id → nickname), unique
	// in the room as people read them; an attendee may have none.
	Names map[string]string `json:"names,omitempty"`
	// Removed are the devices the presenter removed, kept out (their
	// answers refused, their joins too) until let back; at most
	// Bounds.Followers, the oldest forgotten first.
	Removed []removedDevice `json:"removed,omitempty"`
	// JoinsClosed refuses new devices (ErrJoinsClosed); those that joined
	// stay.
	JoinsClosed bool      `json:"joinsClosed,omitempty"`
	Question    *Question `json:"question,omitempty"`
	// Past are the revealed questions, oldest first, with their answers
	// and truth, for the room's results (Bounds.Past, Bounds.PastAnswers).
	Past []*Question `json:"past,omitempty"`
	// Deck is the workshop the presenter loaded, and Step the index of its
	// step on screen (-1 before the first).
	Deck    *Deck   `json:"deck,omitempty"`
	Step    int     `json:"step"`
	Asked   int     `json:"asked"`   // questions asked so far
	Pointer int     `json:"pointer"` // the pointed-at request (expanded index), -1 for none
	History []Entry `json:"history,omitempty"`
	// Version counts changes, so a renderer knows when to render again.
	Version uint64 `json:"version"`
}

// Pairing is an issued, not yet redeemed pairing code.
type Pairing struct {
	Hash     string    `json:"hash"`
	Expires  time.Time `json:"expires"`
	Attempts int       `json:"attempts"` // wrong codes tried so far, by every client
	// Tries counts wrong codes per client (the hash of its address); it
	// holds at most Bounds.PairGuesses entries, since the code is void by
	// then.
	Tries map[string]int `json:"tries,omitempty"`
}

// PlayState is what undo restores of the play session: its scenario and
// its clock. The web layer takes it before a playground action
// (Rooms.Checkpoint) and loads it back on Undo.
type PlayState struct {
	Scenario scenario.Scenario `json:"scenario"`
	ClockMs  int64             `json:"clockMs"`
}

// Entry is one undoable action with what undoing it restores.
type Entry struct {
	Action Action    `json:"action"`
	Label  string    `json:"label,omitempty"` // for a drive: which playground action ("fire", "jump")
	At     time.Time `json:"at"`
	// Pointer is the pointer before a point action.
	Pointer int `json:"pointer"`
	// Question is the question before an ask or a dismiss (nil if none).
	Question *Question `json:"question,omitempty"`
	// Play is the session before a drive action.
	Play *PlayState `json:"play,omitempty"`
}

// RoleOf is the role of a device holding presenter (a capability, or "")
// and attendee (an id from Join, or "").
func (r *Room) RoleOf(presenter, attendee string) Role {
	if presenter != "" {
		h := hashSecret(presenter)
		for _, p := range r.Presenters {
			if sameHash(p, h) {
				return Presenter
			}
		}
	}
	if _, ok := r.Attendees[attendee]; ok && attendee != "" {
		return Attendee
	}
	return Viewer
}

// Expired reports whether the room has ended: its presenter unseen for
// longer than b.Linger, or the room older than b.Lifetime.
func (r *Room) Expired(b Bounds, now time.Time) bool {
	return now.Sub(r.PresenterSeen) > b.Linger || now.Sub(r.Created) > b.Lifetime
}

// join adds an attendee, with a nickname (normalised) or none. previous
// is the attendee id the device held before, if any: a removed device
// stays out.
func (r *Room) join(b Bounds, id, previous, nickname string, now time.Time) error {
	if r.isRemoved(previous) {
		return ErrRemoved
	}
	if r.JoinsClosed {
		return ErrJoinsClosed
	}
	if len(r.Attendees) >= b.Followers {
		return ErrRoomFull
	}
	if r.Attendees == nil {
		r.Attendees = map[string]time.Time{}
	}
	if err := r.name(id, nickname); err != nil {
		return err
	}
	r.Attendees[id] = now
	return nil
}

// DeviceName is the short public name of an attendee's device, for the
// presenter's list of devices: the start of its id's hash, so the list
// never shows the id (the attendee's cookie) itself.
func DeviceName(attendee string) string { return hashSecret(attendee)[:10] }

// remove forgets the attendee whose DeviceName is name, with its answer to
// the open question, and keeps the device out until letBack.
func (r *Room) remove(b Bounds, name string) error {
	id, ok := r.attendeeNamed(name)
	if !ok {
		return ErrNoDevice
	}
	r.Removed = append(r.Removed, removedDevice{Hash: hashSecret(id), Name: name, Nickname: r.Names[id]})
	if over := len(r.Removed) - b.Followers; over > 0 {
		r.Removed = slices.Delete(r.Removed, 0, over)
	}
	delete(r.Attendees, id)
	delete(r.Names, id)
	if r.Question != nil {
		delete(r.Question.Answers, id)
	}
	return nil
}

// ask opens question q (built and checked by newQuestion), replacing any
// question (undo brings the replaced one back). The question gets the next
// id; ids are never reused.
func (r *Room) ask(b Bounds, q *Question, now time.Time) {
	q = q.clone()
	q.ID = r.Asked + 1
	q.Asked = now
	q.Deadline = time.Time{}
	if q.Timer.Seconds > 0 {
		q.Deadline = now.Add(time.Duration(q.Timer.Seconds) * time.Second)
	}
	r.record(b, Entry{Action: ActAsk, At: now, Question: r.Question})
	r.Asked++
	r.Question = q
}

// answer records or replaces an attendee's answer to question id.
func (r *Room) answer(b Bounds, attendee string, id int, values []int64, now time.Time) error {
	if _, ok := r.Attendees[attendee]; !ok || attendee == "" {
		if r.isRemoved(attendee) {
			return ErrRemoved
		}
		return ErrNotAttendee
	}
	q, err := r.open(id)
	if err != nil {
		return err
	}
	if err := q.check(values); err != nil {
		return err
	}
	if _, again := q.Answers[attendee]; !again && len(q.Answers) >= b.Answers {
		return ErrTooManyAnswers
	}
	if q.Answers == nil {
		q.Answers = map[string]Answer{}
	}
	q.Answers[attendee] = Answer{Values: slices.Clone(values), At: now, Name: r.Names[attendee]}
	return nil
}

// open is question id while it takes answers: an attendee's answer and the
// presenter's reveal are refused alike once it is gone, replaced or
// revealed.
func (r *Room) open(id int) (*Question, error) {
	q := r.Question
	switch {
	case q == nil:
		return nil, ErrNoQuestion
	case q.ID != id:
		return nil, ErrOldQuestion
	case q.Revealed:
		return nil, ErrRevealed
	}
	return q, nil
}

// reveal closes the answers of question id and records its truth (from
// Question.Solve).
func (r *Room) reveal(b Bounds, id int, truth []int64, now time.Time) error {
	q, err := r.open(id)
	if err != nil {
		return err
	}
	if len(truth) != len(q.Lanes) {
		return fmt.Errorf("room: a truth of %d values for a question about %d lanes", len(truth), len(q.Lanes))
	}
	r.record(b, Entry{Action: ActReveal, At: now})
	q.Revealed = true
	q.Truth = slices.Clone(truth)
	r.keep(b, q)
	return nil
}

// dismiss closes the question, revealed or not.
func (r *Room) dismiss(b Bounds, now time.Time) error {
	if r.Question == nil {
		return ErrNoQuestion
	}
	r.record(b, Entry{Action: ActDismiss, At: now, Question: r.Question})
	r.Question = nil
	return nil
}

// Due reports whether the open question should reveal by itself now: its
// countdown ran out with Timer.OnTime, or every phone of the room has
// answered with Timer.WhenAll.
func (r *Room) Due(now time.Time) bool {
	q := r.Question
	if q == nil || q.Revealed {
		return false
	}
	if q.Timer.OnTime && !q.Deadline.IsZero() && !now.Before(q.Deadline) {
		return true
	}
	return q.Timer.WhenAll && len(r.Attendees) > 0 && r.Waiting() == 0
}

// Waiting counts the phones of the room that have not answered the open
// question (0 when none is open).
func (r *Room) Waiting() int {
	if r.Question == nil {
		return 0
	}
	n := 0
	for id := range r.Attendees {
		if _, ok := r.Question.Answers[id]; !ok {
			n++
		}
	}
	return n
}

// NotAnswered are what the presenter's screen calls the phones that have
// not answered the open question (Called), sorted.
func (r *Room) NotAnswered() []string {
	var out []string
	if r.Question == nil {
		return nil
	}
	for id := range r.Attendees {
		if _, ok := r.Question.Answers[id]; !ok {
			out = append(out, r.Called(id))
		}
	}
	slices.Sort(out)
	return out
}

// point points every screen at request index of total (after expanding
// counts), or at none for -1.
func (r *Room) point(b Bounds, index, total int, now time.Time) error {
	if index < -1 || index >= total {
		return fmt.Errorf("room: there is no request %d to point at (the session has %d)", index, total)
	}
	r.record(b, Entry{Action: ActPoint, At: now, Pointer: r.Pointer})
	r.Pointer = index
	return nil
}

// checkpoint records the session before a playground action.
func (r *Room) checkpoint(b Bounds, label string, before PlayState, now time.Time) {
	before.Scenario.Policies = slices.Clone(before.Scenario.Policies)
	before.Scenario.Requests = slices.Clone(before.Scenario.Requests)
	r.record(b, Entry{Action: ActDrive, Label: label, At: now, Play: &before})
}

// undo takes back the last action, returning the session state to load
// back when it was a playground action.
func (r *Room) undo() (*PlayState, error) {
	if len(r.History) == 0 {
		return nil, ErrNothingToUndo
	}
	e := r.History[len(r.History)-1]
	r.History = r.History[:len(r.History)-1]
	switch e.Action {
	case ActAsk:
		r.Question = e.Question // Asked stays: a question's id is never reused
	case ActReveal:
		if r.Question != nil {
			r.unkeep(r.Question.ID)
			r.Question.Revealed = false
			r.Question.Truth = nil
		}
	case ActDismiss:
		r.Question = e.Question
	case ActPoint:
		r.Pointer = e.Pointer
	case ActDrive:
		return e.Play, nil
	}
	return nil, nil
}

// record appends to the history, dropping the oldest entries beyond
// b.History entries or b.HistoryRequests requests.
func (r *Room) record(b Bounds, e Entry) {
	r.History = append(r.History, e)
	held := 0
	for _, h := range r.History {
		if h.Play != nil {
			held += len(h.Play.Scenario.Requests)
		}
	}
	drop := 0
	for len(r.History)-drop > b.History || held > b.HistoryRequests && len(r.History)-drop > 1 {
		if p := r.History[drop].Play; p != nil {
			held -= len(p.Scenario.Requests)
		}
		drop++
	}
	r.History = slices.Delete(r.History, 0, drop)
}

// Clone copies the room deeply, so a Store can hand out rooms that no one
// else changes.
func (r *Room) Clone() *Room {
	c := *r
	c.Presenters = slices.Clone(r.Presenters)
	if r.Pairing != nil {
		p := *r.Pairing
		p.Tries = maps.Clone(r.Pairing.Tries)
		c.Pairing = &p
	}
	c.Attendees = maps.Clone(r.Attendees)
	c.Names = maps.Clone(r.Names)
	c.Removed = slices.Clone(r.Removed)
	c.Question = r.Question.clone()
	if r.Past != nil {
		c.Past = make([]*Question, len(r.Past))
		for i, q := range r.Past {
			c.Past[i] = q.clone()
		}
	}
	c.Deck = r.Deck.clone()
	c.History = make([]Entry, len(r.History))
	for i, e := range r.History {
		e.Question = e.Question.clone()
		if e.Play != nil {
			p := *e.Play
			e.Play = &p // the scenario's slices are never changed once recorded
		}
		c.History[i] = e
	}
	if r.History == nil {
		c.History = nil
	}
	return &c
}

package pages

import (
	"fmt"
	"time"

	"github.com/windowlab/playground/room"
	"github.com/windowlab/playground/web/templates"
)

// The workshop's own pages and parts (room_workshop.templ): the deck, the
// countdown, nicknames, and the room's record to take home.

// RoomDeck is the presenter's deck page: the steps with their notes (never
// on the projector), who has not answered, and the room's results.
type RoomDeck struct {
	Page    templates.Page
	Room    string
	Deck    *room.Deck
	Step    int // the step on screen, -1 before the first
	Shipped []ShippedDeck
	// NotAnswered names the phones that have not answered the open
	// question (nil when none is open).
	NotAnswered []string
	Open        bool // a question is open
	Error       string
}

// ShippedDeck is a deck that comes with the playground.
type ShippedDeck struct {
	Name, Title string
	Steps       int
}

// RoomSummary is the room's record on the presenter's screen.
type RoomSummary struct {
	Page   templates.Page
	Room   string
	Record room.Record
}

// Countdown is what a question's countdown shows at now: "0:42 left",
// "time is up", or "" without one.
func Countdown(q *room.Question, now time.Time) string {
	if q == nil || q.Deadline.IsZero() || q.Revealed {
		return ""
	}
	left := q.Deadline.Sub(now)
	if left <= 0 {
		return "time is up"
	}
	s := int((left + time.Second - 1) / time.Second)
	return fmt.Sprintf("%d:%02d left", s/60, s%60)
}

// WaitingText counts the joined phones that have not answered: "2 not yet
// answered", or "every phone has answered".
func WaitingText(joined, waiting int) string {
	if joined == 0 {
		return "no phone has joined yet"
	}
	if waiting == 0 {
		return "every phone has answered"
	}
	return fmt.Sprintf("%d not yet answered", waiting)
}

// StepTitle is a step's heading: "Step 3 of 6: Three cars at 45 s".
func StepTitle(d *room.Deck, i int) string {
	if d == nil || i < 0 || i >= len(d.Steps) {
		return ""
	}
	return fmt.Sprintf("Step %d of %d: %s", i+1, len(d.Steps), d.Steps[i].Title)
}

// NextStepLabel is the "next step" button's words and what follows them:
// ("Next step ▶", "3 of 6"), ("Last step", "shown") or ("Next step", "no
// deck loaded").
func NextStepLabel(s RoomShared) (label, sub string) {
	switch {
	case s.Steps == 0:
		return "Next step", "no deck loaded"
	case s.HasNextStep():
		return "Next step ▶", fmt.Sprintf("%d of %d", s.Step+2, s.Steps)
	}
	return "Last step", "shown"
}

// DeckNotStarted says that a deck is loaded and none of its steps shown.
func DeckNotStarted(steps int) string {
	return fmt.Sprintf("A prepared workshop of %s, none shown yet", templates.CountOf(int64(steps), "step"))
}

// DeckShared is the deck's part of a room's shared state: the step shown
// and how many there are. The deck itself (notes, later titles) stays out
// of what every screen's stream carries.
func DeckShared(s RoomShared, d *room.Deck, step int) RoomShared {
	s.StepTitle, s.Step, s.Steps = StepTitle(d, step), step, 0
	if d != nil {
		s.Steps = len(d.Steps)
	}
	return s
}

// StepAskText says what a step asks, for the deck page: "Asks at 31 s:
// admit · 45 s countdown"; "" for a step that only shows.
func StepAskText(st room.Step) string {
	a, ok := st.Question()
	if !ok {
		return ""
	}
	text := fmt.Sprintf("Asks at %s: %s", st.Ask.At, a.Kind)
	if a.Timer.Seconds > 0 {
		text += fmt.Sprintf(" · %d s countdown", a.Timer.Seconds)
	}
	return text
}

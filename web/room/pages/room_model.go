package pages

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/windowlab/playground/ask"
	"github.com/windowlab/playground/explain"
	"github.com/windowlab/playground/lane"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/room"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web/templates"
)

// The workshop room's pages (room.templ) and their view model.

// RoomShared is what every screen of a room shows alike, rendered once per
// change and sent to every follower: the playground's view (with anything
// that would give an open question's answer away removed), the question and
// the pointed-at request. It holds no play session id: whoever holds that
// can drive the session.
type RoomShared struct {
	Room      string // the room id, for follow-up URLs (not a capability)
	View      play.View
	Question  *room.Question
	Solution  *room.Solution // the working after the reveal; nil if it cannot be computed
	Attendees int            // phones following the room's stream
	// Pointed is the pointed-at request explained in every lane, for the
	// projector; nil when none is pointed at, or while a question hides it.
	Pointed *play.Selection
	// Ended says the room or its session is gone.
	Ended string
	// Asked is set while a question is open. View then holds only the
	// requests before Cut (the question's moment, or just after the clock
	// if that is earlier), replayed alone, and the lanes are drawn as
	// lane.Options.Asked says.
	Asked bool
	Cut   int64
	// LanesAt is, while a question is open, the instant the lanes are
	// drawn at: the clock, held at the question's moment once the clock
	// passes it (the view's clock stays the clock, for RoomClock).
	LanesAt int64
	// Now is when the frame was rendered, for the countdown; Joined
	// counts the phones that joined the room, and Waiting those of them
	// that have not answered the open question.
	Now             time.Time
	Joined, Waiting int
	// StepTitle heads the screen with the deck's step ("" without a deck
	// or before its first step); Step is that step's index (-1 before the
	// first) and Steps how many the deck has (0 without one). The next
	// step's title is not here: every screen's stream carries this, and
	// the deck stays the presenter's until it is shown.
	StepTitle   string
	Step, Steps int
}

// HasNextStep is whether the room's deck has a step after the one shown.
func (s RoomShared) HasNextStep() bool { return s.Step+1 < s.Steps }

// LaneInput is lane l of the room's view as the lanes draw it: at
// LanesAt while a question is open.
func (s RoomShared) LaneInput(l play.Lane) lane.Input {
	in := lane.FromView(s.View, l)
	if s.Asked {
		in.Now = s.LanesAt
	}
	return in
}

// HeldAtQuestion is whether the clock has run past an open question's
// moment while the lanes stay on it (LanesAt).
func (s RoomShared) HeldAtQuestion() bool {
	return s.Asked && s.LanesAt < s.View.Clock.Now
}

// LaneOptions are o with what an open question hides.
func (s RoomShared) LaneOptions(o lane.Options) lane.Options {
	o.Asked, o.Cut = s.Asked, s.Cut
	return o
}

// RoomPresent is the projector (the presenter's page).
type RoomPresent struct {
	Page       templates.Page
	Shared     RoomShared
	Code       string
	JoinURL    string   // where attendees join; empty when only candidates are known
	QR         string   // the QR code of JoinURL as inline SVG
	Candidates []string // the machine's network addresses, when opened at localhost
	AddrNote   string   // why no join URL could be shown
	Presets    []Preset
}

// Preset is a scenario the presenter can load from the menu, or the
// playground open from its list (by URL, a playground link).
type Preset struct {
	Name, Label string
	URL         string
}

// RoomPhone is an attendee's page.
type RoomPhone struct {
	Page   templates.Page
	Shared RoomShared
	Code   string // the room's join code, which names it in the phone's header
	Mine   RoomMine
	// Device is the name this device joined as (room.DeviceName), or ""
	// when it could not join; JoinNote then says why.
	Device   string
	JoinNote string
	// Nickname is the name the device gave ("" for none); NameError why
	// the last one typed was refused.
	Nickname  string
	NameError string
}

// RoomMine is one attendee's own answer to the room's question.
type RoomMine struct {
	Question *room.Question
	Answer   *room.Answer // nil before answering
	Note     string       // a problem with the last answer sent, or a nudge
}

// RoomJoin is the page that asks for a join code.
type RoomJoin struct {
	Page  templates.Page
	Code  string
	Name  string // the nickname typed, carried to the room's page
	Error string
}

// RoomMessage is a page that says why a room page cannot be shown.
type RoomMessage struct {
	Page    templates.Page
	Heading string
	Message string
}

// RoomPair is the page where a presenter's second device types a pairing code.
type RoomPair struct {
	Page  templates.Page
	Room  string
	Code  string // filled in from the link of the QR code
	Error string
}

// RoomPairNew is the presenter's page that issues a pairing code.
type RoomPairNew struct {
	Page    templates.Page
	Room    string
	Action  string // where the form posts for a code (with the address picked)
	Code    string // "" until the presenter asks for one
	Minutes string // how long a code lasts
	// URL is where the other device opens the pairing page, with the code
	// filled in once there is one; QR is its QR code. Empty when the page
	// was opened at localhost and no address has been picked: Candidates
	// then lists the machine's, and AddrNote says why.
	URL        string
	QR         string
	Candidates []string
	AddrNote   string
}

// AskOption is one kind of question in the presenter's menu.
type AskOption struct {
	Value, Label string
}

// AskOptions are the kinds of question a room asks, as the menu lists them.
// Kinds with no answer worth asking about sc's lanes (ask.Fits) are left
// out.
func AskOptions(sc scenario.Scenario) []AskOption {
	var out []AskOption
	q := ask.Question{Scenario: scenario.Scenario{Limit: sc.Limit, WindowMs: sc.WindowMs}}
	for _, spec := range sc.Specs() {
		q.Lanes = append(q.Lanes, ask.Lane{Spec: spec})
	}
	for _, k := range ask.RoomKinds() {
		if ask.Fits(k, q) != "" {
			continue
		}
		label, _ := k.Menu()
		out = append(out, AskOption{Value: k.Name(), Label: label})
	}
	return out
}

// AnswerPrompt labels the field a phone types lane answers in, for a kind
// answered by typing (no Choices).
func AnswerPrompt(q *room.Question) string {
	k, _ := q.Ask()
	if r, ok := k.(ask.InRoom); ok {
		return r.Prompt()
	}
	return ""
}

// KindText says what a kind of question asks.
func KindText(q *room.Question) string {
	k, aq := q.Ask()
	return k.Ask(aq)
}

// ValueText writes an answer value the way the question's kind means it.
func ValueText(q *room.Question, v int64) string {
	k, aq := q.Ask()
	return k.Word(aq, v)
}

// Choices are the one-tap answers of a kind: admitted or refused, or every
// count from 0 to N. A first-admit question is typed instead (none).
func Choices(q *room.Question) []int64 {
	k, aq := q.Ask()
	return k.Choices(aq)
}

// AnswerSignal names the phone's signal holding its answer for lane i of
// question q. The question's id is in the name, so a new question starts
// with empty answers.
func AnswerSignal(q *room.Question, i int) string { return fmt.Sprintf("q%da%d", q.ID, i) }

// AnswerSignals declares the phone's answer signals for q, all empty.
func AnswerSignals(q *room.Question) string {
	parts := make([]string, len(q.Lanes))
	for i := range q.Lanes {
		parts[i] = AnswerSignal(q, i) + ": ''"
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// TapAction is what tapping answer v for lane i does: set the lane's signal
// and, once every lane has an answer, send them all. Sending only complete
// answers keeps the replies of quick taps from overtaking one another.
func TapAction(roomID string, q *room.Question, i int, v int64) string {
	var all strings.Builder
	for j := range q.Lanes {
		fmt.Fprintf(&all, "$%s !== '' && ", AnswerSignal(q, j))
	}
	return fmt.Sprintf("$%s = '%d'; %s@post('/room/%s/answer?q=%d')", AnswerSignal(q, i), v, all.String(), roomID, q.ID)
}

// AnsweredExpr counts, in the phone's browser, the lanes of q it has an
// answer for.
func AnsweredExpr(q *room.Question) string {
	parts := make([]string, len(q.Lanes))
	for i := range q.Lanes {
		parts[i] = "$" + AnswerSignal(q, i)
	}
	return "[" + strings.Join(parts, ", ") + "].filter(v => v !== '').length"
}

// SentSignals are the phone's answer signals for q holding the values of
// a, so that a page opened again after answering shows the taps it sent
// (and does not say "not sent"); nil for a typed kind, whose fields hold
// the attendee's own words.
func SentSignals(q *room.Question, a *room.Answer) []byte {
	if q == nil || a == nil || Choices(q) == nil || len(a.Values) != len(q.Lanes) {
		return nil
	}
	parts := make([]string, len(q.Lanes))
	for i, v := range a.Values {
		parts[i] = fmt.Sprintf("%q: %q", AnswerSignal(q, i), strconv.FormatInt(v, 10))
	}
	return []byte("{" + strings.Join(parts, ", ") + "}")
}

// TappedExpr is true when answer v is the chosen one for lane i.
func TappedExpr(q *room.Question, i int, v int64) string {
	return fmt.Sprintf("$%s == '%d'", AnswerSignal(q, i), v)
}

// Working is the one-line arithmetic of a solution's decisions for lane i.
func Working(q *room.Question, sol *room.Solution, i int) []string {
	if sol == nil || i >= len(sol.Working) {
		return nil
	}
	sc := scenario.Scenario{Limit: q.Limit, WindowMs: q.WindowMs}
	pol := explain.For(sc, q.Lanes[i])
	var out []string
	for _, d := range sol.Working[i] {
		out = append(out, fmt.Sprintf("at %s: %s → %s", scenario.FormatMs(d.At), explain.Working(pol, d), explain.Outcome(d.Detail)))
	}
	return out
}

// Bar is one bar of the projector's distribution of answers.
type Bar struct {
	Label   string
	Count   int
	Percent int // of the answers, for the bar's width
	Right   bool
}

// Bars is lane i's distribution of answers, for the projector.
func Bars(q *room.Question, t room.Tally, i int) []Bar {
	if i >= len(t.Lanes) {
		return nil
	}
	var out []Bar
	for _, v := range t.Lanes[i].Votes {
		pct := 0
		if t.Answered > 0 {
			pct = v.Count * 100 / t.Answered
		}
		out = append(out, Bar{Label: ValueText(q, v.Value), Count: v.Count, Percent: pct, Right: v.Right})
	}
	return out
}

// ShownBars are the bars the projector draws of lane i: the answers some
// phone gave, and the truth even when none did. A count question offers
// N + 1 answers; a bar for each one nobody gave made every lane's row of
// the tally two rows on the projector, and says nothing the rest do not.
func ShownBars(q *room.Question, t room.Tally, i int) []Bar {
	var out []Bar
	for _, b := range Bars(q, t, i) {
		if b.Count > 0 || b.Right {
			out = append(out, b)
		}
	}
	return out
}

// RightCount is how many answers got lane i right.
func RightCount(t room.Tally, i int) int {
	if i >= len(t.Lanes) {
		return 0
	}
	for _, v := range t.Lanes[i].Votes {
		if v.Right {
			return v.Count
		}
	}
	return 0
}

// BarClass is a bar's class: its width in steps of 5 % (the page's style
// sheet has one rule per step, as inline styles are not allowed), and
// whether it is the truth.
func BarClass(b Bar) string {
	c := "bar w" + strconv.Itoa(b.Percent/5*5)
	if b.Right {
		c += " right"
	}
	return c
}

// MineMarks says, per lane, whether the attendee's answer is right; nil
// before the reveal.
func (m RoomMine) Marks() []bool {
	if m.Question == nil || m.Answer == nil {
		return nil
	}
	return m.Question.Marks(*m.Answer)
}

// AnsweredText counts the answers for the projector, with the phones
// following the room's stream now. The two are not a fraction: a phone can
// answer and close its page, or follow without answering; so the phones
// are named only when they are at least the answers, never "3 of 0".
// PhonesText is a tally bar's count, said as what it counts, so that on the
// projector it is not read as a choice: "1 phone", "3 phones".
func PhonesText(n int) string { return templates.CountOf(int64(n), "phone") }

func AnsweredText(answered, following int) string {
	text := fmt.Sprintf("%d answered", answered)
	if following > 0 && following >= answered {
		text += " · " + templates.CountOf(int64(following), "phone") + " following"
	}
	return text
}

// RoomExplain is an attendee's own explanation of a request.
type RoomExplain struct {
	Selected *play.Selection
	Note     string // why nothing is explained
	// Asked is set while a question is open: only the verdicts are shown
	// (verdicts), as the lanes draw only those.
	Asked bool
}

// WorkingWhileAsked stands for the working a question hides.
const WorkingWhileAsked = explain.WorkingWhileAsked

// JoinHost is where to type the code: the join URL without its path, or
// the /join page when no address is known yet.
func JoinHost(joinURL string) string {
	u, err := url.Parse(joinURL)
	if err != nil || u.Host == "" {
		return "/join"
	}
	return u.Host + "/join"
}

// SpelledCode spaces a code's characters, so a screen reader reads them one
// by one rather than as a word.
func SpelledCode(code string) string {
	return strings.Join(strings.Split(code, ""), " ")
}

// RoomProjectorLaneOptions sizes the projector's lanes as the presentation
// view sizes any lanes, to share the screen's height; with six lanes or
// more, see roomDenseLaneOptions.
func RoomProjectorLaneOptions(s RoomShared) lane.Options {
	if len(s.View.Lanes) >= 6 {
		return roomDenseLaneOptions()
	}
	return templates.PresentLaneOptions(len(s.View.Lanes), lane.Options{})
}

// PointedView is the room's view with the pointed-at request as its
// selection, so the projector explains it as /play's presentation does.
func PointedView(s RoomShared) play.View {
	v := s.View
	v.Selected = s.Pointed
	return v
}

// RoomDevices is the presenter's page of the devices that joined a room.
type RoomDevices struct {
	Page        templates.Page
	Room        string
	JoinsClosed bool
	Devices     []RoomDevice // in the order they joined
	Removed     []RoomDevice // removed devices, kept out until let back
	Open        bool         // a question is open (the answered column means it)
	Error       string
}

// RoomDevice is one attendee's device, by its public name (room.DeviceName),
// with the nickname it gave.
type RoomDevice struct {
	Name     string
	Nickname string
	// Joined is when it joined, as RFC 3339 in UTC: the page shows it in
	// the presenter's own time zone (room-devices.js), UTC without scripts.
	Joined   string
	Answered bool
}

// JoinedUTC is the time of day of an RFC 3339 instant, for the page
// without scripts.
func JoinedUTC(rfc3339 string) string {
	t, err := time.Parse(time.RFC3339, rfc3339)
	if err != nil {
		return rfc3339
	}
	return t.UTC().Format("15:04:05") + " UTC"
}

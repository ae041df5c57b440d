package room

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/windowlab/playground/scenario"
)

func TestNormaliseNickname(t *testing.T) {
	for _, tt := range []struct {
		typed, want string
		bad         string // part of the error, "" for none
	}{
		{"  Ana   B. ", "Ana B.", ""},
		{"", "", ""},
		{"Zoë-María", "Zoë-María", ""},
		{"<b>bold</b>", "", `'<' is not allowed`},
		{"tab\there", "tab here", ""},
		{"bell\a", "", "not a letter"},
		{strings.Repeat("x", MaxNicknameRunes+1), "", "25 characters, more than 24"},
		{"a\u200bb", "", "not a letter"},
	} {
		got, err := NormaliseNickname(tt.typed)
		switch {
		case tt.bad == "" && err != nil:
			t.Errorf("NormaliseNickname(%q): %v, want %q", tt.typed, err, tt.want)
		case tt.bad != "" && (err == nil || !strings.Contains(err.Error(), tt.bad)):
			t.Errorf("NormaliseNickname(%q) = %q, %v; want an error saying %q", tt.typed, got, err, tt.bad)
		case tt.bad == "" && got != tt.want:
			t.Errorf("NormaliseNickname(%q) = %q, want %q", tt.typed, got, tt.want)
		}
	}
}

func TestNicknamesAreUniqueAndTheBanHolds(t *testing.T) {
	ctx := context.Background()
	rs, _ := newRooms(t, nil)
	r, p, _ := rs.Open(ctx, "s")
	_, ana, err := rs.JoinAs(ctx, r.ID, "", " Ana ")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := rs.JoinAs(ctx, r.ID, "", "ANA"); !errors.Is(err, ErrNicknameTaken) {
		t.Errorf("a second Ana: %v, want ErrNicknameTaken", err)
	}
	_, bo, err := rs.JoinAs(ctx, r.ID, "", "Bo")
	if err != nil {
		t.Fatal(err)
	}
	got, err := rs.Rename(ctx, r.ID, p, DeviceName(bo), "Bob")
	if err != nil {
		t.Fatal(err)
	}
	if got.Called(bo) != "Bob" || got.Called(ana) != "Ana" {
		t.Errorf("after renaming: %q and %q, want Bob and Ana", got.Called(bo), got.Called(ana))
	}
	if _, err := rs.Rename(ctx, r.ID, ana, DeviceName(bo), "Robert"); !errors.Is(err, ErrNotPresenter) {
		t.Errorf("an attendee renaming another: %v, want ErrNotPresenter", err)
	}
	if _, err := rs.Name(ctx, r.ID, bo, "Ana"); !errors.Is(err, ErrNicknameTaken) {
		t.Errorf("taking another's nickname: %v, want ErrNicknameTaken", err)
	}
	if _, err := rs.RemoveDevice(ctx, r.ID, p, DeviceName(bo)); err != nil {
		t.Fatal(err)
	}
	// A removed device coming back with its old cookie stays out, even
	// with another nickname; a new device (no old cookie) may still join.
	if _, _, err := rs.JoinAs(ctx, r.ID, bo, "Bobby"); !errors.Is(err, ErrRemoved) {
		t.Errorf("a removed device joining again: %v, want ErrRemoved", err)
	}
	if _, err := rs.LetBack(ctx, r.ID, p, DeviceName(bo)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := rs.JoinAs(ctx, r.ID, bo, "Bob"); err != nil {
		t.Errorf("a device let back joining: %v", err)
	}
	if _, err := rs.LetBack(ctx, r.ID, p, DeviceName(bo)); !errors.Is(err, ErrNotRemoved) {
		t.Errorf("letting back a device twice: %v, want ErrNotRemoved", err)
	}
}

func TestCountdownAndWhenAllReveal(t *testing.T) {
	ctx := context.Background()
	rs, clock := newRooms(t, nil)
	r, p, _ := rs.Open(ctx, "s")
	_, a1, _ := rs.Join(ctx, r.ID)
	_, a2, _ := rs.Join(ctx, r.ID)
	if _, err := rs.Ask(ctx, r.ID, p, Ask{Kind: KindAdmit, At: 31_000, Key: "car", Timer: Timer{Seconds: 601, OnTime: true}}, carPark()); err == nil {
		t.Error("a countdown over ten minutes was taken")
	}
	got, err := rs.Ask(ctx, r.ID, p, Ask{Kind: KindAdmit, At: 31_000, Key: "car", Timer: Timer{Seconds: 30, OnTime: true}}, carPark())
	if err != nil {
		t.Fatal(err)
	}
	if want := t0.Add(30 * time.Second); !got.Question.Deadline.Equal(want) {
		t.Fatalf("deadline %v, want %v", got.Question.Deadline, want)
	}
	id := got.Question.ID
	if _, err := rs.Answer(ctx, r.ID, a1, id, []int64{1, 0, 1}); err != nil {
		t.Fatal(err)
	}
	if names := got.NotAnswered(); len(names) != 2 {
		t.Errorf("before any answer, not answered: %v, want two phones", names)
	}
	clock.advance(29_999 * time.Millisecond)
	if _, _, did, err := rs.RevealDue(ctx, r.ID, carPark()); err != nil || did {
		t.Fatalf("1 ms before the deadline: revealed %v, %v; want not yet", did, err)
	}
	clock.advance(time.Millisecond)
	after, sol, did, err := rs.RevealDue(ctx, r.ID, carPark())
	if err != nil || !did {
		t.Fatalf("at the deadline: revealed %v, %v; want revealed", did, err)
	}
	if fmt.Sprint(sol.Truth) != "[1 0 1]" || !after.Question.Revealed {
		t.Errorf("truth %v (revealed %v), want [1 0 1]", sol.Truth, after.Question.Revealed)
	}
	if _, _, did, _ := rs.RevealDue(ctx, r.ID, carPark()); did {
		t.Error("a revealed question revealed again")
	}

	// WhenAll: the reveal waits for the second phone.
	got, err = rs.Ask(ctx, r.ID, p, Ask{Kind: KindAdmit, At: 32_000, Key: "car", Timer: Timer{WhenAll: true}}, carPark())
	if err != nil {
		t.Fatal(err)
	}
	id = got.Question.ID
	rs.Answer(ctx, r.ID, a1, id, []int64{1, 1, 1})
	if _, _, did, _ := rs.RevealDue(ctx, r.ID, carPark()); did {
		t.Error("revealed with one of two phones answered")
	}
	after, _ = rs.Answer(ctx, r.ID, a2, id, []int64{1, 0, 0})
	if !after.Due(clock.now) {
		t.Error("every phone answered, but the question is not due")
	}
	if _, _, did, err := rs.RevealDue(ctx, r.ID, carPark()); !did || err != nil {
		t.Errorf("every phone answered: revealed %v, %v", did, err)
	}
}

func TestRecordKeepsEveryRevealedQuestion(t *testing.T) {
	ctx := context.Background()
	b := DefaultBounds()
	b.Past = 2
	rs, clock := newRooms(t, &b)
	r, p, _ := rs.Open(ctx, "s")
	_, ana, _ := rs.JoinAs(ctx, r.ID, "", "Ana")
	_, bo, _ := rs.JoinAs(ctx, r.ID, "", "Bo")
	// Three questions; Ana answers all, Bo the first two; only the last
	// two are kept (b.Past).
	for i, at := range []int64{31_000, 32_000, 33_000} {
		got, err := rs.Ask(ctx, r.ID, p, Ask{Kind: KindAdmit, At: at, Key: "car", Lanes: []int{0, 1}}, carPark())
		if err != nil {
			t.Fatal(err)
		}
		clock.advance(2 * time.Second)
		rs.Answer(ctx, r.ID, ana, got.Question.ID, []int64{1, 0}) // right: fixed window admits, the log refuses
		if i < 2 {
			clock.advance(time.Second)
			rs.Answer(ctx, r.ID, bo, got.Question.ID, []int64{0, 0})
		}
		if _, _, err := rs.Reveal(ctx, r.ID, p, carPark()); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := rs.ByID(ctx, r.ID)
	rec := got.Record()
	if len(rec.Questions) != 2 || rec.Questions[0].ID != 2 || rec.Questions[1].ID != 3 {
		t.Fatalf("kept questions %+v, want 2 and 3", rec.Questions)
	}
	q2 := rec.Questions[0]
	if q2.Right != 1 || len(q2.Answers) != 2 {
		t.Errorf("question 2: %d right of %d answers, want 1 of 2", q2.Right, len(q2.Answers))
	}
	if a := q2.Answers[0]; a.Nickname != "Ana" || !a.Correct || a.Seconds != 2 || strings.Join(a.Values, ",") != "admitted,refused" {
		t.Errorf("question 2, first answer %+v; want Ana, correct, after 2 s, admitted and refused", a)
	}
	if len(rec.Phones) != 2 || rec.Phones[0].Nickname != "Ana" || rec.Phones[0].Correct != 2 || rec.Phones[1].Correct != 0 || rec.Phones[1].Answered != 1 {
		t.Errorf("phones %+v, want Ana 2 of 2 first, then Bo 0 of 1", rec.Phones)
	}
	rows := rec.Rows()
	if len(rows) != 1+3 || strings.Join(rows[0], ",") != strings.Join(RoomHeader, ",") {
		t.Errorf("CSV rows %v, want a header and three answers", rows)
	}
	// Undoing the last reveal forgets it from the record.
	if _, _, err := rs.Undo(ctx, r.ID, p); err != nil {
		t.Fatal(err)
	}
	got, _ = rs.ByID(ctx, r.ID)
	if n := len(got.Record().Questions); n != 1 {
		t.Errorf("after undoing the last reveal: %d questions kept, want 1", n)
	}
}

// catalog is a ScenarioSource with one scenario.
type catalog map[string]scenario.Scenario

func (c catalog) Scenario(name string) (scenario.Scenario, error) {
	if s, ok := c[name]; ok {
		return s, nil
	}
	return scenario.Scenario{}, fmt.Errorf("no scenario %q", name)
}

func TestParseDeck(t *testing.T) {
	src := catalog{"car-park": carPark()}
	good := `{"title": "Intro", "steps": [
		{"title": "The car park", "note": "say hello", "scenario": "car-park"},
		{"title": "After the window", "scenario": "car-park", "ask": {"kind": "admit", "at": "31 s", "key": "car", "lanes": [1, 2], "seconds": 20}}
	]}`
	d, err := ParseDeck([]byte(good), "intro.json", src, DefaultBounds())
	if err != nil {
		t.Fatal(err)
	}
	a, ok := d.Steps[1].Question()
	if !ok || a.At != 31_000 || fmt.Sprint(a.Lanes) != "[0 1]" || a.Timer != (Timer{Seconds: 20, OnTime: true, WhenAll: true}) {
		t.Errorf("step 2's question %+v, want at 31 s, lanes 0 and 1, a 20 s countdown revealing on time and when all answered", a)
	}
	sc, clock := d.Steps[1].Shown()
	if clock != 31_000 || len(sc.Requests) != 1 {
		t.Errorf("step 2 shows %d requests at clock %d, want 1 at 31000", len(sc.Requests), clock)
	}
	// A deck saved from a room reads back the same.
	data, err := MarshalDeck(d)
	if err != nil {
		t.Fatal(err)
	}
	again, err := ParseDeck(data, "saved.json", src, DefaultBounds())
	if err != nil {
		t.Fatalf("a saved deck does not read back: %v\n%s", err, data)
	}
	if mustJSON(t, again) != mustJSON(t, d) {
		t.Errorf("saved deck read back differently:\n%s\nwant\n%s", mustJSON(t, again), mustJSON(t, d))
	}

	for _, tt := range []struct{ name, deck, want string }{
		{"no title", `{"steps": [{"title": "a", "scenario": "car-park"}]}`, "title: missing"},
		{"no steps", `{"title": "x"}`, "steps: missing"},
		{"unknown field", `{"title": "x", "slides": []}`, `"slides" is not a field`},
		{"unknown scenario", `{"title": "x", "steps": [{"title": "a", "scenario": "nope"}]}`, `steps[0].scenario: no scenario "nope"`},
		{"bad moment", `{"title": "x", "steps": [{"title": "a", "scenario": "car-park"}, {"title": "b", "scenario": "car-park", "ask": {"kind": "admit", "at": "soon"}}]}`, "steps[1].ask.at:"},
		{"bad kind", `{"title": "x", "steps": [{"title": "a", "scenario": "car-park", "ask": {"kind": "guess", "at": "40 s"}}]}`, `steps[0].ask: unknown kind of question "guess"`},
		{"taken instant", `{"title": "x", "steps": [{"title": "a", "scenario": "car-park", "ask": {"kind": "admit", "at": "25 s"}}]}`, "steps[0].ask: 5 requests are already at 25 s"},
		{"no lane 9", `{"title": "x", "steps": [{"title": "a", "scenario": "car-park", "ask": {"kind": "admit", "at": "40 s", "lanes": [9]}}]}`, "steps[0].ask: there is no lane 9"},
		{"long countdown", `{"title": "x", "steps": [{"title": "a", "scenario": "car-park", "ask": {"kind": "admit", "at": "40 s", "seconds": 900}}]}`, "steps[0].ask: a countdown of 900 s"},
		{"step without title", `{"title": "x", "steps": [{"scenario": "car-park"}]}`, "steps[0].title: missing"},
	} {
		_, err := ParseDeck([]byte(tt.deck), "d.json", src, DefaultBounds())
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error saying %q", tt.name, err, tt.want)
		}
	}
}

func TestDeckInARoom(t *testing.T) {
	ctx := context.Background()
	rs, _ := newRooms(t, nil)
	r, p, _ := rs.Open(ctx, "s")
	_, ann, _ := rs.Join(ctx, r.ID)
	if _, _, err := rs.GoTo(ctx, r.ID, p, 0); !errors.Is(err, ErrNoDeck) {
		t.Errorf("a step with no deck: %v, want ErrNoDeck", err)
	}
	first := Step{Title: "one", Scenario: carPark()}
	second := Step{Title: "two", Scenario: carPark(), Ask: &StepAsk{Kind: KindAdmit, At: "31 s"}}
	if _, err := rs.AddStep(ctx, r.ID, ann, "mine", first); !errors.Is(err, ErrNotPresenter) {
		t.Errorf("an attendee adding a step: %v, want ErrNotPresenter", err)
	}
	rs.AddStep(ctx, r.ID, p, "mine", first)
	got, err := rs.AddStep(ctx, r.ID, p, "ignored", second)
	if err != nil {
		t.Fatal(err)
	}
	if got.Deck.Title != "mine" || len(got.Deck.Steps) != 2 || got.Step != -1 {
		t.Fatalf("deck %+v at step %d, want mine with two steps, before the first", got.Deck, got.Step)
	}
	got, _ = rs.MoveStep(ctx, r.ID, p, 1, -1)
	if got.Deck.Steps[0].Title != "two" {
		t.Errorf("after moving step 2 up: first step %q, want two", got.Deck.Steps[0].Title)
	}
	got, st, err := rs.GoTo(ctx, r.ID, p, 1)
	if err != nil || st.Title != "one" || got.Step != 1 {
		t.Errorf("GoTo(1) = %q at %d, %v; want step one", st.Title, got.Step, err)
	}
	if _, _, err := rs.GoTo(ctx, r.ID, p, 2); !errors.Is(err, ErrNoStep) {
		t.Errorf("GoTo past the end: %v, want ErrNoStep", err)
	}
	got, _ = rs.MoveStep(ctx, r.ID, p, 1, 0)
	if len(got.Deck.Steps) != 1 || got.Step != 0 {
		t.Errorf("after deleting the step on screen: %d steps at step %d, want 1 at 0", len(got.Deck.Steps), got.Step)
	}
}

package room

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// fixedClock is a clock a test moves by hand.
type fixedClock struct{ now time.Time }

func (c *fixedClock) Now() time.Time          { return c.now }
func (c *fixedClock) advance(d time.Duration) { c.now = c.now.Add(d) }

// newRooms returns Rooms over a fresh MemStore with a clock at t0, a
// seeded random source and the given bounds (nil for the defaults).
func newRooms(t *testing.T, b *Bounds) (*Rooms, *fixedClock) {
	t.Helper()
	clock := &fixedClock{now: t0}
	rs, err := New(NewMemStore(), Config{Now: clock.Now, Rand: rand.NewChaCha8([32]byte{1}), Bounds: b})
	if err != nil {
		t.Fatal(err)
	}
	return rs, clock
}

// step is one thing a device does in a workshop; err is the error it must
// give (nil for success).
type step struct {
	what string
	do   func() error
	err  error
}

func runSteps(t *testing.T, steps []step) {
	t.Helper()
	for i, s := range steps {
		err := s.do()
		if s.err == nil && err != nil || s.err != nil && !errors.Is(err, s.err) {
			t.Fatalf("step %d (%s): error = %v, want %v", i+1, s.what, err, s.err)
		}
	}
}

// TestWorkshop goes through a room as the issue's browser test will: open,
// join by code, ask, answer (and change an answer), reveal, with refusals
// for actions the device's role does not allow.
func TestWorkshop(t *testing.T) {
	ctx := context.Background()
	rs, clock := newRooms(t, nil)
	r, presenter, err := rs.Open(ctx, "play-session-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Code) != CodeLen || r.Pointer != -1 || r.Session != "play-session-1" {
		t.Fatalf("opened room %+v", r)
	}
	sc := carPark()
	var ann, bob, cat string
	var q *Question
	ask := Ask{Kind: KindAdmit, At: 31_000, Key: "car"}
	runSteps(t, []step{
		{"ann joins by a typed code", func() error {
			got, err := rs.ByCode(ctx, strings.ToLower(r.Code[:2]+" "+r.Code[2:]))
			if err != nil {
				return err
			}
			_, ann, err = rs.Join(ctx, got.ID)
			return err
		}, nil},
		{"bob joins", func() (err error) { _, bob, err = rs.Join(ctx, r.ID); return }, nil},
		{"cat joins", func() (err error) { _, cat, err = rs.Join(ctx, r.ID); return }, nil},
		{"an attendee cannot ask", func() error { _, err := rs.Ask(ctx, r.ID, ann, ask, sc); return err }, ErrNotPresenter},
		{"ann answers before any question", func() error { _, err := rs.Answer(ctx, r.ID, ann, 1, []int64{1, 1, 1}); return err }, ErrNoQuestion},
		{"the presenter asks", func() error {
			got, err := rs.Ask(ctx, r.ID, presenter, ask, sc)
			if got != nil {
				q = got.Question
			}
			return err
		}, nil},
		{"the presenter cannot answer", func() error { _, err := rs.Answer(ctx, r.ID, presenter, q.ID, []int64{1, 0, 1}); return err }, ErrNotAttendee},
		{"a stranger cannot answer", func() error { _, err := rs.Answer(ctx, r.ID, "stranger", q.ID, []int64{1, 0, 1}); return err }, ErrNotAttendee},
		{"ann answers all right", func() error { _, err := rs.Answer(ctx, r.ID, ann, q.ID, []int64{1, 0, 1}); return err }, nil},
		{"bob answers", func() error { _, err := rs.Answer(ctx, r.ID, bob, q.ID, []int64{0, 0, 0}); return err }, nil},
		{"bob changes his mind", func() error { _, err := rs.Answer(ctx, r.ID, bob, q.ID, []int64{1, 1, 1}); return err }, nil},
		{"cat answers an old question's id", func() error { _, err := rs.Answer(ctx, r.ID, cat, q.ID+1, []int64{1, 1, 1}); return err }, ErrOldQuestion},
		{"an attendee cannot reveal", func() error { _, _, err := rs.Reveal(ctx, r.ID, cat, sc); return err }, ErrNotPresenter},
		{"the presenter reveals", func() error { _, _, err := rs.Reveal(ctx, r.ID, presenter, sc); return err }, nil},
		{"cat answers too late", func() error { _, err := rs.Answer(ctx, r.ID, cat, q.ID, []int64{1, 0, 1}); return err }, ErrRevealed},
		{"revealing twice", func() error { _, _, err := rs.Reveal(ctx, r.ID, presenter, sc); return err }, ErrRevealed},
	})
	clock.advance(time.Minute)
	got, err := rs.ByID(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	tally := got.Question.Tally()
	if tally.Answered != 2 {
		t.Errorf("answered = %d, want 2 (ann, bob)", tally.Answered)
	}
	if want := []Vote{{Value: 0, Count: 1, Right: true}, {Value: 1, Count: 1}}; !slices.Equal(tally.Lanes[1].Votes, want) {
		t.Errorf("sliding-log votes = %+v, want %+v", tally.Lanes[1].Votes, want)
	}
	if m := got.Question.Marks(got.Question.Answers[ann]); !slices.Equal(m, []bool{true, true, true}) {
		t.Errorf("ann's marks = %v, want all right", m)
	}
	if m := got.Question.Marks(got.Question.Answers[bob]); !slices.Equal(m, []bool{true, false, true}) {
		t.Errorf("bob's marks = %v, want the log wrong", m)
	}
	for who, want := range map[string]Role{presenter: Presenter, ann: Attendee, "": Viewer, "forged": Viewer} {
		if role := got.RoleOf(who, who); role != want {
			t.Errorf("RoleOf(%.6q) = %v, want %v", who, role, want)
		}
	}
	if strings.Contains(mustJSON(t, got), presenter) {
		t.Error("the stored room holds the presenter capability itself, not only its hash")
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRoomRoundTripsThroughJSON: a key-value store will hold rooms as
// JSON, so everything a room is must survive it.
func TestRoomRoundTripsThroughJSON(t *testing.T) {
	ctx := context.Background()
	rs, clock := newRooms(t, nil)
	r, presenter, _ := rs.Open(ctx, "s")
	_, ann, _ := rs.Join(ctx, r.ID)
	sc := carPark()
	if _, err := rs.Checkpoint(ctx, r.ID, presenter, "fire", PlayState{Scenario: sc, ClockMs: 25_000}); err != nil {
		t.Fatal(err)
	}
	clock.advance(time.Second)
	got, _ := rs.Ask(ctx, r.ID, presenter, Ask{Kind: KindFirstAdmit, At: 26_000, Key: "car"}, sc)
	if _, err := rs.Answer(ctx, r.ID, ann, got.Question.ID, []int64{30_000, Never, 31_000}); err != nil {
		t.Fatal(err)
	}
	if _, err := rs.IssuePairing(ctx, r.ID, presenter); err != nil {
		t.Fatal(err)
	}
	got, _, err := rs.Reveal(ctx, r.ID, presenter, sc)
	if err != nil {
		t.Fatal(err)
	}
	var back Room
	if err := json.Unmarshal([]byte(mustJSON(t, got)), &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, got) {
		t.Errorf("room after a JSON round trip differs:\n got %s\nwant %s", mustJSON(t, &back), mustJSON(t, got))
	}
}

func TestUndo(t *testing.T) {
	ctx := context.Background()
	rs, _ := newRooms(t, nil)
	r, p, _ := rs.Open(ctx, "s")
	_, ann, _ := rs.Join(ctx, r.ID)
	sc := carPark()
	before := PlayState{Scenario: sc, ClockMs: 25_000}
	runSteps(t, []step{
		{"nothing to undo yet", func() error { _, _, err := rs.Undo(ctx, r.ID, p); return err }, ErrNothingToUndo},
		{"an attendee cannot undo", func() error { _, _, err := rs.Undo(ctx, r.ID, ann); return err }, ErrNotPresenter},
		{"an attendee cannot drive", func() error { _, err := rs.Checkpoint(ctx, r.ID, ann, "fire", before); return err }, ErrNotPresenter},
		{"fire", func() error { _, err := rs.Checkpoint(ctx, r.ID, p, "fire", before); return err }, nil},
		{"point at request 3", func() error { _, err := rs.Point(ctx, r.ID, p, 3, 5); return err }, nil},
		{"ask", func() error {
			_, err := rs.Ask(ctx, r.ID, p, Ask{Kind: KindAdmit, At: 31_000, Key: "car"}, sc)
			return err
		}, nil},
		{"answer", func() error { _, err := rs.Answer(ctx, r.ID, ann, 1, []int64{1, 1, 1}); return err }, nil},
		{"reveal", func() error { _, _, err := rs.Reveal(ctx, r.ID, p, sc); return err }, nil},
		{"dismiss", func() error { _, err := rs.Dismiss(ctx, r.ID, p); return err }, nil},
	})
	// Each undo takes back one action, newest first.
	for i, want := range []struct {
		what      string
		question  bool
		revealed  bool
		pointer   int
		playClock int64 // -1: no play state to load back
	}{
		{"dismiss", true, true, 3, -1},
		{"reveal", true, false, 3, -1},
		{"ask", false, false, 3, -1},
		{"point", false, false, -1, -1},
		{"fire", false, false, -1, 25_000},
	} {
		got, play, err := rs.Undo(ctx, r.ID, p)
		if err != nil {
			t.Fatalf("undo %d (%s): %v", i+1, want.what, err)
		}
		if (got.Question != nil) != want.question || got.Question != nil && got.Question.Revealed != want.revealed || got.Pointer != want.pointer {
			t.Errorf("undo %d (%s): question %v, pointer %d; want question %v (revealed %v), pointer %d",
				i+1, want.what, got.Question != nil, got.Pointer, want.question, want.revealed, want.pointer)
		}
		if got.Question != nil && !got.Question.Revealed && (got.Question.Truth != nil || len(got.Question.Answers) != 1) {
			t.Errorf("undo %d (%s): truth %v and %d answers, want no truth and the one answer kept", i+1, want.what, got.Question.Truth, len(got.Question.Answers))
		}
		if want.playClock < 0 && play != nil || want.playClock >= 0 && (play == nil || play.ClockMs != want.playClock || len(play.Scenario.Requests) != 1) {
			t.Errorf("undo %d (%s): play state %+v, want clock %d", i+1, want.what, play, want.playClock)
		}
	}
	if _, _, err := rs.Undo(ctx, r.ID, p); !errors.Is(err, ErrNothingToUndo) {
		t.Errorf("undo after everything was undone = %v, want ErrNothingToUndo", err)
	}
	// A question id is never reused, so a late answer to the undone
	// question cannot land on the next one.
	got, err := rs.Ask(ctx, r.ID, p, Ask{Kind: KindAdmit, At: 31_000, Key: "car"}, sc)
	if err != nil || got.Question.ID != 2 {
		t.Errorf("asking again gave question %v (%v), want id 2", got, err)
	}
	if _, err := rs.Point(ctx, r.ID, p, 5, 5); err == nil || !strings.Contains(err.Error(), "no request 5 to point at (the session has 5)") {
		t.Errorf("Point(5 of 5) = %v, want an error naming request 5", err)
	}
}

func TestHistoryIsBounded(t *testing.T) {
	ctx := context.Background()
	b := DefaultBounds()
	b.History, b.HistoryRequests = 3, 10
	rs, _ := newRooms(t, &b)
	r, p, _ := rs.Open(ctx, "s")
	four := carPark()
	four.Requests = slices.Repeat(four.Requests, 4) // 4 entries
	for i, label := range []string{"a", "b", "c", "d", "e"} {
		if _, err := rs.Checkpoint(ctx, r.ID, p, label, PlayState{Scenario: four, ClockMs: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := rs.ByID(ctx, r.ID)
	var labels []string
	for _, e := range got.History {
		labels = append(labels, e.Label)
	}
	// 3 entries would hold 12 requests, over 10: only the newest 2 stay.
	if !slices.Equal(labels, []string{"d", "e"}) {
		t.Errorf("history = %v, want [d e]", labels)
	}
	for range 3 {
		if _, err := rs.Point(ctx, r.ID, p, 0, 1); err != nil {
			t.Fatal(err)
		}
	}
	got, _ = rs.ByID(ctx, r.ID)
	if len(got.History) != 3 || got.History[0].Action != ActPoint {
		t.Errorf("after 3 points the history holds %d entries starting with %s, want the 3 points", len(got.History), got.History[0].Action)
	}
}

func TestBounds(t *testing.T) {
	ctx := context.Background()
	b := DefaultBounds()
	b.Rooms, b.Followers, b.Answers = 2, 3, 2
	rs, _ := newRooms(t, &b)
	r, p, _ := rs.Open(ctx, "s1")
	if _, _, err := rs.Open(ctx, "s2"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := rs.Open(ctx, "s3"); !errors.Is(err, ErrFull) {
		t.Errorf("a third room with Rooms = 2: %v, want ErrFull", err)
	}
	var ids []string
	for i := range 4 {
		_, id, err := rs.Join(ctx, r.ID)
		if i < 3 && err != nil || i == 3 && !errors.Is(err, ErrRoomFull) {
			t.Fatalf("join %d with Followers = 3: %v", i+1, err)
		}
		ids = append(ids, id)
	}
	got, err := rs.Ask(ctx, r.ID, p, Ask{Kind: KindAdmit, At: 31_000, Key: "car", Lanes: []int{0}}, carPark())
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range ids[:3] {
		_, err := rs.Answer(ctx, r.ID, id, got.Question.ID, []int64{1})
		if i < 2 && err != nil || i == 2 && !errors.Is(err, ErrTooManyAnswers) {
			t.Errorf("answer %d with Answers = 2: %v", i+1, err)
		}
	}
	if _, err := rs.Answer(ctx, r.ID, ids[0], got.Question.ID, []int64{0}); err != nil {
		t.Errorf("changing an answer in a full question: %v, want it accepted", err)
	}
	if _, err := New(NewMemStore(), Config{Bounds: &Bounds{}}); err == nil || !strings.Contains(err.Error(), "positive") {
		t.Errorf("New with zero bounds = %v, want an error", err)
	}
}

func TestRoomEndsAfterThePresenterLeaves(t *testing.T) {
	ctx := context.Background()
	rs, clock := newRooms(t, nil)
	r, _, _ := rs.Open(ctx, "s")
	_, ann, _ := rs.Join(ctx, r.ID)
	steps := []struct {
		after time.Duration
		touch string // who acts at that time
		live  bool
	}{
		{29 * time.Minute, "", true},
		{time.Minute, ann, true}, // 30 min without the presenter: still the limit
		{time.Millisecond, "", false},
	}
	for i, s := range steps {
		clock.advance(s.after)
		if s.touch == ann {
			if _, err := rs.Answer(ctx, r.ID, ann, 1, []int64{1}); !errors.Is(err, ErrNoQuestion) {
				t.Fatalf("step %d: answering = %v", i+1, err)
			}
		}
		_, err := rs.ByCode(ctx, r.Code)
		if s.live && err != nil || !s.live && !errors.Is(err, ErrNotFound) {
			t.Fatalf("step %d: ByCode = %v, want live %v", i+1, err, s.live)
		}
	}
	// A presenter whose page stays open keeps the room, up to its lifetime.
	r, p, _ := rs.Open(ctx, "s")
	for range 47 {
		clock.advance(29 * time.Minute)
		if err := rs.Touch(ctx, r.ID, p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := rs.ByID(ctx, r.ID); err != nil {
		t.Fatalf("after 22 h 43 min with the presenter there: %v", err)
	}
	clock.advance(78 * time.Minute)
	if err := rs.Touch(ctx, r.ID, p); !errors.Is(err, ErrNotFound) {
		t.Errorf("Touch after 24 h = %v, want ErrNotFound", err)
	}
	if n, _ := rs.Sweep(ctx); n != 1 {
		t.Errorf("Sweep forgot %d rooms, want the ended one", n)
	}
}

func TestPairing(t *testing.T) {
	ctx := context.Background()
	b := DefaultBounds()
	b.Devices = 2
	rs, clock := newRooms(t, &b)
	r, p, _ := rs.Open(ctx, "s")
	_, ann, _ := rs.Join(ctx, r.ID)
	if _, err := rs.IssuePairing(ctx, r.ID, ann); !errors.Is(err, ErrNotPresenter) {
		t.Errorf("an attendee issuing a pairing code: %v, want ErrNotPresenter", err)
	}
	code, err := rs.IssuePairing(ctx, r.ID, p)
	if err != nil || len(code) != PairCodeLen {
		t.Fatalf("IssuePairing = %q, %v", code, err)
	}
	clock.advance(4 * time.Minute)
	remote, err := rs.Pair(ctx, r.ID, strings.ToLower(code[:4]+"-"+code[4:]))
	if err != nil {
		t.Fatalf("redeeming within the TTL, typed in lower case: %v", err)
	}
	got, _ := rs.ByID(ctx, r.ID)
	if got.RoleOf(remote, "") != Presenter || remote == p {
		t.Error("the paired device did not get its own presenter capability")
	}
	if _, err := rs.Pair(ctx, r.ID, code); !errors.Is(err, ErrPairing) {
		t.Errorf("redeeming the same code twice: %v, want ErrPairing", err)
	}
	if _, err := rs.IssuePairing(ctx, r.ID, remote); !errors.Is(err, ErrTooManyDevices) {
		t.Errorf("a third device with Devices = 2: %v, want ErrTooManyDevices", err)
	}

	// Expiry and wrong guesses, in a room of their own.
	r, p, _ = rs.Open(ctx, "s2")
	code, _ = rs.IssuePairing(ctx, r.ID, p)
	clock.advance(5*time.Minute + time.Millisecond)
	if _, err := rs.Pair(ctx, r.ID, code); !errors.Is(err, ErrPairing) {
		t.Errorf("redeeming after the TTL: %v, want ErrPairing", err)
	}
	code, _ = rs.IssuePairing(ctx, r.ID, p)
	wrong := strings.Repeat("2", PairCodeLen)
	if wrong == code {
		wrong = strings.Repeat("3", PairCodeLen)
	}
	for i := range b.PairAttempts {
		if _, err := rs.PairFrom(ctx, r.ID, wrong, "198.51.100.7"); !errors.Is(err, ErrPairing) {
			t.Fatalf("wrong try %d: %v", i+1, err)
		}
	}
	if _, err := rs.PairFrom(ctx, r.ID, code, "198.51.100.7"); !errors.Is(err, ErrPairTries) {
		t.Errorf("the right code from the address that tried %d wrong ones: %v, want ErrPairTries", b.PairAttempts, err)
	}
	if _, err := rs.PairFrom(ctx, r.ID, code, "203.0.113.9"); err != nil {
		t.Errorf("the right code from another address after an attendee's %d wrong tries: %v, want it redeemed", b.PairAttempts, err)
	}
	if _, err := rs.Pair(ctx, r.ID, "ABC"); err == nil || !strings.Contains(err.Error(), "8 characters") {
		t.Errorf("a code of the wrong length: %v, want an error saying a code has 8 characters", err)
	}
}

// repeating yields the same bytes for ever, so every drawn code is the same.
type repeating struct{}

func (repeating) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(i)
	}
	return len(p), nil
}

func TestJoinCodesAreUniqueAmongLiveRooms(t *testing.T) {
	ctx := context.Background()
	rs, err := New(NewMemStore(), Config{Now: (&fixedClock{now: t0}).Now, Rand: repeating{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := rs.Open(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	// Same random bytes: the ids collide too, but the code is checked first.
	if _, _, err := rs.Open(ctx, "s2"); !errors.Is(err, ErrCodeTaken) {
		t.Errorf("a second room drawing only the taken code: %v, want ErrCodeTaken", err)
	}
	rs, _ = newRooms(t, nil)
	codes := map[string]bool{}
	for i := range 50 {
		r, _, err := rs.OpenFor(ctx, "s", fmt.Sprint("client ", i))
		if err != nil {
			t.Fatalf("room %d: %v", i+1, err)
		}
		if codes[r.Code] {
			t.Fatalf("room %d got the live code %s again", i+1, r.Code)
		}
		codes[r.Code] = true
	}
}

// TestConcurrentAnswersAllCount: a room's phones answer at once; the store
// must serialise the updates so that none is lost.
func TestConcurrentAnswersAllCount(t *testing.T) {
	ctx := context.Background()
	rs, err := New(NewMemStore(), Config{Now: (&fixedClock{now: t0}).Now})
	if err != nil {
		t.Fatal(err)
	}
	r, p, _ := rs.Open(ctx, "s")
	const phones = 40
	ids := make([]string, phones)
	for i := range ids {
		_, ids[i], _ = rs.Join(ctx, r.ID)
	}
	if _, err := rs.Ask(ctx, r.ID, p, Ask{Kind: KindAdmit, At: 31_000, Key: "car", Lanes: []int{1}}, carPark()); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, phones)
	for i, id := range ids {
		go func() {
			_, err := rs.Answer(ctx, r.ID, id, 1, []int64{int64(i % 2)})
			errs <- err
		}()
	}
	for range phones {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	got, _ := rs.ByID(ctx, r.ID)
	if votes := got.Question.Tally().Lanes[0].Votes; votes[0].Count != phones/2 || votes[1].Count != phones/2 {
		t.Errorf("votes = %+v, want %d each", votes, phones/2)
	}
	if want := uint64(2*phones + 1); got.Version != want {
		t.Errorf("version = %d, want %d: one per join, the ask and one per answer", got.Version, want)
	}
}

// TestCheckpointSessionRecordsInTheRoomsShowingIt: a /play action's
// checkpoint lands in every live room over that session and no other.
func TestCheckpointSessionRecordsInTheRoomsShowingIt(t *testing.T) {
	ctx := context.Background()
	rs, err := New(NewMemStore(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	a1, _, err := rs.Open(ctx, "session-a")
	if err != nil {
		t.Fatal(err)
	}
	a2, _, _ := rs.Open(ctx, "session-a")
	b, _, _ := rs.Open(ctx, "session-b")
	n, err := rs.CheckpointSession(ctx, "session-a", "fire", PlayState{ClockMs: 5000})
	if err != nil || n != 2 {
		t.Fatalf("CheckpointSession = %d, %v; want 2 rooms, no error", n, err)
	}
	for _, c := range []struct {
		id   string
		want int
	}{{a1.ID, 1}, {a2.ID, 1}, {b.ID, 0}} {
		r, err := rs.ByID(ctx, c.id)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.History) != c.want {
			t.Errorf("room over %s: %d history entries, want %d", r.Session, len(r.History), c.want)
		}
	}
	if n, err := rs.CheckpointSession(ctx, "no-such-session", "fire", PlayState{}); n != 0 || err != nil {
		t.Errorf("CheckpointSession of a session no room shows = %d, %v; want 0, nil", n, err)
	}
}

// TestPairingCodeSurvivesAnAttendeesWrongTries: wrong codes count per
// address, so many from one address leave the code good for another;
// Bounds.PairGuesses wrong ones from every address together void it.
func TestPairingCodeSurvivesAnAttendeesWrongTries(t *testing.T) {
	ctx := context.Background()
	b := DefaultBounds()
	b.PairGuesses = 12
	rs, _ := newRooms(t, &b)
	r, p, _ := rs.Open(ctx, "s")
	code, err := rs.IssuePairing(ctx, r.ID, p)
	if err != nil {
		t.Fatal(err)
	}
	wrong := strings.Repeat("2", PairCodeLen)
	if wrong == code {
		wrong = strings.Repeat("3", PairCodeLen)
	}
	for i := range 20 {
		want := ErrPairing
		if i >= b.PairAttempts {
			want = ErrPairTries
		}
		if _, err := rs.PairFrom(ctx, r.ID, wrong, "attendee"); !errors.Is(err, want) {
			t.Fatalf("step %d: wrong code from the attendee: %v, want %v", i+1, err, want)
		}
	}
	if _, err := rs.PairFrom(ctx, r.ID, code, "presenter"); err != nil {
		t.Fatalf("the presenter's code after 20 wrong tries from one attendee: %v, want it redeemed", err)
	}

	code, _ = rs.IssuePairing(ctx, r.ID, p)
	for i := range b.PairGuesses {
		client := fmt.Sprintf("guesser-%d", i%3) // 3 addresses of 4 tries each
		if _, err := rs.PairFrom(ctx, r.ID, wrong, client); !errors.Is(err, ErrPairing) {
			t.Fatalf("step %d: wrong code from %s: %v, want ErrPairing", i+1, client, err)
		}
	}
	if _, err := rs.PairFrom(ctx, r.ID, code, "presenter"); !errors.Is(err, ErrPairing) {
		t.Errorf("the right code after %d wrong ones from several addresses: %v, want it voided", b.PairGuesses, err)
	}
}

func TestRoomsPerClient(t *testing.T) {
	ctx := context.Background()
	b := DefaultBounds()
	b.Rooms, b.RoomsPerClient = 4, 2
	rs, _ := newRooms(t, &b)
	for i, tc := range []struct {
		client string
		want   error
	}{{"a", nil}, {"a", nil}, {"a", ErrClientRooms}, {"b", nil}, {"b", nil}, {"c", ErrFull}} {
		r, p, err := rs.OpenFor(ctx, "s", tc.client)
		if !errors.Is(err, tc.want) {
			t.Fatalf("step %d: room for %s: %v, want %v", i+1, tc.client, err, tc.want)
		}
		if i == 4 {
			// An ended room frees its place at once.
			if err := rs.Close(ctx, r.ID, p); err != nil {
				t.Fatal(err)
			}
			if _, _, err := rs.OpenFor(ctx, "s", "c"); err != nil {
				t.Fatalf("a room after one closed: %v, want it opened", err)
			}
		}
	}
}

func TestJoinsClosedAndDevicesRemoved(t *testing.T) {
	ctx := context.Background()
	rs, _ := newRooms(t, nil)
	r, p, _ := rs.Open(ctx, "s")
	_, ann, err := rs.Join(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rs.SetJoins(ctx, r.ID, ann, false); !errors.Is(err, ErrNotPresenter) {
		t.Errorf("an attendee closing the room to joins: %v, want ErrNotPresenter", err)
	}
	if _, err := rs.SetJoins(ctx, r.ID, p, false); err != nil {
		t.Fatal(err)
	}
	if _, _, err := rs.Join(ctx, r.ID); !errors.Is(err, ErrJoinsClosed) {
		t.Errorf("joining a closed room: %v, want ErrJoinsClosed", err)
	}
	q, err := rs.Ask(ctx, r.ID, p, Ask{Kind: KindAdmit, At: 31_000, Key: "car", Lanes: []int{0}}, carPark())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rs.Answer(ctx, r.ID, ann, q.Question.ID, []int64{1}); err != nil {
		t.Fatalf("a device that joined before the close answering: %v", err)
	}
	if _, err := rs.RemoveDevice(ctx, r.ID, p, "nobody"); !errors.Is(err, ErrNoDevice) {
		t.Errorf("removing an unknown device: %v, want ErrNoDevice", err)
	}
	got, err := rs.RemoveDevice(ctx, r.ID, p, DeviceName(ann))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Attendees) != 0 || len(got.Question.Answers) != 0 {
		t.Errorf("after removing the device: %d attendees, %d answers; want 0 and 0", len(got.Attendees), len(got.Question.Answers))
	}
	if _, err := rs.Answer(ctx, r.ID, ann, q.Question.ID, []int64{1}); !errors.Is(err, ErrRemoved) {
		t.Errorf("a removed device answering: %v, want ErrRemoved", err)
	}
	if _, err := rs.SetJoins(ctx, r.ID, p, true); err != nil {
		t.Fatal(err)
	}
	if _, _, err := rs.Join(ctx, r.ID); err != nil {
		t.Errorf("joining after the room opened again: %v", err)
	}
}

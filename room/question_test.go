package room

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

var t0 = time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)

// carPark is five cars at 25 s under 5 per 30 s, in three lanes: a fixed
// window (whose window turns over at 30 s), a sliding log (which remembers
// all five until 55 s) and a token bucket (one token back every 6 s).
func carPark() scenario.Scenario {
	return scenario.Scenario{
		Limit: 5, WindowMs: 30_000,
		Policies: []scenario.PolicySpec{{Name: policies.FixedWindow}, {Name: policies.SlidingLog}, {Name: policies.TokenBucket}},
		Requests: []scenario.Request{{At: 25_000, Key: "car", Cost: 1, Count: 5}},
	}
}

func TestSolve(t *testing.T) {
	for _, tt := range []struct {
		name string
		ask  Ask
		want []int64 // fixed window, sliding log, token bucket
	}{
		{"admit after the fixed window turns over", Ask{Kind: KindAdmit, At: 31_000, Key: "car"}, []int64{1, 0, 1}},
		{"admit for another client", Ask{Kind: KindAdmit, At: 31_000, Key: "bus"}, []int64{1, 1, 1}},
		{"admit inside the first window", Ask{Kind: KindAdmit, At: 29_999, Key: "car"}, []int64{0, 0, 0}},
		{"three more cars", Ask{Kind: KindCount, At: 31_000, Key: "car", N: 3}, []int64{3, 0, 1}},
		{"seven more cars", Ask{Kind: KindCount, At: 37_000, Key: "car", N: 7}, []int64{5, 0, 2}},
		{"first admit from 26 s", Ask{Kind: KindFirstAdmit, At: 26_000, Key: "car"}, []int64{30_000, 55_000, 31_000}},
		{"first admit from 31 s", Ask{Kind: KindFirstAdmit, At: 31_000, Key: "car"}, []int64{31_000, 55_000, 31_000}},
		{"a cost above every capacity never gets in", Ask{Kind: KindFirstAdmit, At: 31_000, Key: "car", Cost: 6}, []int64{Never, Never, Never}},
		{"one lane only", Ask{Kind: KindFirstAdmit, At: 26_000, Key: "car", Lanes: []int{1}}, []int64{55_000}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q, err := newQuestion(1, tt.ask, carPark(), DefaultBounds(), t0)
			if err != nil {
				t.Fatalf("newQuestion: %v", err)
			}
			sol, err := q.Solve(carPark())
			if err != nil {
				t.Fatalf("Solve: %v", err)
			}
			if !slices.Equal(sol.Truth, tt.want) {
				t.Errorf("truth = %v, want %v", sol.Truth, tt.want)
			}
			if len(sol.Working) != len(tt.want) {
				t.Fatalf("working for %d lanes, want %d", len(sol.Working), len(tt.want))
			}
			for i, w := range sol.Working {
				if len(w) == 0 {
					t.Errorf("lane %d: no working", i)
				}
			}
		})
	}
}

// TestSolveIgnoresWhatWasFiredAfterAsking: the presenter asks, then fires
// the request, then reveals; the truth is about the request as asked.
func TestSolveIgnoresWhatWasFiredAfterAsking(t *testing.T) {
	ask := Ask{Kind: KindCount, At: 31_000, Key: "car", N: 3}
	q, err := newQuestion(1, ask, carPark(), DefaultBounds(), t0)
	if err != nil {
		t.Fatal(err)
	}
	fired := carPark()
	fired.Requests = append(fired.Requests, scenario.Request{At: 31_000, Key: "car", Cost: 1, Count: 3}, scenario.Request{At: 40_000, Key: "car", Cost: 1})
	sol, err := q.Solve(fired)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{3, 0, 1}; !slices.Equal(sol.Truth, want) {
		t.Errorf("after firing the asked requests, truth = %v, want %v as before", sol.Truth, want)
	}
	changed := carPark()
	changed.Limit = 6
	if _, err := q.Solve(changed); !errors.Is(err, ErrSettingsChanged) {
		t.Errorf("Solve after the limit changed = %v, want ErrSettingsChanged", err)
	}
}

// TestSolveRefusesChangedRequestsBeforeTheQuestion: the attendees answered
// for the requests before the question as they were when it was asked; a
// request added, removed or changed among them since would mark a right
// answer wrong, so Solve refuses rather than compute another truth.
func TestSolveRefusesChangedRequestsBeforeTheQuestion(t *testing.T) {
	q, err := newQuestion(1, Ask{Kind: KindAdmit, At: 31_000, Key: "car"}, carPark(), DefaultBounds(), t0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		edit func(*scenario.Scenario)
	}{
		{"one more before", func(s *scenario.Scenario) {
			s.Requests = append([]scenario.Request{{At: 1_000, Key: "car", Cost: 1, Count: 1}}, s.Requests...)
		}},
		{"one fewer", func(s *scenario.Scenario) { s.Requests = nil }},
		{"a count changed", func(s *scenario.Scenario) { s.Requests[0].Count = 4 }},
		{"a cost changed", func(s *scenario.Scenario) { s.Requests[0].Cost = 2 }},
		{"a client changed", func(s *scenario.Scenario) { s.Requests[0].Key = "bus" }},
		{"a moment changed", func(s *scenario.Scenario) { s.Requests[0].At = 24_000 }},
	} {
		sc := carPark()
		sc.Requests = slices.Clone(sc.Requests)
		tt.edit(&sc)
		if _, err := q.Solve(sc); !errors.Is(err, ErrRequestsChanged) {
			t.Errorf("%s: Solve = %v, want ErrRequestsChanged", tt.name, err)
		}
	}
}

// TestNewQuestionRefusesAnInstantWithRequests: "a request at 0 s" beside
// six requests already at 0 s could be before them (what Solve would
// answer) or after them (what the lanes draw), so the instant is refused,
// naming the requests there and the first free instant after them.
func TestNewQuestionRefusesAnInstantWithRequests(t *testing.T) {
	sc := carPark()
	_, err := newQuestion(1, Ask{Kind: KindFirstAdmit, At: 25_000, Key: "car"}, sc, DefaultBounds(), t0)
	var taken *InstantTakenError
	if !errors.As(err, &taken) {
		t.Fatalf("newQuestion at 25 s, where 5 requests are = %v, want an InstantTakenError", err)
	}
	if want := "5 requests are already at 25 s"; !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "25.001 s") {
		t.Errorf("error %q, want it to say %q and suggest 25.001 s", err, want)
	}
	if _, err := newQuestion(1, Ask{Kind: KindFirstAdmit, At: 25_001, Key: "car"}, sc, DefaultBounds(), t0); err != nil {
		t.Errorf("newQuestion just after them: %v", err)
	}
}

func TestNewQuestionRefusesWhatCannotBeAsked(t *testing.T) {
	for _, tt := range []struct {
		ask     Ask
		wantErr string
	}{
		{Ask{Kind: "guess", At: 1000}, `unknown kind of question "guess"`},
		{Ask{Kind: KindCount, At: 1000, N: 21}, "1 to 20 requests, not 21"},
		{Ask{Kind: KindCount, At: 1000, N: -1}, "not -1"},
		{Ask{Kind: KindAdmit, At: 1000, N: 2}, "about one request, not 2"},
		{Ask{Kind: KindAdmit, At: -1}, "before the clock's start"},
		{Ask{Kind: KindAdmit, At: 1000, Cost: -3}, "cost -3 is not between 1 and"},
		{Ask{Kind: KindAdmit, At: 1000, Key: strings.Repeat("k", 65)}, "client name is 65 bytes"},
		{Ask{Kind: KindAdmit, At: 1000, Lanes: []int{3}}, "no lane 4 (the scenario has 3)"},
		{Ask{Kind: KindAdmit, At: 1000, Lanes: []int{0, 0}}, "lane 1 is asked about twice"},
	} {
		_, err := newQuestion(1, tt.ask, carPark(), DefaultBounds(), t0)
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("newQuestion(%+v) = %v, want an error saying %q", tt.ask, err, tt.wantErr)
		}
	}
}

func TestAnswerValuesAreChecked(t *testing.T) {
	for _, tt := range []struct {
		ask     Ask
		values  []int64
		wantErr string
	}{
		{Ask{Kind: KindAdmit, At: 31_000}, []int64{1, 0, 1}, ""},
		{Ask{Kind: KindAdmit, At: 31_000}, []int64{1, 0}, "asks about 3 lanes; the answer has 2"},
		{Ask{Kind: KindAdmit, At: 31_000}, []int64{1, 2, 1}, "sliding-log: 2 is neither admitted (1) nor refused (0)"},
		{Ask{Kind: KindCount, At: 31_000, N: 3}, []int64{0, 3, 1}, ""},
		{Ask{Kind: KindCount, At: 31_000, N: 3}, []int64{0, 4, 1}, "4 is not a count from 0 to 3"},
		{Ask{Kind: KindFirstAdmit, At: 31_000}, []int64{31_000, Never, 121_000}, ""},
		{Ask{Kind: KindFirstAdmit, At: 31_000}, []int64{30_999, 31_000, 31_000}, "fixed-window: 30.999 s is before the question's moment, 31 s"},
		{Ask{Kind: KindFirstAdmit, At: 31_000}, []int64{31_000, 121_001, 31_000}, "sliding-log: 121.001 s is after 121 s, the last moment this question looks at (3 windows on): answer never if no moment until then admits it"},
	} {
		q, err := newQuestion(1, tt.ask, carPark(), DefaultBounds(), t0)
		if err != nil {
			t.Fatal(err)
		}
		err = q.check(tt.values)
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%s: check(%v) = %v, want %q", tt.ask.Kind, tt.values, err, tt.wantErr)
		}
	}
}

func TestTallyListsEveryChoiceAndMarksTheTruthOnlyAfterReveal(t *testing.T) {
	q, err := newQuestion(1, Ask{Kind: KindCount, At: 31_000, Key: "car", N: 2, Lanes: []int{0, 1}}, carPark(), DefaultBounds(), t0)
	if err != nil {
		t.Fatal(err)
	}
	q.Answers = map[string]Answer{"a": {Values: []int64{2, 0}}, "b": {Values: []int64{2, 2}}, "c": {Values: []int64{1, 0}}}
	tally := q.Tally()
	want := [][]Vote{
		{{Value: 0}, {Value: 1, Count: 1}, {Value: 2, Count: 2}},
		{{Value: 0, Count: 2}, {Value: 1}, {Value: 2, Count: 1}},
	}
	if tally.Answered != 3 {
		t.Errorf("answered = %d, want 3", tally.Answered)
	}
	for i := range want {
		if !slices.Equal(tally.Lanes[i].Votes, want[i]) {
			t.Errorf("before the reveal, lane %d votes = %+v, want %+v", i, tally.Lanes[i].Votes, want[i])
		}
	}
	if m := q.Marks(q.Answers["a"]); m != nil {
		t.Errorf("before the reveal, marks = %v, want none", m)
	}
	sol, err := q.Solve(carPark())
	if err != nil {
		t.Fatal(err)
	}
	q.Revealed, q.Truth = true, sol.Truth // fixed window lets both in, the log neither
	want[0][2].Right, want[1][0].Right = true, true
	tally = q.Tally()
	for i := range want {
		if !slices.Equal(tally.Lanes[i].Votes, want[i]) {
			t.Errorf("after the reveal, lane %d votes = %+v, want %+v", i, tally.Lanes[i].Votes, want[i])
		}
	}
	for id, want := range map[string][]bool{"a": {true, true}, "b": {true, false}, "c": {false, true}} {
		if got := q.Marks(q.Answers[id]); !slices.Equal(got, want) {
			t.Errorf("attendee %s marks = %v, want %v", id, got, want)
		}
	}
}

func TestRevealChecksTheQuestionItCloses(t *testing.T) {
	b := DefaultBounds()
	q, err := newQuestion(0, Ask{Kind: KindAdmit, At: 31_000, Key: "car"}, carPark(), b, t0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		asked bool
		id    int
		truth []int64
		want  string
	}{
		{"no question", false, 1, []int64{1, 0, 1}, ErrNoQuestion.Error()},
		{"replaced meanwhile", true, 2, []int64{1, 0, 1}, ErrOldQuestion.Error()},
		{"a truth of the wrong size", true, 1, []int64{1}, "a truth of 1 values for a question about 3 lanes"},
		{"the open question", true, 1, []int64{1, 0, 1}, ""},
	} {
		r := &Room{Pointer: -1}
		if tt.asked {
			r.ask(b, q, t0)
		}
		err := r.reveal(b, tt.id, tt.truth, t0)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: reveal = %v, want %q", tt.name, err, tt.want)
		}
		if tt.want == "" && (!r.Question.Revealed || !slices.Equal(r.Question.Truth, tt.truth)) {
			t.Errorf("%s: revealed %v with truth %v", tt.name, r.Question.Revealed, r.Question.Truth)
		}
	}
}

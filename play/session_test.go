package play

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/windowlab/playground/scenario"
)

func TestSameActionsGiveTheSameTimeline(t *testing.T) {
	act := func() View {
		s := newSession(t, DefaultScenario())
		must(t, "fire", s.Fire(3))
		must(t, "poisson", s.FirePattern(Pattern{Kind: Poisson, Count: 40, SpanMs: 60_000}))
		must(t, "step", s.Step(1000))
		must(t, "straddle", s.FirePattern(Pattern{Kind: Straddle, Count: 10}))
		must(t, "poisson", s.FirePattern(Pattern{Kind: Poisson, Count: 40, SpanMs: 60_000}))
		v := s.View()
		v.ID = ""
		return v
	}
	a, b := act(), act()
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two sessions given the same actions show different timelines")
	}
	if a.Total != 93 {
		t.Errorf("total %d, want 93", a.Total)
	}
}

func TestRequestCap(t *testing.T) {
	s := newSession(t, DefaultScenario())
	for range MaxRequests / MaxBurst {
		must(t, "burst", s.Fire(MaxBurst))
	}
	before := version(s)
	err := s.Fire(1)
	var errs scenario.Errors
	if !errors.As(err, &errs) || errs.Field("count") == "" {
		t.Fatalf("firing past the cap: %v, want an error naming count", err)
	}
	if version(s) != before || s.View().Total != MaxRequests {
		t.Error("a refused action changed the session")
	}
}

func TestInvalidSettingsChangeNothing(t *testing.T) {
	s := newSession(t, DefaultScenario())
	must(t, "fire", s.Fire(2))
	for _, c := range []struct {
		st    Settings
		field string
	}{
		{Settings{Limit: 0, WindowMs: 1000, Policies: scenario.DefaultPolicies()}, "limit"},
		{Settings{Limit: 5, WindowMs: 0, Policies: scenario.DefaultPolicies()}, "windowMs"},
		{Settings{Limit: 5, WindowMs: 1000, Policies: []scenario.PolicySpec{{Name: "tumbling"}}}, "policies[0].name"},
		{Settings{Limit: 5, WindowMs: 1000}, "policies"},
		{Settings{Limit: 5, WindowMs: 1000, Policies: []scenario.PolicySpec{{Name: "sliding-buckets", Buckets: 7}}}, "policies[0].buckets"},
	} {
		before := s.Scenario()
		err := s.Apply(c.st)
		var errs scenario.Errors
		if !errors.As(err, &errs) || errs.Field(c.field) == "" {
			t.Errorf("%+v: %v, want an error naming %s", c.st, err, c.field)
		}
		if !reflect.DeepEqual(s.Scenario(), before) {
			t.Errorf("%+v changed the scenario", c.st)
		}
	}
}

func TestWatchersAreNotified(t *testing.T) {
	st := NewStore(nil)
	s, err := st.New(DefaultScenario())
	must(t, "new", err)
	ch1, stop1 := watch(t, st, s)
	ch2, stop2 := watch(t, st, s)
	defer stop2()
	update(t, st, s.ID(), "fire", func(s *Session) error { return s.Fire(1) })
	update(t, st, s.ID(), "fire", func(s *Session) error { return s.Fire(1) }) // folded into the pending notice
	for i, ch := range []<-chan struct{}{ch1, ch2} {
		select {
		case <-ch:
		default:
			t.Errorf("watcher %d not notified", i)
		}
	}
	if _, err := st.Update(context.Background(), s.ID(), func(s *Session) error { return s.Fire(0) }); err == nil {
		t.Fatal("fire 0 was accepted")
	}
	select {
	case <-ch2:
		t.Error("a refused action notified a watcher")
	default:
	}
	stop1()
	if n := st.Watchers(s.ID()); n != 1 {
		t.Errorf("%d watchers, want 1", n)
	}
	unwatched := st.Unwatched(s.ID())
	select {
	case <-unwatched:
		t.Error("Unwatched is closed while a watcher is left")
	default:
	}
	stop2() // returns once the store has let the watcher go
	select {
	case <-unwatched:
	default:
		t.Error("Unwatched is still open after the last watcher left")
	}
	select {
	case <-st.Unwatched(s.ID()):
	default:
		t.Error("Unwatched of a session nobody watches is not closed")
	}
}

// TestCheckIsWhatLoadAccepts: Check refuses exactly the scenarios a session
// refuses to load, so the load form can refuse them before redirecting.
func TestCheckIsWhatLoadAccepts(t *testing.T) {
	for _, n := range []int64{MaxRequests, MaxRequests + 1} {
		sc := DefaultScenario()
		sc.Requests = []scenario.Request{{At: 0, Cost: 1, Count: n}}
		checkErr := Check(sc)
		_, loadErr := NewSession("x", sc)
		if (checkErr == nil) != (loadErr == nil) {
			t.Errorf("%d requests: Check says %v, loading says %v", n, checkErr, loadErr)
		}
		if n > MaxRequests && (checkErr == nil || !strings.Contains(checkErr.Error(), "requests: the playground holds at most")) {
			t.Errorf("%d requests: Check says %v", n, checkErr)
		}
	}
}

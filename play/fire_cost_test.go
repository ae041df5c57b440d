package play

import (
	"context"
	"testing"

	"github.com/windowlab/playground/scenario"
)

// FireCost and a pattern's Cost set the cost and fire in one change; a
// refused cost changes nothing, and 0 keeps the session's cost.
func TestFireCostIsOneChange(t *testing.T) {
	st := NewStore(nil)
	opened, err := st.New(DefaultScenario())
	if err != nil {
		t.Fatal(err)
	}
	id := opened.ID()
	for i, c := range []struct {
		name       string
		do         func(s *Session) error
		ok         bool
		changes    uint64
		cost, last int64 // the session's cost after, and the last request's
	}{
		{"fire cost 3", func(s *Session) error { return s.FireCost(3, 1) }, true, 1, 3, 3},
		{"fire cost 0 keeps 3", func(s *Session) error { return s.FireCost(0, 2) }, true, 1, 3, 3},
		{"fire cost -1", func(s *Session) error { return s.FireCost(-1, 1) }, false, 0, 3, 3},
		{"fire cost too big", func(s *Session) error { return s.FireCost(scenario.MaxCost+1, 1) }, false, 0, 3, 3},
		{"pattern cost 5", func(s *Session) error { return s.FirePattern(Pattern{Kind: Steady, Count: 2, SpanMs: 1000, Cost: 5}) }, true, 1, 5, 5},
		{"pattern cost 0 keeps 5", func(s *Session) error { return s.FirePattern(Pattern{Kind: Steady, Count: 2, SpanMs: 1000}) }, true, 1, 5, 5},
		{"fire 0 requests", func(s *Session) error { return s.FireCost(7, 0) }, false, 0, 5, 5},
	} {
		before, err := st.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		_, err = st.Update(context.Background(), id, c.do)
		if (err == nil) != c.ok {
			t.Fatalf("step %d (%s): error %v, want ok = %v", i, c.name, err, c.ok)
		}
		after, err := st.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		v := after.View()
		if got := v.Version - before.Version(); got != c.changes {
			t.Errorf("step %d (%s): %d changes, want %d", i, c.name, got, c.changes)
		}
		if v.Cost != c.cost {
			t.Errorf("step %d (%s): cost = %d, want %d", i, c.name, v.Cost, c.cost)
		}
		reqs := v.Scenario.Requests
		if got := reqs[len(reqs)-1].Cost; got != c.last {
			t.Errorf("step %d (%s): last request's cost = %d, want %d", i, c.name, got, c.last)
		}
	}
}

// Each session has its own control token, and only that token controls it.
func TestControlToken(t *testing.T) {
	a, err := NewSession("a", DefaultScenario())
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewSession("b", DefaultScenario())
	if err != nil {
		t.Fatal(err)
	}
	if len(a.ControlToken()) < 26 || a.ControlToken() == b.ControlToken() {
		t.Fatalf("tokens %q and %q: want two different tokens of at least 128 bits", a.ControlToken(), b.ControlToken())
	}
	for i, c := range []struct {
		token string
		want  bool
	}{
		{a.ControlToken(), true},
		{b.ControlToken(), false},
		{"", false},
		{a.ControlToken()[:len(a.ControlToken())-1], false},
		{a.ID(), false},
	} {
		if got := a.Controls(c.token); got != c.want {
			t.Errorf("step %d: Controls(%q) = %v, want %v", i, c.token, got, c.want)
		}
	}
}

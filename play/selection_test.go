package play

import "testing"

// selectionStep is one action of a selection test and the request the
// selection must then point at.
type selectionStep struct {
	do     func(s *Session) error
	what   string
	wantAt int64 // time of the selected request
	wantIx int   // its expanded index
}

func runSelectionSteps(t *testing.T, s *Session, steps []selectionStep) {
	t.Helper()
	for i, st := range steps {
		if err := st.do(s); err != nil {
			t.Fatalf("step %d (%s): %v", i+1, st.what, err)
		}
		v := s.View()
		if v.Selected == nil {
			t.Fatalf("step %d (%s): nothing is selected, want the request at %d ms", i+1, st.what, st.wantAt)
		}
		if v.Selected.Index != st.wantIx || v.Selected.At != st.wantAt {
			t.Errorf("step %d (%s): selected = request %d at %d ms, want request %d at %d ms",
				i+1, st.what, v.Selected.Index, v.Selected.At, st.wantIx, st.wantAt)
		}
	}
}

// TestSelectionFollowsItsRequest fires after backward jumps: requests
// inserted before the selected one shift its index, so the selection stays
// on the same request; requests inserted after it (or at its instant, which
// go after it) leave it alone.
func TestSelectionFollowsItsRequest(t *testing.T) {
	s := newSession(t, DefaultScenario())
	for _, at := range []int64{1000, 5000, 9000} {
		must(t, "jump", s.Jump(at))
		must(t, "fire", s.Fire(1))
	}
	jumpFire := func(at, n int64) func(*Session) error {
		return func(s *Session) error {
			if err := s.Jump(at); err != nil {
				return err
			}
			return s.Fire(n)
		}
	}
	runSelectionSteps(t, s, []selectionStep{
		{func(s *Session) error { return s.Select(1) }, "select the request at 5 s", 5000, 1},
		{jumpFire(2000, 1), "fire one at 2 s, before it", 5000, 2},
		{jumpFire(0, 3), "fire a burst of 3 at 0 s, before it", 5000, 5},
		{jumpFire(5000, 2), "fire 2 at 5 s, its own instant (inserted after it)", 5000, 5},
		{jumpFire(7000, 1), "fire one at 7 s, after it", 5000, 5},
		{func(s *Session) error {
			if err := s.Jump(3000); err != nil {
				return err
			}
			return s.FirePattern(Pattern{Kind: Steady, Count: 4, SpanMs: 4000})
		}, "a pattern from 3 s to 7 s, two of it before 5 s", 5000, 7},
	})
	if got := s.View().Total; got != 14 {
		t.Errorf("total = %d, want 14", got)
	}
}

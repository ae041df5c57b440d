package scenario

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/windowlab/playground/policies"
)

// collect replays with hooks that keep every decision.
func collect(ds *[]Decision) Hooks {
	return Hooks{After: func(_ policies.Policy, d Decision) error {
		*ds = append(*ds, d)
		return nil
	}}
}

// TestContinueDecidesLikeOneReplay: the car park decided in three parts,
// entries appended between them, gives every lane the decisions of one
// replay, numbered the same.
func TestContinueDecidesLikeOneReplay(t *testing.T) {
	full := loadCarPark(t)
	for lane, spec := range full.Specs() {
		var want []Decision
		_, err := ReplayLane(context.Background(), full, lane, collect(&want))
		require.NoError(t, err)

		part := full
		part.Requests = nil
		r, err := StartLane(part, lane)
		require.NoError(t, err)
		var got []Decision
		for _, n := range []int{2, 2, len(full.Requests)} {
			part.Requests = full.Requests[:min(n+len(part.Requests), len(full.Requests))]
			require.NoError(t, r.Continue(context.Background(), part, collect(&got)), "lane %s", spec.Name)
		}
		assert.Equal(t, len(full.Requests), r.Entries(), "lane %s: entries decided", spec.Name)
		assert.Equal(t, want, got, "lane %s", spec.Name)
	}
}

func TestContinueRefusesWhatItCannotTakeBack(t *testing.T) {
	sc := loadCarPark(t)
	start := func(t *testing.T) *LaneReplay {
		t.Helper()
		r, err := StartLane(sc, 0)
		require.NoError(t, err)
		require.NoError(t, r.Continue(context.Background(), sc, Hooks{}))
		return r
	}
	steps := []struct {
		name   string
		change func(s Scenario) Scenario
	}{
		{"shorter", func(s Scenario) Scenario { s.Requests = s.Requests[:2]; return s }},
		{"last entry changed", func(s Scenario) Scenario {
			s.Requests = append([]Request(nil), s.Requests...)
			s.Requests[len(s.Requests)-1].Cost = 2
			return s
		}},
		{"limit changed", func(s Scenario) Scenario { s.Limit++; return s }},
		{"policy changed", func(s Scenario) Scenario {
			s.Policies = []PolicySpec{{Name: policies.GCRA}}
			return s
		}},
	}
	for _, step := range steps {
		r := start(t)
		assert.Error(t, r.Continue(context.Background(), step.change(sc), Hooks{}), "step %s: Continue = nil, want an error", step.name)
	}

	r, err := StartLane(sc, 0)
	require.NoError(t, err)
	boom := errors.New("boom")
	require.ErrorIs(t, r.Continue(context.Background(), sc, Hooks{After: func(policies.Policy, Decision) error { return boom }}), boom)
	assert.Error(t, r.Continue(context.Background(), sc, Hooks{}), "a replay stopped half way continued")

	_, err = StartLane(sc, len(sc.Specs()))
	assert.Error(t, err, "lane past the last one")
}

package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/windowlab/playground/policies"
)

func loadCarPark(t *testing.T) Scenario {
	t.Helper()
	f, err := os.Open("../lessons/scenarios/car-park.json")
	require.NoError(t, err)
	defer f.Close()
	s, err := Decode(f)
	require.NoError(t, err)
	return s
}

func resultFor(t *testing.T, res Result, label string) PolicyResult {
	t.Helper()
	for _, p := range res.Results {
		if p.Label == label {
			return p
		}
	}
	t.Fatalf("no result labelled %q", label)
	return PolicyResult{}
}

// The sliding-log table of the car-park lesson, outcome by outcome: the
// seed's own figures, not this package's output.
func TestCarParkSlidingLogMatchesTheLessonTable(t *testing.T) {
	res, err := Run(loadCarPark(t))
	require.NoError(t, err)
	log := resultFor(t, res, "sliding-log")
	want := []struct {
		at      int64
		allowed bool
	}{
		{0, true}, {5000, true}, {5000, true}, {15000, true}, {15000, true},
		{25000, false}, {35000, true}, {40000, true}, {40000, true}, {40000, false},
	}
	require.Len(t, log.Decisions, len(want))
	for i, w := range want {
		d := log.Decisions[i]
		assert.Equal(t, w.at, d.At, "step %d: at", i)
		assert.Equal(t, w.allowed, d.Allowed(), "step %d (%d ms): allowed = %v, want %v", i, d.At, d.Allowed(), w.allowed)
	}
	assert.Equal(t, 8, log.Admitted)
	assert.Equal(t, 2, log.Refused)
	// The lesson's table says 4 in the window at 35 s; with the half-open
	// window (5 s, 35 s] the two cars of 5 s have left, so the count is 2.
	assert.Equal(t, policies.Whole(2), log.Decisions[6].Estimate, "count before the 35 s car")
}

// Run must be nothing but a replay of the policies: check it against the
// policies package driven by hand, request by request.
func TestRunIsAReplayOfThePolicies(t *testing.T) {
	s := loadCarPark(t)
	s.Requests = append(s.Requests,
		Request{At: 41000, Key: "other", Cost: 3, Count: 2},
		Request{At: 42000, Key: "car-park", Cost: 6, Count: 1},
		Request{At: 50000, Key: "car-park", Cost: 1, Count: 1, Probe: true},
	)
	res, err := Run(s)
	require.NoError(t, err)
	require.Len(t, res.Results, len(s.Policies))
	for i, spec := range s.Policies {
		pol, err := policies.New(spec.Name, spec.Params(s))
		require.NoError(t, err)
		got := res.Results[i]
		step := 0
		for _, r := range s.Requests {
			for range r.Count {
				d := got.Decisions[step]
				key := policies.Key(policies.Mix32(r.KeyName()))
				if r.Probe {
					assert.True(t, d.Probe, "%s step %d: probe", got.Label, step)
					assert.Equal(t, pol.Peek(key, r.At), d.Estimate, "%s step %d: estimate", got.Label, step)
				} else {
					assert.Equal(t, pol.Decide(key, r.At, r.Cost), d.Detail, "%s step %d: decision", got.Label, step)
				}
				step++
			}
		}
		assert.Len(t, got.Decisions, step, got.Label)
	}
}

// A probe reports without deciding: removing the probes leaves every
// decision as it was.
func TestProbesDoNotChangeDecisions(t *testing.T) {
	base := loadCarPark(t)
	probed := base
	probed.Requests = nil
	for _, r := range base.Requests {
		probed.Requests = append(probed.Requests, Request{At: r.At, Key: r.Key, Cost: 1, Count: 2, Probe: true}, r)
	}
	a, err := Run(base)
	require.NoError(t, err)
	b, err := Run(probed)
	require.NoError(t, err)
	for i := range a.Results {
		var kept []Decision
		for _, d := range b.Results[i].Decisions {
			if !d.Probe {
				kept = append(kept, d)
			}
		}
		require.Len(t, kept, len(a.Results[i].Decisions))
		for j := range kept {
			assert.Equal(t, a.Results[i].Decisions[j].Detail, kept[j].Detail, "%s step %d", a.Results[i].Label, j)
		}
	}
}

func TestJSONContract(t *testing.T) {
	s, err := Parse([]byte(`{"limit": 2, "windowMs": 1000, "policy": "fixed-window",
		"requests": [{"at": 0, "count": 3}, {"at": 100, "cost": 3}, {"at": 200, "probe": true}]}`))
	require.NoError(t, err)
	res, err := Run(s)
	require.NoError(t, err)
	out, err := json.Marshal(res)
	require.NoError(t, err)

	var got struct {
		Results []struct {
			Policy    string
			Decisions []map[string]any
		}
	}
	require.NoError(t, json.Unmarshal(out, &got))
	require.Len(t, got.Results, 1)
	assert.Equal(t, "fixed-window", got.Results[0].Policy)
	ds := got.Results[0].Decisions
	require.Len(t, ds, 5, "count expands into one decision each, the probe keeps its place")
	assert.Equal(t, true, ds[0]["allowed"])
	assert.Equal(t, 0.0, ds[0]["retryAfterMs"])
	assert.Equal(t, "default", ds[0]["key"])
	assert.Equal(t, false, ds[2]["allowed"])
	assert.Equal(t, 1000.0, ds[2]["retryAfterMs"], "the rest of the window")
	assert.Equal(t, 2.0, ds[2]["estimate"])
	assert.Contains(t, ds[3], "retryAfterMs")
	assert.Nil(t, ds[3]["retryAfterMs"], "cost 3 over limit 2 can never pass: null")
	assert.Equal(t, true, ds[4]["probe"])
	assert.NotContains(t, ds[4], "allowed", "a probe decides nothing")
	assert.Equal(t, 2.0, ds[4]["estimate"])
}

func TestEmptyRequestListAnswersAnEmptyArray(t *testing.T) {
	s, err := Parse([]byte(`{"limit": 2, "windowMs": 1000, "policy": "gcra", "requests": []}`))
	require.NoError(t, err)
	res, err := Run(s)
	require.NoError(t, err)
	out, err := json.Marshal(res)
	require.NoError(t, err)
	assert.Contains(t, string(out), `"decisions":[]`)
	assert.NotContains(t, string(out), "null")
}

func TestReplayStopsWhenItsContextIsDone(t *testing.T) {
	s := Scenario{Limit: 5, WindowMs: 1000, Requests: []Request{{At: 0, Cost: 1, Count: MaxRequests}}}
	ctx, cancel := context.WithCancel(context.Background())
	seen := 0
	_, err := ReplayLane(ctx, s, 0, Hooks{After: func(_ policies.Policy, d Decision) error {
		seen++
		if d.Index == 10 {
			cancel()
		}
		return nil
	}})
	require.ErrorIs(t, err, context.Canceled)
	assert.Less(t, seen, MaxRequests, "the replay went on after its context was cancelled")
	assert.LessOrEqual(t, seen, checkEvery+1, "the replay looks at its context every %d decisions", checkEvery)
}

func TestReplayHooksSeeEachDecisionBeforeAndAfter(t *testing.T) {
	s := Scenario{Limit: 1, WindowMs: 1000, Policies: []PolicySpec{{Name: policies.FixedWindow}},
		Requests: []Request{{At: 0, Cost: 1, Count: 2}, {At: 500, Probe: true, Cost: 1, Count: 1}}}
	var log []string
	_, err := ReplayLane(context.Background(), s, 0, Hooks{
		Before: func(pol policies.Policy, d Decision) {
			log = append(log, fmt.Sprintf("before %d: estimate %s", d.Index, pol.Peek(KeyOf(d.Key), d.At)))
		},
		After: func(_ policies.Policy, d Decision) error {
			log = append(log, fmt.Sprintf("after %d: allowed %v", d.Index, d.Allowed()))
			return nil
		},
	})
	require.NoError(t, err)
	assert.Equal(t, []string{
		"before 0: estimate 0", "after 0: allowed true",
		"before 1: estimate 1", "after 1: allowed false",
		"before 2: estimate 1", "after 2: allowed false",
	}, log)
}

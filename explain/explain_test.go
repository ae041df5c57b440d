package explain

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/dunglas/httpsfv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

func carPark(t *testing.T) scenario.Scenario {
	t.Helper()
	data, err := os.ReadFile("../lessons/scenarios/car-park.json")
	require.NoError(t, err)
	s, err := scenario.Parse(data)
	require.NoError(t, err)
	return s
}

func TestTableShowsEveryPolicySideBySide(t *testing.T) {
	res, err := scenario.Run(carPark(t))
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, Table(&buf, res))
	lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	require.Len(t, lines, 1+10+1, "header, ten cars, totals")
	for _, p := range res.Results {
		assert.Contains(t, lines[0], p.Label)
	}
	assert.Contains(t, lines[6], "REFUSED", "the 25 s car is refused by the log")
	assert.Contains(t, lines[6], "retry after 5 s", "the log frees a space when the 0 s car leaves at 30 s")
	assert.Contains(t, lines[11], "8 of 10")
}

func TestSecs(t *testing.T) {
	for ms, want := range map[int64]string{0: "0 s", 250: "0.25 s", 1: "0.001 s", 2001: "2.001 s", 25_000: "25 s", 30_500: "30.5 s", -1500: "-1.5 s"} {
		if got := secs(ms); got != want {
			t.Errorf("secs(%d) = %q, want %q", ms, got, want)
		}
	}
}

func TestOutcomeWords(t *testing.T) {
	for _, tt := range []struct {
		d    policies.Decision
		want string
	}{
		{policies.Decision{Allowed: true}, "admitted"},
		{policies.Decision{Allowed: true, DelayMs: 2600}, "admitted, waits 2.6 s"},
		{policies.Decision{RetryAfterMs: 5000}, "refused, retry after 5 s"},
		{policies.Decision{RetryAfterMs: 2001}, "refused, retry after 2.001 s"},
		{policies.Decision{Never: true}, "refused, can never pass"},
	} {
		if got := Outcome(tt.d); got != tt.want {
			t.Errorf("Outcome(%+v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// decide runs the requests through one policy and returns the last
// decision, as the scenario's replay gives it.
func decide(t *testing.T, s scenario.Scenario) (Policy, scenario.Decision) {
	t.Helper()
	res, err := scenario.Run(s)
	require.NoError(t, err)
	p := res.Results[0]
	return ForResult(p), p.Decisions[len(p.Decisions)-1]
}

func TestWorkingKeepsGCRATheoreticalArrivalTimeExact(t *testing.T) {
	// Limit 3 per second emits a permit every 1000/3 ms: after two requests
	// at 0 the TAT is 2000/3 ms, which no whole millisecond can show.
	pol, d := decide(t, scenario.Scenario{Limit: 3, WindowMs: 1000, Policies: []scenario.PolicySpec{{Name: policies.GCRA}},
		Requests: []scenario.Request{{At: 0, Cost: 1, Count: 3}}})
	got := Working(pol, d)
	if !strings.Contains(got, "TAT 2000/3 ≈ 666.67 ms") {
		t.Errorf("Working = %q, want the TAT as the exact fraction 2000/3 ms", got)
	}
}

func TestWorkingAndCellOnTheCarPark(t *testing.T) {
	s := carPark(t)
	s.Policies = []scenario.PolicySpec{{Name: policies.SlidingLog}}
	res, err := scenario.Run(s)
	require.NoError(t, err)
	p := res.Results[0]
	d := p.Decisions[5] // the car at 25 s, with five already in the look-back
	assert.Equal(t, "5 in (-5 s, 25 s]; 5 + 1 against 5", Working(ForResult(p), d))
	assert.Equal(t, "REFUSED (5, retry after 5 s)", cell(d))
	assert.Equal(t, "admitted (0)", cell(p.Decisions[0]))
}

func TestHeadersOfARefusal(t *testing.T) {
	s := carPark(t)
	s.Policies = []scenario.PolicySpec{{Name: policies.SlidingLog}}
	res, err := Run(context.Background(), s)
	require.NoError(t, err)
	// The car at 25 s, refused until the 0 s car leaves at 30 s.
	got := HeaderLines(res.Results[0].Decisions[5].Headers)
	assert.Equal(t, "HTTP/1.1 429 Too Many Requests\nRetry-After: 5\nRateLimit-Policy: \"sliding-log\";q=5;w=30\nRateLimit: \"sliding-log\";r=0;t=5", got)
}

// RateLimit-Policy tells a bucket's capacity and the rate it refills at:
// burst 10 at 5 per 30 s is 10 per 60 s, not the limit's 5 per 30 s. The
// fields are read back with a structured-field parser.
func TestRateLimitPolicyTellsTheCapacityAndRefill(t *testing.T) {
	for _, tt := range []struct {
		spec scenario.PolicySpec
		q, w int64
	}{
		{scenario.PolicySpec{Name: policies.TokenBucket, Burst: 10}, 10, 60},
		{scenario.PolicySpec{Name: policies.GCRA, Burst: 10}, 10, 60},
		{scenario.PolicySpec{Name: policies.TokenBucket, Burst: 2}, 2, 12},
		{scenario.PolicySpec{Name: policies.TokenBucket, Burst: 7}, 7, 42},
		{scenario.PolicySpec{Name: policies.TokenBucket}, 5, 30},
		{scenario.PolicySpec{Name: policies.FixedWindow}, 5, 30},
		{scenario.PolicySpec{Name: policies.SlidingBuckets, Buckets: 6}, 5, 30},
	} {
		s := scenario.Scenario{Limit: 5, WindowMs: 30_000, Policies: []scenario.PolicySpec{tt.spec}, Requests: []scenario.Request{{At: 1000, Cost: 1, Count: 1}}}
		res, err := Run(context.Background(), s)
		require.NoError(t, err)
		hs := res.Results[0].Decisions[0].Headers
		var field string
		for _, h := range hs {
			if h.Name == "RateLimit-Policy" {
				field = h.Value
			}
		}
		list, err := httpsfv.UnmarshalList([]string{field})
		require.NoError(t, err, "%s: %q", tt.spec.Name, field)
		require.Len(t, list, 1, "%s: %q", tt.spec.Name, field)
		item := list[0].(httpsfv.Item)
		assert.Equal(t, tt.spec.Name, item.Value, "%s: the policy's name", tt.spec.Name)
		q, _ := item.Params.Get("q")
		w, _ := item.Params.Get("w")
		assert.Equal(t, tt.q, q, "%s (burst %d): q in %q", tt.spec.Name, tt.spec.Burst, field)
		assert.Equal(t, tt.w, w, "%s (burst %d): w in %q", tt.spec.Name, tt.spec.Burst, field)
	}
}

func TestWeightedIsExact(t *testing.T) {
	for _, tt := range []struct {
		count  int64
		weight policies.Fraction
		want   string
	}{
		{5, policies.Fraction{Num: 999, Den: 1000}, "5 × 999/1000"},
		{5, policies.Fraction{Num: 20_000, Den: 30_000}, "5 × 2/3"},
		{4, policies.Fraction{Num: 1000, Den: 1000}, "4 × 1"},
		{3, policies.Fraction{Num: 0, Den: 1000}, "3 × 0"},
	} {
		if got := Weighted(tt.count, tt.weight); got != tt.want {
			t.Errorf("Weighted(%d, %v) = %q, want %q", tt.count, tt.weight, got, tt.want)
		}
	}
}

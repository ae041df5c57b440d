package play

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// savedStep is one action on a session before it is saved.
type savedStep struct {
	what string
	do   func(s *Session) error
}

// built runs steps on a new session holding the default scenario, as a
// visitor would, and views it after each step so that it keeps a replay
// (which the restored session does not have).
func built(t *testing.T, steps []savedStep) *Session {
	t.Helper()
	s := newSession(t, DefaultScenario())
	s.lastUsed = time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
	s.at = s.lastUsed
	for i, st := range steps {
		if err := st.do(s); err != nil {
			t.Fatalf("step %d (%s): %v", i+1, st.what, err)
		}
		_ = s.View()
	}
	return s
}

// throughJSON saves s, encodes and decodes the snapshot, and restores it,
// reading its clock at the instant s does, as a store would hand it out.
func throughJSON(t *testing.T, s *Session) *Session {
	t.Helper()
	data, err := json.Marshal(s.Saved())
	require.NoError(t, err)
	var back Saved
	require.NoError(t, json.Unmarshal(data, &back))
	r, err := Restore(back)
	require.NoError(t, err, "restoring %s", data)
	return r.At(s.at)
}

var (
	fire = func(n int64) savedStep {
		return savedStep{fmt.Sprintf("fire %d", n), func(s *Session) error { return s.Fire(n) }}
	}
	jump = func(at int64) savedStep {
		return savedStep{fmt.Sprintf("jump to %d ms", at), func(s *Session) error { return s.Jump(at) }}
	}
	stepMs = func(ms int64) savedStep {
		return savedStep{fmt.Sprintf("step %d ms", ms), func(s *Session) error { return s.Step(ms) }}
	}
	selectReq = func(i int) savedStep {
		return savedStep{fmt.Sprintf("select %d", i), func(s *Session) error { return s.Select(i) }}
	}
	poisson = savedStep{"poisson pattern", func(s *Session) error {
		return s.FirePattern(Pattern{Kind: Poisson, Count: 40, SpanMs: 60_000})
	}}
)

// TestRestoredSessionShowsAndActsTheSame saves sessions built through many
// kinds of action, restores them through JSON, and checks that the restored
// session shows the same View, saves the same snapshot, and gives the same
// View after each of several next actions.
func TestRestoredSessionShowsAndActsTheSame(t *testing.T) {
	tests := []struct {
		name  string
		steps []savedStep
	}{
		{"new", nil},
		{"fired at the clock", []savedStep{fire(1), stepMs(5000), fire(3), stepMs(12_000), fire(2)}},
		{"patterns seeded by their count", []savedStep{poisson, stepMs(1000), poisson}},
		{"clock jumped back before the last request", []savedStep{poisson, jump(4000), fire(2), selectReq(3)}},
		{"clients, cost, settings and speed", []savedStep{
			fire(2),
			{"add client bob", func(s *Session) error { return s.SelectClient("bob") }},
			{"cost 3", func(s *Session) error { return s.SetCost(3) }},
			stepMs(2000), fire(4),
			{"rename bob", func(s *Session) error { return s.RenameClient("robert") }},
			{"settings", func(s *Session) error {
				return s.ApplyForm(Form{Limit: 7, WindowMs: 20_000, Checked: []Kind{
					{Name: policies.FixedWindow}, {Name: policies.SlidingBuckets}, {Name: policies.TokenBucket}, {Name: policies.GCRA},
				}, Numbers: map[string]Entered{policies.BucketsOptionName: {4, true}, policies.BurstOptionName: {9, true}}})
			}},
			{"select the first client", func(s *Session) error { return s.SelectClientAt(0) }},
			{"speed 16×", func(s *Session) error { return s.SetSpeed(FastestSpeed) }},
			selectReq(4),
		}},
		{"playing, part of a millisecond carried", []savedStep{
			fire(1),
			{"play", func(s *Session) error { return s.Play() }},
			{"tick 1.3 s and 0.4 ms", func(s *Session) error {
				tick(s, 1300*time.Millisecond+400*time.Microsecond)
				return nil
			}},
		}},
		{"reset after requests", []savedStep{poisson, {"reset", func(s *Session) error { return s.Reset() }}, fire(1)}},
	}
	next := []savedStep{
		fire(2),
		poisson,
		jump(1500),
		fire(1),
		{"tick 2.7 ms", func(s *Session) error { tick(s, 2700*time.Microsecond); return nil }},
		{"select next", func(s *Session) error { return s.SelectStep(1) }},
		{"rename the client", func(s *Session) error { return s.RenameClient("carol") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := built(t, tt.steps)
			r := throughJSON(t, s)
			require.Equal(t, s.Saved(), r.Saved(), "the restored session saves a different snapshot")
			require.Equal(t, s.View(), r.View(), "the restored session shows a different view")
			for i, st := range next {
				errS, errR := st.do(s), st.do(r)
				require.Equal(t, errS, errR, "next step %d (%s): the two sessions answer differently", i+1, st.what)
				require.Equal(t, s.View(), r.View(), "next step %d (%s): the views differ", i+1, st.what)
			}
		})
	}
}

// TestRestoredSessionKeepsItsControl checks that the restored session obeys
// the original's control token although it does not know it.
func TestRestoredSessionKeepsItsControl(t *testing.T) {
	s := newSession(t, DefaultScenario())
	r := throughJSON(t, s)
	tests := []struct {
		token string
		want  bool
	}{
		{s.ControlToken(), true},
		{s.ControlToken() + "x", false},
		{"", false},
	}
	for i, tt := range tests {
		if got := r.Controls(tt.token); got != tt.want {
			t.Errorf("step %d: restored Controls(%q) = %v, want %v", i+1, tt.token, got, tt.want)
		}
	}
	if got := r.ControlToken(); got != "" {
		t.Errorf("restored ControlToken() = %q, want \"\": only the hash is saved", got)
	}
	if strings.Contains(fmt.Sprint(s.Saved()), s.ControlToken()) {
		t.Error("the snapshot holds the control token itself")
	}
}

// TestRestoreRefusesBrokenSnapshots breaks one field of a good snapshot at
// a time and checks that Restore refuses it naming that field.
func TestRestoreRefusesBrokenSnapshots(t *testing.T) {
	good := built(t, []savedStep{fire(2), stepMs(1000), fire(1), selectReq(1)}).Saved()
	if _, err := Restore(good); err != nil {
		t.Fatalf("the good snapshot: %v", err)
	}
	tests := []struct {
		field string
		brk   func(sv *Saved)
	}{
		{"format", func(sv *Saved) { sv.Format = 1 }}, // the layout before clocks were stored read at a wall instant
		{"format", func(sv *Saved) { sv.Format = SavedFormat + 1 }},
		{"id", func(sv *Saved) { sv.ID = "" }},
		{"id", func(sv *Saved) { sv.ID = strings.Repeat("x", maxIDLen+1) }},
		{"controlHash", func(sv *Saved) { sv.ControlHash = sv.ControlHash[:31] }},
		{"owner", func(sv *Saved) { sv.Owner = strings.Repeat("1", maxOwnerLen+1) }},
		{"scenario.requests[1].at", func(sv *Saved) { sv.Scenario.Requests[1].At = -1 }},
		{"scenario.limit", func(sv *Saved) { sv.Scenario.Limit = 0 }},
		{"scenario.policies", func(sv *Saved) { sv.Scenario.Policies = nil }},
		{"scenario.requests", func(sv *Saved) {
			sv.Scenario.Requests = append(sv.Scenario.Requests, scenario.Request{At: 5000, Cost: 1, Count: MaxRequests})
		}},
		{"clients", func(sv *Saved) { sv.Clients = nil }},
		{"clients[1]", func(sv *Saved) { sv.Clients = append(sv.Clients, sv.Clients[0]) }},
		{"clients[1]", func(sv *Saved) { sv.Clients = append(sv.Clients, strings.Repeat("k", scenario.MaxKeyLen+1)) }},
		{"client", func(sv *Saved) { sv.Client = "nobody" }},
		{"scenario.requests[0].key", func(sv *Saved) { sv.Scenario.Requests[0].Key = "stranger" }},
		{"cost", func(sv *Saved) { sv.Cost = 0 }},
		{"selected", func(sv *Saved) { sv.Selected = 3 }},
		{"selected", func(sv *Saved) { sv.Selected = -2 }},
		{"patterns", func(sv *Saved) { sv.Patterns = -1 }},
		{"clock.nowMs", func(sv *Saved) { sv.Clock.NowMs = MaxClock + 1 }},
		{"clock.speed", func(sv *Saved) { sv.Clock.Speed = 3 }},
	}
	for i, tt := range tests {
		sv := good
		sv.Scenario.Requests = append([]scenario.Request(nil), good.Scenario.Requests...)
		sv.Clients = append([]string(nil), good.Clients...)
		tt.brk(&sv)
		s, err := Restore(sv)
		var errs scenario.Errors
		if !errors.As(err, &errs) || errs.Field(tt.field) == "" {
			t.Errorf("step %d: Restore = %v, want an error naming %s", i+1, err, tt.field)
		}
		if s != nil {
			t.Errorf("step %d: Restore returned a session along with its error", i+1)
		}
	}
}

// TestSavedSizeBound builds the largest snapshot a session can produce
// (every bound of Saved at its maximum, every character of every name one
// that JSON escapes to six bytes) and checks that it restores and that
// its encoding stays within MaxSavedBytes; the default session's is small.
func TestSavedSizeBound(t *testing.T) {
	fresh, err := json.Marshal(newSession(t, DefaultScenario()).Saved())
	require.NoError(t, err)
	if len(fresh) > 1000 {
		t.Errorf("a new session's snapshot is %d bytes, want at most 1000", len(fresh))
	}

	// Names of MaxKeyLen escaped characters, told apart by where the
	// one different character sits (their hashes must not collide).
	var names []string
	for i := range scenario.MaxKeys {
		b := []byte(strings.Repeat("<", scenario.MaxKeyLen))
		b[i%scenario.MaxKeyLen] = ">&"[i/scenario.MaxKeyLen]
		names = append(names, string(b))
	}
	sc := scenario.Scenario{Limit: scenario.MaxLimit, WindowMs: scenario.MaxWindowMs}
	for range scenario.MaxPolicies {
		sc.Policies = append(sc.Policies, scenario.PolicySpec{
			Name: policies.SlidingCounter, Arithmetic: policies.Floor, Limit: scenario.MaxLimit, WindowMs: scenario.MaxWindowMs,
		})
	}
	for i := range MaxRequests {
		sc.Requests = append(sc.Requests, scenario.Request{
			At: policies.MaxTime, Key: names[i%len(names)], Cost: scenario.MaxCost, Count: 1, Probe: true,
		})
	}
	sv := Saved{
		Format: SavedFormat, ID: strings.Repeat("<", maxIDLen), ControlHash: make([]byte, 32),
		Owner: strings.Repeat("<", maxOwnerLen), LastUsed: time.Date(2026, 12, 31, 23, 59, 59, 999_999_999, time.FixedZone("", -11*3600)),
		Version: ^uint64(0), ScenarioRev: ^uint64(0), Scenario: sc, Clients: names, Client: names[0],
		Cost: scenario.MaxCost, Selected: MaxRequests - 1, Patterns: 1<<63 - 1,
		Clock: SavedClock{NowMs: MaxClock, Playing: true, Speed: FastestSpeed, Wall: time.Date(2026, 12, 31, 23, 59, 59, 999_999_999, time.FixedZone("", -11*3600))},
	}
	if _, err := Restore(sv); err != nil {
		t.Fatalf("the largest snapshot is refused: %v", err)
	}
	data, err := json.Marshal(sv)
	require.NoError(t, err)
	t.Logf("largest snapshot: %d bytes; a new session's: %d bytes", len(data), len(fresh))
	if len(data) > MaxSavedBytes {
		t.Errorf("the largest snapshot is %d bytes, over MaxSavedBytes (%d)", len(data), MaxSavedBytes)
	}
}

// FuzzRestore checks that whatever a store hands back, Restore refuses it
// or returns a session that saves the same snapshot again and can be viewed.
func FuzzRestore(f *testing.F) {
	s, err := NewSession("fuzz", DefaultScenario())
	if err != nil {
		f.Fatal(err)
	}
	for _, st := range []func() error{func() error { return s.Fire(2) }, func() error { return s.Step(4000) }, func() error { return s.Fire(1) }} {
		if err := st(); err != nil {
			f.Fatal(err)
		}
	}
	good, err := json.Marshal(s.Saved())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"format":1}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var sv Saved
		if json.Unmarshal(data, &sv) != nil {
			return
		}
		r, err := Restore(sv)
		if err != nil {
			return
		}
		again, err := Restore(r.Saved())
		if err != nil {
			t.Fatalf("a restored session's own snapshot is refused: %v", err)
		}
		require.Equal(t, r.Saved(), again.Saved())
		_ = r.View()
	})
}

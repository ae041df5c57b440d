package play

import (
	"errors"
	"reflect"
	"testing"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

var (
	kFixed  = Kind{Name: policies.FixedWindow}
	kLog    = Kind{Name: policies.SlidingLog}
	kFloor  = Kind{Name: policies.SlidingCounter, Choice: string(policies.Floor)}
	kExact  = Kind{Name: policies.SlidingCounter, Choice: string(policies.Exact)}
	kBucket = Kind{Name: policies.SlidingBuckets}
	kToken  = Kind{Name: policies.TokenBucket}
	kGCRA   = Kind{Name: policies.GCRA}
)

// loadedLanes is a scenario as a shared link or pasted JSON may hold it:
// lanes of the same kind that differ, and lanes with their own limit or
// window, none of which the form's boxes can express.
func loadedLanes() scenario.Scenario {
	return scenario.Scenario{Limit: 5, WindowMs: 30_000, Policies: []scenario.PolicySpec{
		{Name: policies.TokenBucket, Burst: 10, WindowMs: 60_000},
		{Name: policies.TokenBucket, Burst: 20},
		{Name: policies.SlidingCounter, WindowMs: 10_000}, // floor, by default
		{Name: policies.SlidingCounter, Arithmetic: policies.Floor},
		{Name: policies.SlidingBuckets, Buckets: 3},
		{Name: policies.SlidingBuckets, Buckets: 5, Limit: 4},
	}, Requests: []scenario.Request{{At: 0, Cost: 1, Count: 6}}}
}

// formStep applies one form and says what the session then holds.
type formStep struct {
	what  string
	form  Form
	field string   // a refused form names it; the session is unchanged
	limit int64    // the shared limit afterwards
	lanes []string // the lanes' labels afterwards
}

func runFormSteps(t *testing.T, s *Session, steps []formStep) {
	t.Helper()
	for i, st := range steps {
		before := s.Scenario()
		err := s.ApplyForm(st.form)
		if st.field != "" {
			var errs scenario.Errors
			if !errors.As(err, &errs) || errs.Field(st.field) == "" {
				t.Errorf("step %d (%s): error = %v, want one naming %s", i+1, st.what, err, st.field)
			}
			if !reflect.DeepEqual(s.Scenario(), before) {
				t.Errorf("step %d (%s): a refused form changed the scenario", i+1, st.what)
			}
			continue
		}
		if err != nil {
			t.Fatalf("step %d (%s): %v", i+1, st.what, err)
		}
		sc := s.Scenario()
		var got []string
		for _, p := range sc.Specs() {
			got = append(got, p.Label(sc))
		}
		if sc.Limit != st.limit {
			t.Errorf("step %d (%s): limit = %d, want %d", i+1, st.what, sc.Limit, st.limit)
		}
		if !reflect.DeepEqual(got, st.lanes) {
			t.Errorf("step %d (%s): lanes = %q, want %q", i+1, st.what, got, st.lanes)
		}
	}
}

func TestApplyFormKeepsLanes(t *testing.T) {
	s := newSession(t, loadedLanes())
	asLoaded := []string{
		"token-bucket (burst 10) window 60 s",
		"token-bucket (burst 20)",
		"sliding-counter (floor) window 10 s",
		"sliding-counter (floor)",
		"sliding-buckets (k=3)",
		"sliding-buckets (k=5) limit 4",
	}
	shown := []Kind{kToken, kFloor, kBucket}
	runFormSteps(t, s, []formStep{
		{what: "change only the shared limit", form: Form{Limit: 7, WindowMs: 30_000, Checked: shown, Numbers: map[string]Entered{policies.BucketsOptionName: {3, false}, policies.BurstOptionName: {10, false}}},
			limit: 7, lanes: asLoaded},
		{what: "a window of 0", form: Form{Limit: 7, WindowMs: 0, Checked: shown, Numbers: map[string]Entered{policies.BucketsOptionName: {3, false}, policies.BurstOptionName: {10, false}}}, field: "windowMs"},
		{what: "a changed k that does not divide the window", form: Form{Limit: 7, WindowMs: 30_000, Checked: shown, Numbers: map[string]Entered{policies.BucketsOptionName: {7, true}}}, field: "buckets"},
		{what: "no box checked", form: Form{Limit: 7, WindowMs: 30_000}, field: "policies"},
		{what: "change k", form: Form{Limit: 7, WindowMs: 30_000, Checked: shown, Numbers: map[string]Entered{policies.BucketsOptionName: {6, true}, policies.BurstOptionName: {10, false}}},
			limit: 7, lanes: []string{
				"token-bucket (burst 10) window 60 s",
				"token-bucket (burst 20)",
				"sliding-counter (floor) window 10 s",
				"sliding-counter (floor)",
				"sliding-buckets (k=6)",
				"sliding-buckets (k=6) limit 4",
			}},
		{what: "uncheck sliding-buckets, check exact and gcra", form: Form{Limit: 7, WindowMs: 30_000, Checked: []Kind{kToken, kFloor, kExact, kGCRA}, Numbers: map[string]Entered{policies.BucketsOptionName: {6, false}, policies.BurstOptionName: {10, false}}},
			limit: 7, lanes: []string{
				"token-bucket (burst 10) window 60 s",
				"token-bucket (burst 20)",
				"sliding-counter (floor) window 10 s",
				"sliding-counter (floor)",
				"sliding-counter (exact)",
				"gcra (burst 10)",
			}},
		{what: "change the burst", form: Form{Limit: 7, WindowMs: 30_000, Checked: []Kind{kToken, kFloor, kExact, kGCRA}, Numbers: map[string]Entered{policies.BurstOptionName: {2, true}}},
			limit: 7, lanes: []string{
				"token-bucket (burst 2) window 60 s",
				"token-bucket (burst 2)",
				"sliding-counter (floor) window 10 s",
				"sliding-counter (floor)",
				"sliding-counter (exact)",
				"gcra (burst 2)",
			}},
		{what: "check leaky-bucket with a burst and a delay", form: Form{Limit: 7, WindowMs: 30_000, Checked: []Kind{kGCRA, {Name: policies.LeakyBucket}}, Numbers: map[string]Entered{policies.BurstOptionName: {4, true}, policies.DelayOptionName: {2, true}}},
			limit: 7, lanes: []string{"gcra (burst 4)", "leaky-bucket (burst 4, delay 2)"}},
		{what: "change only the delay", form: Form{Limit: 7, WindowMs: 30_000, Checked: []Kind{kGCRA, {Name: policies.LeakyBucket}}, Numbers: map[string]Entered{policies.BurstOptionName: {4, false}, policies.DelayOptionName: {4, true}}},
			limit: 7, lanes: []string{"gcra (burst 4)", "leaky-bucket (burst 4, delay 4)"}},
		{what: "a delay above the burst", form: Form{Limit: 7, WindowMs: 30_000, Checked: []Kind{{Name: policies.LeakyBucket}}, Numbers: map[string]Entered{policies.BurstOptionName: {4, false}, policies.DelayOptionName: {5, true}}}, field: "policies[0].delay"},
		{what: "only fixed-window and sliding-log", form: Form{Limit: 7, WindowMs: 20_000, Checked: []Kind{kLog, kFixed}},
			limit: 7, lanes: []string{"sliding-log", "fixed-window"}},
	})
}

func TestOverridesNameEveryOwnSetting(t *testing.T) {
	for _, c := range []struct {
		what string
		sc   scenario.Scenario
		want []string
	}{
		{"the default lanes", DefaultScenario(), nil},
		{"a loaded scenario", loadedLanes(), []string{
			"token-bucket (burst 10) keeps its own window 60 s",
			"sliding-counter (floor) keeps its own window 10 s",
			"sliding-buckets (k=5) keeps its own limit 4",
			"sliding-buckets (k=3), sliding-buckets (k=5) limit 4 differ in k: a changed k applies to all 2 " + policies.JoinNames(policies.Taking(policies.BucketsOptionName)) + " lanes",
			"token-bucket (burst 10) window 60 s, token-bucket (burst 20) differ in burst: a changed burst applies to all 2 " + policies.JoinNames(policies.Taking(policies.BurstOptionName)) + " lanes",
		}},
		{"limit and window", scenario.Scenario{Limit: 5, WindowMs: 1000, Policies: []scenario.PolicySpec{{Name: policies.GCRA, Limit: 2, WindowMs: 500}}},
			[]string{"gcra keeps its own limit 2 and window 500 ms"}},
	} {
		if got := Overrides(c.sc); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: Overrides = %q, want %q", c.what, got, c.want)
		}
	}
}

// TestApplyFormNamesAnIndivisibleK: a k that does not divide the window is
// refused on the k field, in the form's words, with a k that works.
func TestApplyFormNamesAnIndivisibleK(t *testing.T) {
	s := newSession(t, DefaultScenario())
	before := s.Scenario()
	err := s.ApplyForm(Form{Limit: 5, WindowMs: 30_000, Checked: []Kind{{Name: policies.SlidingBuckets}}, Numbers: map[string]Entered{policies.BucketsOptionName: {7, true}}})
	var errs scenario.Errors
	if !errors.As(err, &errs) || len(errs) != 1 || errs[0].Field != "buckets" ||
		errs[0].Reason != "for sliding-buckets, 7 does not split the 30 s window into equal whole milliseconds; try 6 or 8" {
		t.Fatalf("k = 7 over 30 s: %v", err)
	}
	if !reflect.DeepEqual(s.Scenario(), before) {
		t.Error("the refused form changed the scenario")
	}
}

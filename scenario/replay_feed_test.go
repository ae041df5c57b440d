package scenario

import (
	"context"
	"testing"

	"github.com/windowlab/playground/policies"
)

// Feeding a lane its requests in two chunks decides them as Continue does
// the same requests written as a scenario, and a fed replay refuses to
// continue a scenario afterwards.
func TestReplayFeedDecidesAsContinue(t *testing.T) {
	s, err := Parse([]byte(`{"limit": 3, "windowMs": 1000, "policies": ["fixed-window", "token-bucket", "sliding-log"],
		"requests": [{"at": 0, "key": "a", "count": 4}, {"at": 400, "key": "b", "count": 2}, {"at": 990, "key": "a", "count": 2}, {"at": 1001, "key": "a", "count": 3}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var keyed []KeyedRequest
	for _, r := range s.Requests {
		for range r.Count {
			keyed = append(keyed, KeyedRequest{At: r.At, Key: KeyOf(r.KeyName()), Cost: r.Cost})
		}
	}
	for lane := range s.Policies {
		var want, got []bool
		record := func(out *[]bool) Hooks {
			return Hooks{After: func(_ policies.Policy, d Decision) error {
				*out = append(*out, d.Detail.Allowed)
				return nil
			}}
		}
		if _, err := ReplayLane(context.Background(), s, lane, record(&want)); err != nil {
			t.Fatal(err)
		}
		r, err := StartLane(s, lane)
		if err != nil {
			t.Fatal(err)
		}
		for _, chunk := range [][]KeyedRequest{keyed[:5], keyed[5:]} {
			if err := r.Feed(context.Background(), chunk, record(&got)); err != nil {
				t.Fatal(err)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("lane %d: %d decisions fed, want %d", lane, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("lane %d, request %d: allowed = %v fed, %v continued", lane, i, got[i], want[i])
			}
		}
		if err := r.Continue(context.Background(), s, Hooks{}); err == nil {
			t.Errorf("lane %d: Continue after Feed succeeded, want an error", lane)
		}
		checkVerdicts(t, s, lane, keyed, want)
	}
}

// checkVerdicts feeds a fresh replay of lane through FeedVerdicts, in two
// chunks, and checks each verdict against want (Continue's decisions).
func checkVerdicts(t *testing.T, s Scenario, lane int, keyed []KeyedRequest, want []bool) {
	t.Helper()
	r, err := StartLane(s, lane)
	if err != nil {
		t.Fatal(err)
	}
	var got []bool
	for _, chunk := range [][]KeyedRequest{keyed[:5], keyed[5:]} {
		out := make([]bool, len(chunk)+1)
		out[len(chunk)] = true // past the chunk: must stay as it is
		for i := range len(chunk) {
			out[i] = i%2 == 0 // what was there before is overwritten
		}
		if err := r.FeedVerdicts(context.Background(), chunk, out); err != nil {
			t.Fatal(err)
		}
		if !out[len(chunk)] {
			t.Fatalf("lane %d: FeedVerdicts wrote past the chunk", lane)
		}
		got = append(got, out[:len(chunk)]...)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("lane %d, request %d: allowed = %v by verdicts, %v continued", lane, i, got[i], want[i])
		}
	}
	if err := r.Continue(context.Background(), s, Hooks{}); err == nil {
		t.Errorf("lane %d: Continue after FeedVerdicts succeeded, want an error", lane)
	}
}

// Verdicts alone, on one server (each policy's Allow) and on several (the
// cluster), are the decisions Feed makes, late requests included, for every
// registered policy.
func TestReplayFeedVerdictsDecideAsFeed(t *testing.T) {
	var keyed []KeyedRequest
	for _, r := range []struct{ at, count, cost int64 }{{0, 4, 1}, {400, 2, 1}, {300, 2, 1}, {990, 2, 2}, {1001, 3, 1}, {900, 1, 1}, {1700, 5, 1}, {2600, 2, 3}} {
		for i := range r.count {
			keyed = append(keyed, KeyedRequest{At: r.at, Key: KeyOf([]string{"a", "b"}[i%2]), Cost: r.cost})
		}
	}
	for _, servers := range []string{"", `, "nodes": 3`} {
		for _, name := range policies.Names {
			s, err := Parse([]byte(`{"limit": 3, "windowMs": 1200, "policies": [{"name": "` + name + `"` + servers + `}], "requests": []}`))
			if err != nil {
				t.Fatalf("%s%s: %v", name, servers, err)
			}
			r, err := StartLane(s, 0)
			if err != nil {
				t.Fatal(err)
			}
			var want []bool
			if err := r.Feed(context.Background(), keyed, Hooks{After: func(_ policies.Policy, d Decision) error {
				want = append(want, d.Detail.Allowed)
				return nil
			}}); err != nil {
				t.Fatal(err)
			}
			t.Run(name+servers, func(t *testing.T) { checkVerdicts(t, s, 0, keyed, want) })
		}
	}
}

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
	}
}

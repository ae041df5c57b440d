package conform

import (
	"testing"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// TestDecideWallKnowsAStalledAnswer: the first request's answer took 300 ms
// (a server stalled on a loaded machine), so the limiter may have decided
// it at 300 ms and refilled less by 1,001 ms than the sent instants say. A
// refusal of the fourth request must then go unjudged, not be called a
// difference; the request whose answer came at once stays judged.
func TestDecideWallKnowsAStalledAnswer(t *testing.T) {
	p := policies.Params{Limit: 2, WindowMs: 1000, Burst: 2}
	const tol = 150
	tests := []struct {
		name        string
		firstAnswer int64 // ms since the run began when the first answer came back
		wantJudged  bool
	}{
		{"answered at once", 1, true},
		{"answered after a 300 ms stall", 300, false},
	}
	for _, tt := range tests {
		sent := []measured{
			{Request{At: 0, Key: "a", Cost: 1}, tt.firstAnswer},
			{Request{At: 7, Key: "a", Cost: 1}, 8},
			{Request{At: 1000, Key: "a", Cost: 1}, 1001},
		}
		// The kit's policy as run replays the requests at their sent
		// instants, as Run does.
		pol, err := policies.New(policies.TokenBucket, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range sent {
			pol.Decide(scenario.KeyOf(m.Key), m.At, m.Cost)
		}
		_, judged := decideWall(pol, policies.TokenBucket, p, sent, Request{At: 1001, Key: "a", Cost: 1}, 1001, 1002, tol, false)
		if judged != tt.wantJudged {
			t.Errorf("%s: a refusal at 1,001 ms judged = %v, want %v", tt.name, judged, tt.wantJudged)
		}
	}
}

package exercises

import (
	"fmt"
	"strings"
	"testing"
)

// A ring of k sub-buckets keeps k + 1 counters and two numbers of
// bookkeeping, 8 bytes each, so k + 3 numbers fit 64 bytes up to k = 5;
// the answer is the largest such k that divides the window.
func TestCacheLineKQuestion(t *testing.T) {
	for _, tt := range []struct {
		windowMs int64
		want     int
	}{
		{60_000, 5}, // 5 divides 60 s
		{12, 4},     // 5 does not divide 12 ms; 4 does
		{7, 1},      // a prime window under 6 ms: only k = 1 divides it
	} {
		file := fmt.Sprintf(`{"title": "t", "question": "q", "ask": "cache-line-k", "scenario": {"limit": 10, "windowMs": %d, "requests": [{"at": 0}]}}`, tt.windowMs)
		e, err := Parse([]byte(file), "k.json", nil)
		if err != nil {
			t.Fatal(err)
		}
		in := e.Instance(0)
		sol, err := in.Solve()
		if err != nil {
			t.Fatal(err)
		}
		if sol.Count != tt.want {
			t.Errorf("window %d ms: k = %d, want %d", tt.windowMs, sol.Count, tt.want)
		}
		last := sol.Trace[len(sol.Trace)-1]
		if !strings.HasPrefix(last.Outcome, "over") || last.When() != "" {
			t.Errorf("window %d ms: the working ends with %+v, want the first ring over a line, at no instant", tt.windowMs, last)
		}
		for _, ans := range []string{fmt.Sprint(tt.want), fmt.Sprintf("k = %d", tt.want), fmt.Sprintf("k=%d", tt.want)} {
			if fb, err := in.Check(ans, nil); err != nil || !fb.Correct {
				t.Errorf("window %d ms: %q not accepted: %+v %v", tt.windowMs, ans, fb, err)
			}
		}
		if fb, _ := in.Check(fmt.Sprint(tt.want+1), nil); fb.Correct || fb.Direction != "too large" {
			t.Errorf("window %d ms: one more: %+v, want wrong and too large", tt.windowMs, fb)
		}
	}
	if _, err := Parse([]byte(`{"title": "t", "question": "q", "ask": "cache-line-k", "policy": "sliding-log", "scenario": {"limit": 10, "windowMs": 60000, "requests": [{"at": 0}]}}`), "k.json", nil); err == nil || !strings.Contains(err.Error(), "policy: a cache-line-k question") {
		t.Errorf("a cache-line-k question naming a policy: %v, want an error naming policy", err)
	}
}

package lessons

import (
	"strings"
	"testing"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

func runOne(t *testing.T, s scenario.Scenario, ref string) (scenario.Scenario, scenario.PolicyResult) {
	t.Helper()
	spec, err := scenario.ParsePolicyRef(ref)
	if err != nil {
		t.Fatal(err)
	}
	s.Policies = []scenario.PolicySpec{spec}
	res, err := scenario.Run(s)
	if err != nil {
		t.Fatal(err)
	}
	return s, res.Results[0]
}

func TestAgainstExactLogOnAHandWorkedCase(t *testing.T) {
	// Limit 3 per second: three requests on the last millisecond of the
	// first window, three on the first of the next, one at 1.5 s.
	s := scenario.Scenario{Limit: 3, WindowMs: 1000, Requests: []scenario.Request{
		{At: 999, Cost: 1, Count: 3}, {At: 1000, Cost: 1, Count: 3}, {At: 1500, Cost: 1, Count: 1},
	}}
	tests := []struct {
		policy               string
		allowed, refused     int
		mostInWindow, overBy int64
		wantWrong            string
	}{
		// The fixed window admits all six at the edge, three of them with
		// the window before already full; at 1.5 s it refuses with its own
		// window full, and the exact count (six in (0.5 s, 1.5 s]) agrees.
		{"fixed-window", 3, 0, 6, 3, "42.9 %"},
		{"sliding-log", 0, 0, 3, 0, "0.0 %"},
	}
	for _, tt := range tests {
		s, r := runOne(t, s, tt.policy)
		a, err := AgainstExactLog(s, r)
		if err != nil {
			t.Fatal(err)
		}
		if a.WronglyAllowed != tt.allowed || a.WronglyRefused != tt.refused || a.MostInWindow != tt.mostInWindow || a.OverAdmission() != tt.overBy || a.Wrong() != tt.wantWrong {
			t.Errorf("%s: %+v (wrong %s, over by %d); want %d wrongly allowed, %d wrongly refused, most %d, over by %d, wrong %s",
				tt.policy, a, a.Wrong(), a.OverAdmission(), tt.allowed, tt.refused, tt.mostInWindow, tt.overBy, tt.wantWrong)
		}
	}
}

// The old measure ran a separate log beside the policy and counted every
// decision that differed; once the two histories parted, it kept counting.
// On steady traffic a ring of ten buckets then "differed" on a third of the
// decisions while never admitting more than the limit in any window. The
// measure the lesson uses must not read that as over-admission, and the
// log judged against itself must be exact.
func TestAccuracyDoesNotCountOneDifferenceForEver(t *testing.T) {
	traffic := func(shape scenario.Shape) []scenario.Request {
		t.Helper()
		times, err := scenario.AtRate(shape, 10, 1000, 20, 1).Times()
		if err != nil {
			t.Fatal(err)
		}
		return scenario.Requests(times, "", 1)
	}
	for _, shape := range comparedShapes {
		base := scenario.Scenario{Limit: 10, WindowMs: 1000, Requests: traffic(shape)}
		s, r := runOne(t, base, policies.SlidingLog)
		a, err := AgainstExactLog(s, r)
		if err != nil {
			t.Fatal(err)
		}
		if a.WronglyAllowed+a.WronglyRefused != 0 || a.MostInWindow > 10 {
			t.Errorf("%s: the sliding log judged against itself: %+v", shape, a)
		}
	}
	s, r := runOne(t, scenario.Scenario{Limit: 10, WindowMs: 1000, Requests: traffic(scenario.Steady)}, "sliding-buckets/10")
	a, err := AgainstExactLog(s, r)
	if err != nil {
		t.Fatal(err)
	}
	differ, err := differFromLog(s, r)
	if err != nil {
		t.Fatal(err)
	}
	if a.WronglyAllowed != 0 || a.MostInWindow > 10 {
		t.Errorf("steady, k = 10: %+v; the ring never admits more than the limit in a window", a)
	}
	if a.WronglyRefused >= differ {
		t.Errorf("steady, k = 10: %d wrongly refused, not fewer than the %d decisions unlike a separate log", a.WronglyRefused, differ)
	}
}

// The comparison on the choosing-a-policy page says what its numbers mean.
func TestCompareWidgetSaysWhatItMeasures(t *testing.T) {
	lib, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	r, err := lib.Render(lib.Lesson("choosing-a-policy"), nil)
	if err != nil {
		t.Fatal(err)
	}
	html := string(r.HTML)
	for _, want := range []string{`data-testid="compare-meaning"`, "wrongly allowed", "wrongly refused", "most admitted in one window", "Cloudflare"} {
		if !strings.Contains(html, want) {
			t.Errorf("the comparison lacks %q", want)
		}
	}
	if strings.Contains(html, "unlike the exact log") {
		t.Error("the comparison still counts decisions unlike a separate log")
	}
}

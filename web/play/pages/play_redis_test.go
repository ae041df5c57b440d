package pages

import (
	"strings"
	"testing"

	"github.com/windowlab/playground/onredis"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/policies"
)

// A lane's Redis row draws each replayed request under its Go mark: as Go
// decided it where Redis agreed, as Redis decided it with ≠ and both
// decisions in words where it did not, and nothing past the replay's
// bound. Unavailable, it draws no marks and says why.
func TestPlayRedisRowMarksADifference(t *testing.T) {
	l := play.Lane{Index: 0, ID: "lane-0", Policy: policies.FixedWindow, Label: "fixed-window", Capacity: 5,
		Params: policies.Params{Limit: 5, WindowMs: 30_000},
		Marks: []play.Mark{
			{Index: 0, At: 0, Cost: 1, Allowed: true},
			{Index: 1, At: 25_000, Cost: 1, Retry: 5000},
			{Index: 2, At: 26_000, Cost: 1, Allowed: true},
		}}
	diff := onredis.Difference{Index: 1, At: 25_000, Key: "default",
		Redis: policies.Decision{Allowed: true, At: 25_000, Capacity: 5, Cost: 1},
		Go:    policies.Decision{RetryAfterMs: 5000, At: 25_000, Estimate: policies.Fraction{Num: 5, Den: 1}, Capacity: 5, Cost: 1}}
	pp := PlayPage{View: play.View{To: 60_000, Client: "default", Lanes: []play.Lane{l}},
		Redis: &onredis.Replayed{Lanes: []onredis.LaneReplayed{{Through: 2, Total: 3,
			Compared: onredis.Compared{Decided: 2, Differences: []onredis.Difference{diff}}}}}}

	doc := render(t, PlayLane(pp, l))
	marks := doc.Find("[data-testid=redis-lane] g.redis-mark")
	if marks.Length() != 2 {
		t.Fatalf("%d Redis marks, want 2 (request 3 is past the replay)", marks.Length())
	}
	for i, want := range []struct {
		class, title string
		differs      bool
	}{
		{"admitted", "request 1 at 0 s admitted on Redis, as in Go", false},
		{"admitted", "Redis and Go differ on request 2 (at 25 s, key default): Redis admitted at estimate 0, Go refused, retry after 5 s at estimate 5", true},
	} {
		m := marks.Eq(i)
		if !m.HasClass(want.class) || m.HasClass("redis-differs") != want.differs || m.Find("title").Text() != want.title {
			t.Errorf("mark %d: class %q, title %q; want %s, differs %v, %q", i+1, m.AttrOr("class", ""), m.Find("title").Text(), want.class, want.differs, want.title)
		}
		if got := strings.Contains(m.Text(), "≠"); got != want.differs {
			t.Errorf("mark %d draws ≠ = %v, want %v", i+1, got, want.differs)
		}
	}
	status := doc.Find("[data-testid=redis-status]").Text()
	if !strings.HasPrefix(status, "Redis: 1 of 2 decisions differ from Go's; first, request 2") || !strings.Contains(status, "after the first 2 are not replayed") {
		t.Errorf("Redis line %q", status)
	}

	pp.Redis = &onredis.Replayed{Lanes: []onredis.LaneReplayed{{Unavailable: "the server cannot reach Redis.", Total: 3}}}
	doc = render(t, PlayLane(pp, l))
	if n := doc.Find("[data-testid=redis-lane] .redis-mark").Length(); n != 0 {
		t.Errorf("unavailable, the row draws %d marks", n)
	}
	if got := doc.Find("[data-testid=redis-status]").Text(); got != "Redis unavailable: the server cannot reach Redis." {
		t.Errorf("unavailable, the Redis line reads %q", got)
	}
	if n := doc.Find("g.mark").Length(); n != 3 {
		t.Errorf("unavailable, the Go lane draws %d marks, want 3", n)
	}
}

package pages

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/windowlab/playground/play"
)

// TestPlaySummaryCountsInEnglish: one request is "1 request", as a
// presenter would read it out.
func TestPlaySummaryCountsInEnglish(t *testing.T) {
	for _, c := range []struct {
		total int64
		want  string
	}{{0, "0 requests ·"}, {1, "1 request ·"}, {2, "2 requests ·"}} {
		v := play.View{Total: c.total, Scenario: play.DefaultScenario(), Client: "default"}
		var buf bytes.Buffer
		if err := PlaySummary(v).Render(context.Background(), &buf); err != nil {
			t.Fatal(err)
		}
		if text := strings.Join(strings.Fields(buf.String()), " "); !strings.Contains(text, c.want) {
			t.Errorf("%d requests: summary %q, want %q", c.total, text, c.want)
		}
	}
}

// TestLiveRegionIsQuietWhileTheClockPlays: the live region reads out the
// lanes' latest decisions when the clock is still, and only that the
// clock plays while it plays (ten updates a second would be a queue no
// screen reader's listener could follow).
func TestLiveRegionIsQuietWhileTheClockPlays(t *testing.T) {
	v := carParkView(t)
	if got := LatestSummary(v); !strings.Contains(got, "request 10 at 40 s") {
		t.Errorf("paused: the live region says %q, want the last request's decision", got)
	}
	v.Clock.Playing = true
	if got := LatestSummary(v); got != PlayingSummary {
		t.Errorf("playing: the live region says %q, want %q", got, PlayingSummary)
	}
}

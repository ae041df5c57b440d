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

package play

import (
	"fmt"
	"strings"
	"testing"

	"github.com/windowlab/playground/internal/webtest"
	"github.com/windowlab/playground/lane"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/web/templates"
)

// TestPlayPresentationStream: a stream opened with ?present=1 draws the
// lanes at the presentation's size and sends the one-line explanation,
// so that its updates keep the page's layout; a plain stream does not,
// and one opened with ?narrow=1 (a phone's page) draws the lanes
// lane.PhoneWidth wide. The streams follow one session's feed, which
// renders each view they ask for.
func TestPlayPresentationStream(t *testing.T) {
	store := play.NewStore(nil)
	_, url, _ := newTestServer(t, Playground(store))
	sess := webtest.CarParkSession(t, store, 41)
	if err := sess.Select(9); err != nil {
		t.Fatal(err)
	}
	o := templates.PresentLaneOptions(len(sess.View().Lanes), lane.Options{})
	for _, c := range []struct {
		query, viewBox string
		present        bool
	}{
		{"", fmt.Sprintf(`viewBox="0 0 %d %d"`, lane.DefaultWidth, lane.DefaultHeight), false},
		{"?present=1", fmt.Sprintf(`viewBox="0 0 %d %d"`, o.Width, o.Height), true},
		{"?narrow=1", fmt.Sprintf(`viewBox="0 0 %d %d"`, lane.PhoneWidth, lane.DefaultHeight), false},
	} {
		var all strings.Builder
		for _, ev := range openStream(t, url+"/play/"+sess.ID()+"/stream"+c.query).until(t, "play-share") {
			all.WriteString(strings.Join(ev.Data, "\n"))
		}
		got := all.String()
		if n, want := strings.Count(got, c.viewBox), len(play.DefaultScenario().Policies); n != want {
			t.Errorf("stream%s: %d lanes drawn with %s, want %d", c.query, n, c.viewBox, want)
		}
		if has := strings.Contains(got, "present-explain"); has != c.present {
			t.Errorf("stream%s: one-line explanation sent = %v, want %v", c.query, has, c.present)
		}
	}
}

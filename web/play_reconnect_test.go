package web

import (
	"net/http"
	"strings"
	"testing"

	"github.com/windowlab/playground/play"
)

// A page reopening its stream after the server lost its session learns it
// from the stream itself: the answer carries the "session ended" summary
// marked data-session-ended, which play-connection.js looks for to stop
// reconnecting and say so.
func TestPlayStreamOfALostSessionSaysItEnded(t *testing.T) {
	_, url, _ := newTestServer(t, Playground(play.NewStore(nil)))
	req, err := http.NewRequest(http.MethodGet, url+"/play/gone-after-a-restart/stream", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Datastar-Request", "true")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	events := parseEvents(t, res.Body)
	if res.StatusCode != http.StatusNotFound || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, Content-Type %q: want 404 as Datastar events", res.StatusCode, res.Header.Get("Content-Type"))
	}
	var all strings.Builder
	for _, ev := range events {
		all.WriteString(strings.Join(ev.data, "\n"))
	}
	if !strings.Contains(all.String(), "data-session-ended") || !strings.Contains(all.String(), "This playground session has ended") {
		t.Errorf("the stream's answer %q does not mark the session as ended", all.String())
	}
}

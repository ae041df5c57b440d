package web

import (
	"net/http"
	"strings"
	"testing"
	"time"

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

// A stream with nothing to update still sends an (empty) event every
// heartbeat, and only then: the page takes a long silence as a lost
// connection.
func TestPlayStreamHeartbeat(t *testing.T) {
	store := play.NewStore(nil)
	s, url, _ := newTestServer(t, Playground(store))
	s.heartbeat = 300 * time.Millisecond
	sess, err := store.New(play.DefaultScenario())
	if err != nil {
		t.Fatal(err)
	}
	r := openStream(t, url+"/play/"+sess.ID()+"/stream")
	r.until(t, "play-share") // the first render ends with the share region
	start := time.Now()
	var beats []time.Duration
	for len(beats) < 3 {
		select {
		case ev, ok := <-r.events:
			if !ok {
				t.Fatalf("the stream ended (%v)", r.err)
			}
			if ev.name != "datastar-merge-signals" || strings.Join(ev.data, "\n") != "signals {}" {
				t.Fatalf("a quiet stream sent %s %q, want only empty signals", ev.name, ev.data)
			}
			beats = append(beats, time.Since(start))
		case <-time.After(3 * time.Second):
			t.Fatalf("no heartbeat after %v (beats at %v)", time.Since(start), beats)
		}
	}
	for i := 1; i < len(beats); i++ {
		if gap := beats[i] - beats[i-1]; gap < 250*time.Millisecond {
			t.Errorf("beats %d and %d are %v apart, want about 300 ms", i-1, i, gap)
		}
	}
}

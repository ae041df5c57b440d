package play

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/windowlab/playground/internal/webtest"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/web"
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
	events := webtest.ParseEvents(t, res.Body)
	if res.StatusCode != http.StatusNotFound || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, Content-Type %q: want 404 as Datastar events", res.StatusCode, res.Header.Get("Content-Type"))
	}
	var all strings.Builder
	for _, ev := range events {
		all.WriteString(strings.Join(ev.Data, "\n"))
	}
	if !strings.Contains(all.String(), "data-stream-ended") || !strings.Contains(all.String(), "This playground session has ended") {
		t.Errorf("the stream's answer %q does not mark the session as ended", all.String())
	}
}

// A stream with nothing to update still sends an (empty) event every
// heartbeat, and only then: the page takes a long silence as a lost
// connection.
func TestPlayStreamHeartbeat(t *testing.T) {
	store := play.NewStore(nil)
	log, _ := webtest.Logger()
	s, err := web.New(web.Config{DatastarPath: webtest.BundlePath(t), StreamHeartbeat: 300 * time.Millisecond, Features: []web.Feature{Playground(store)}}, log)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	url := srv.URL
	sess, err := store.New(play.DefaultScenario())
	if err != nil {
		t.Fatal(err)
	}
	r := openStream(t, url+"/play/"+sess.ID()+"/stream")
	r.until(t, "play-share") // the first render ends with the share region
	// Beats are counted over a window rather than timed one by one: on a
	// busy machine this reader can fall behind and take two beats
	// back to back, which says nothing of how often the server sent them.
	// Reading late only moves beats out of the window, never into it, so
	// more than window/heartbeat + 1 means the server beat too often.
	const window = 1200 * time.Millisecond
	deadline := time.After(window)
	beats := 0
	for done := false; !done; {
		select {
		case ev, ok := <-r.events:
			if !ok {
				t.Fatalf("the stream ended (%v)", r.err)
			}
			if ev.Name != "datastar-merge-signals" || strings.Join(ev.Data, "\n") != "signals {}" {
				t.Fatalf("a quiet stream sent %s %q, want only empty signals", ev.Name, ev.Data)
			}
			beats++
		case <-deadline:
			done = true
		}
	}
	if most := int(window/s.Heartbeat()) + 1; beats < 1 || beats > most {
		t.Errorf("%d heartbeats in %v at one per %v, want 1 to %d", beats, window, s.Heartbeat(), most)
	}
}

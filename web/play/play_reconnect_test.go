package play

import (
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
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
// connection. Counted over a minute of a testing/synctest bubble's clock.
func TestPlayStreamHeartbeat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := play.NewStore(nil) // time.Now: the bubble's clock
		sess, err := store.New(play.DefaultScenario())
		if err != nil {
			t.Fatal(err)
		}
		w, stop := bubbleStream(t, Playground(store), "/play/"+sess.ID()+"/stream")
		defer stop()
		first := len(w.Events(t))
		const quiet = 4*web.StreamHeartbeat + web.StreamHeartbeat/2
		<-time.After(quiet) // the bubble's time: no wall time passes
		synctest.Wait()
		beats := w.Events(t)[first:]
		for _, ev := range beats {
			if ev.Name != "datastar-merge-signals" || strings.Join(ev.Data, "\n") != "signals {}" {
				t.Fatalf("a quiet stream sent %s %q, want only empty signals", ev.Name, ev.Data)
			}
		}
		if len(beats) != 4 {
			t.Errorf("%d heartbeats in %v of quiet at one per %v, want 4", len(beats), quiet, web.StreamHeartbeat)
		}
	})
}

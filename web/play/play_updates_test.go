package play

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/windowlab/playground/internal/webtest"
	"github.com/windowlab/playground/play"
)

// Each firing action is one change of the session, so its stream renders
// and sends one update: the cost the page sends with it is taken in the same
// change, not as an update of its own that the requests then follow.
func TestPlayFiringIsOneUpdate(t *testing.T) {
	store := play.NewStore(nil)
	_, url, _ := newTestServer(t, Playground(store))
	sess := webtest.CarParkSession(t, store, 40)
	base := url + "/play/" + sess.ID()
	for i, c := range []struct{ action, body string }{
		{"fire", `{"cost": 2}`},
		{"fire", `{"cost": 2}`},
		{"burst", `{"cost": 3, "burstCount": 4}`},
		{"pattern", `{"cost": 1, "pattern": "steady", "patternCount": 5, "patternSeconds": 10}`},
	} {
		before := sess.View().Version
		if res := post(t, base+"/"+c.action, c.body, sess); res.status != http.StatusOK {
			t.Fatalf("step %d: POST %s = %d, want 200 (%s)", i, c.action, res.status, res.header.Get("X-Problem"))
		}
		if got := sess.View().Version - before; got != 1 {
			t.Errorf("step %d: POST %s made %d updates, want 1", i, c.action, got)
		}
	}
	if got := sess.View().Cost; got != 1 {
		t.Errorf("cost after the pattern = %d, want 1 (the cost it was fired with)", got)
	}
}

// TestPlayStreamsOfOneSessionShareOneFeed: however many pages follow one
// playground, this process watches and touches it once (sessionHub), and
// every page gets the playing clock's updates; the watch ends with the
// last page.
func TestPlayStreamsOfOneSessionShareOneFeed(t *testing.T) {
	store := play.NewStore(nil)
	_, url, _ := newTestServer(t, Playground(store))
	sess := webtest.CarParkSession(t, store, 40)
	t.Run("three pages", func(t *testing.T) {
		var streams []*sseReader
		for range 3 {
			r := openStream(t, url+"/play/"+sess.ID()+"/stream")
			r.until(t, "play-share") // the first render
			streams = append(streams, r)
		}
		if n := store.Watchers(sess.ID()); n != 1 {
			t.Errorf("three pages of one session: the store has %d watchers, want 1", n)
		}
		if r := post(t, url+"/play/"+sess.ID()+"/play", `{}`, sess); r.status != http.StatusOK {
			t.Fatalf("play: %d", r.status)
		}
		for i, r := range streams {
			// Each page sees the clock move on from where it was
			// loaded, with nothing ticking it but the feed's reading.
			if !clockPasses(r, 41_000) {
				t.Errorf("page %d: no clock update at 41 s or later within 5 s of play", i+1)
			}
		}
	})
	select {
	case <-store.Unwatched(sess.ID()):
	case <-time.After(2 * time.Second): // bounds the server's feed goroutine, which ends with its last page
		t.Fatal("the feed's watch outlived its last page by 2 s")
	}
}

// clockPasses reads r until a clock region shows at least ms, for up to
// five seconds.
func clockPasses(r *sseReader, ms int64) bool {
	clock := regexp.MustCompile(`data-testid="clock" data-seconds="([0-9.]+)"`)
	timeout := time.After(5 * time.Second)
	for {
		select {
		case ev, ok := <-r.events:
			if !ok {
				return false
			}
			m := clock.FindStringSubmatch(strings.Join(ev.Data, "\n"))
			if m == nil {
				continue
			}
			if sec, err := strconv.ParseFloat(m[1], 64); err == nil && sec*1000 >= float64(ms) {
				return true
			}
		case <-timeout:
			return false
		}
	}
}

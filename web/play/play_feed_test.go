package play

import (
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/windowlab/playground/internal/webtest"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/web"
)

// clocks are the playing clock's readings (data-seconds, in ms) of the
// frames w holds that carried the clock.
func clocks(t *testing.T, w *webtest.StreamRecorder) []int64 {
	t.Helper()
	clock := regexp.MustCompile(`data-testid="clock" data-seconds="([0-9.]+)"`)
	var got []int64
	for _, ev := range w.Events(t) {
		if m := clock.FindStringSubmatch(strings.Join(ev.Data, "\n")); m != nil {
			sec, err := strconv.ParseFloat(m[1], 64)
			if err != nil {
				t.Fatalf("the clock reads %q: %v", m[1], err)
			}
			got = append(got, int64(sec*1000+0.5))
		}
	}
	return got
}

// bubbleStream serves a site of feature within the caller's
// testing/synctest bubble and opens the stream at path on it; the first
// frame is written when it returns. stop ends the stream and returns once
// every goroutine it started waits (or has ended).
func bubbleStream(t *testing.T, feature web.Feature, path string) (w *webtest.StreamRecorder, stop func()) {
	t.Helper()
	return bubbleStreamOn(t, nil, feature, path)
}

// bubbleStreamOn is bubbleStream with the server's clock now (nil: the
// bubble's time.Now).
func bubbleStreamOn(t *testing.T, now func() time.Time, feature web.Feature, path string) (w *webtest.StreamRecorder, stop func()) {
	t.Helper()
	log, _ := webtest.Logger()
	s, err := web.New(web.Config{DatastarPath: webtest.BundlePath(t), Features: []web.Feature{feature}, Now: now}, log)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	w = webtest.NewStreamRecorder()
	served := make(chan struct{})
	go func() {
		defer close(served)
		s.ServeHTTP(w, httptest.NewRequestWithContext(ctx, http.MethodGet, path, nil))
	}()
	synctest.Wait()
	return w, func() {
		cancel()
		<-served
		synctest.Wait()
	}
}

// TestPlayFeedPacesAPlayingClock plays a session at 16× for one second
// of a testing/synctest bubble's time, which the server's clock, the
// store's and the feed's ticker all count on: the stream sends the first
// frame, then exactly one clock update each web.UpdateInterval (the
// change that started the clock joins the next one), each reading the
// clock at its own instant; ending the stream lets the session's watch go.
func TestPlayFeedPacesAPlayingClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := play.NewStore(nil) // time.Now: the bubble's clock
		sess := webtest.CarParkSession(t, store, 40)
		w, stop := bubbleStream(t, Playground(store), "/play/"+sess.ID()+"/stream")
		synctest.Wait()
		if got := clocks(t, w); len(got) != 1 || got[0] != 40_000 {
			t.Fatalf("the first frame's clock: %v, want [40000]", got)
		}
		if err := sess.SetSpeed(play.FastestSpeed); err != nil {
			t.Fatal(err)
		}
		if err := sess.Do(func(s *play.Session) error { return s.Play() }); err != nil {
			t.Fatal(err)
		}
		<-time.After(time.Second) // the bubble's second: no wall time passes
		synctest.Wait()
		got := clocks(t, w)
		want := []int64{40_000}
		for i := range int64(time.Second / web.UpdateInterval) {
			want = append(want, 40_000+int64(play.FastestSpeed)/4*(i+1)*web.UpdateInterval.Milliseconds())
		}
		if len(got) != len(want) {
			t.Fatalf("a second of play at 16× sent %d clock updates %v, want %d %v", len(got), got, len(want), want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("update %d: the clock reads %d ms, want %d", i, got[i], want[i])
			}
		}
		if now := sess.Now(); now != want[len(want)-1] {
			t.Errorf("the store's clock reads %d ms, want %d, as the last update showed", now, want[len(want)-1])
		}
		stop()
		select {
		case <-store.Unwatched(sess.ID()):
		default:
			t.Error("the session is still watched after its only stream ended")
		}
	})
}

// TestPlayFeedKeepsTenASecondWhenTicksAreReadLate plays a session for a
// second of a synctest bubble's time on a server whose clock reads 5 ms
// late on every other tick, as a busy machine's hub wakes late: the stream
// still sends ten clock updates, each later than the one before (a late
// render puts the later ones off by its lateness, so the tenth comes 5 ms
// after the second is out). (The feed
// once compared each tick's reading with the last render's and dropped the
// tick after every late one: five updates a second in a real browser.)
func TestPlayFeedKeepsTenASecondWhenTicksAreReadLate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		late := func() time.Time {
			now := time.Now()
			if now.UnixMilli()/web.UpdateInterval.Milliseconds()%2 == 1 {
				return now.Add(5 * time.Millisecond)
			}
			return now
		}
		store := play.NewStore(nil)
		sess := webtest.CarParkSession(t, store, 40)
		w, stop := bubbleStreamOn(t, late, Playground(store), "/play/"+sess.ID()+"/stream")
		defer stop()
		if err := sess.Do(func(s *play.Session) error { return s.Play() }); err != nil {
			t.Fatal(err)
		}
		<-time.After(time.Second + web.UpdateInterval/2) // the bubble's time: no wall time passes
		synctest.Wait()
		got := clocks(t, w)
		if want := 1 + int(time.Second/web.UpdateInterval); len(got) != want {
			t.Fatalf("a second of play sent %d clock updates %v, want %d", len(got), got, want)
		}
		for i := 1; i < len(got); i++ {
			if got[i] <= got[i-1] {
				t.Errorf("update %d: the clock reads %d ms after %d", i, got[i], got[i-1])
			}
		}
	})
}

// TestPlayingFramesCarryTheLanesMovingParts: while the clock plays and no
// request is fired, a frame replaces each lane's moving parts (its state
// layers, clock line and status, lane.Parts) and not the lane whole, whose
// marks did not change; the parts it sends are those the page holds. A
// second of play at 1× on the bubble's clock: ten frames.
func TestPlayingFramesCarryTheLanesMovingParts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := play.NewStore(nil) // time.Now: the bubble's clock
		sess := webtest.CarParkSession(t, store, 40)
		w, stop := bubbleStream(t, Playground(store), "/play/"+sess.ID()+"/stream")
		defer stop()
		first := w.Events(t)
		page := ""
		for _, ev := range first {
			page += strings.Join(ev.Data, "\n")
		}
		for _, id := range []string{"lane-0-front", "lane-0-behind", "lane-0-status", "lane-1-front"} {
			if !strings.Contains(page, `id="`+id+`"`) {
				t.Fatalf("the first frame has no element %s", id)
			}
		}
		if err := sess.Do(func(s *play.Session) error { return s.Play() }); err != nil {
			t.Fatal(err)
		}
		<-time.After(time.Second) // the bubble's second: no wall time passes
		synctest.Wait()
		partsOnly, whole := 0, 0
		for _, ev := range w.Events(t)[len(first):] {
			html := strings.Join(ev.Data, "\n")
			switch {
			case strings.Contains(html, `<figure id="lane-0"`):
				whole++
			case strings.Contains(html, `fragments <svg id="lane-0-front"`):
				partsOnly++
			}
		}
		if frames := int(time.Second / web.UpdateInterval); partsOnly != frames || whole != 0 {
			t.Errorf("a second of play sent lane 0's parts alone in %d frames and the lane whole in %d; want parts alone in all %d", partsOnly, whole, frames)
		}
	})
}

package room

import (
	"context"
	"html"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/windowlab/playground/internal/webtest"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/room"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/web"
	weblessons "github.com/windowlab/playground/web/lessons"
	webplay "github.com/windowlab/playground/web/play"
)

// clocks are the clock texts ("41.6 s") of the frames w holds that
// carried the room's clock.
func clocks(t *testing.T, w *webtest.StreamRecorder) []string {
	t.Helper()
	clock := regexp.MustCompile(`data-testid="clock">([^<]*)<`)
	var got []string
	for _, ev := range w.Events(t) {
		if m := clock.FindStringSubmatch(strings.Join(ev.Data, "\n")); m != nil {
			got = append(got, html.UnescapeString(m[1]))
		}
	}
	return got
}

// TestRoomHubPacesAPlayingClock plays a room's session at 16× for one
// second of a testing/synctest bubble's time, which the server's clock,
// the stores' and the hub's ticker and render timer all count on: a
// phone's stream gets the first frame, then exactly one frame each
// web.UpdateInterval (the pacer folds the change that started the clock
// into the first), each reading the clock at its own instant; ending the
// stream ends the hub's watch of the session.
func TestRoomHubPacesAPlayingClock(t *testing.T) {
	lib, _, err := weblessons.LoadLessons()
	if err != nil {
		t.Fatal(err)
	}
	synctest.Test(t, func(t *testing.T) {
		// Every clock is nil, time.Now: the bubble's.
		rooms, err := room.New(room.NewMemStore(), room.Config{})
		if err != nil {
			t.Fatal(err)
		}
		sessions := play.NewStore(nil)
		rf := Rooms(rooms, sessions, lib)
		log, _ := webtest.Logger()
		s, err := web.New(web.Config{DatastarPath: webtest.BundlePath(t), Features: []web.Feature{webplay.Playground(sessions, rf), rf}}, log)
		if err != nil {
			t.Fatal(err)
		}
		sess := webtest.CarParkSession(t, sessions, 36)
		start := httptest.NewRequest(http.MethodPost, "/play/"+sess.ID()+"/room", nil)
		start.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		start.AddCookie(&http.Cookie{Name: webplay.ControlCookie, Value: sess.ControlToken()})
		started := httptest.NewRecorder()
		s.ServeHTTP(started, start)
		m := regexp.MustCompile(`^/room/([A-Za-z0-9_-]+)/present$`).FindStringSubmatch(started.Header().Get("Location"))
		if started.Code != http.StatusSeeOther || m == nil {
			t.Fatalf("POST /play/{id}/room: status %d, Location %q; want 303 to the room", started.Code, started.Header().Get("Location"))
		}
		rm, err := rooms.ByID(t.Context(), m[1])
		if err != nil {
			t.Fatal(err)
		}

		ctx, cancel := context.WithCancel(t.Context())
		w := webtest.NewStreamRecorder()
		served := make(chan struct{})
		go func() {
			defer close(served)
			s.ServeHTTP(w, httptest.NewRequestWithContext(ctx, http.MethodGet, "/room/"+rm.ID+"/stream", nil))
		}()
		synctest.Wait()
		at := sess.Now()
		if got := clocks(t, w); len(got) != 1 || got[0] != scenario.FormatMs(at) {
			t.Fatalf("the first frame's clock: %q, want [%q]", got, scenario.FormatMs(at))
		}
		if _, err := sessions.Update(t.Context(), rm.Session, func(s *play.Session) error {
			if err := s.SetSpeed(play.FastestSpeed); err != nil {
				return err
			}
			return s.Play()
		}); err != nil {
			t.Fatal(err)
		}
		<-time.After(time.Second) // the bubble's second: no wall time passes
		synctest.Wait()
		got := clocks(t, w)
		want := []string{scenario.FormatMs(at)}
		for i := range int64(time.Second / web.UpdateInterval) {
			want = append(want, scenario.FormatMs(at+int64(play.FastestSpeed)/4*(i+1)*web.UpdateInterval.Milliseconds()))
		}
		t.Logf("the clocks sent: %q", got)
		if strings.Join(got, " | ") != strings.Join(want, " | ") {
			t.Errorf("a second of play at 16× sent the clocks\n%q\nwant one each %v:\n%q", got, web.UpdateInterval, want)
		}
		cancel()
		<-served
		synctest.Wait()
		select {
		case <-sessions.Unwatched(rm.Session):
		default:
			t.Error("the room's session is still watched after the room's only stream ended")
		}
	})
}

package room

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/windowlab/playground/internal/webtest"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/web/fanout"
)

// TestRoomPageLoadsShareTheHubsReplay: a page load during an open question
// uses the replay of the room's hub, when a screen follows the room, and
// continues it rather than replaying the requests before the question
// again.
func TestRoomPageLoadsShareTheHubsReplay(t *testing.T) {
	f := &Feature{}
	followed := &roomHub{}
	fl, err := f.hubs.Join(context.Background(), "followed", fanout.JoinOptions[*roomHub]{View: viewPhone, Views: numViews,
		Start: func(context.Context, *fanout.Hub) (*roomHub, error) { return followed, nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Leave()
	c := f.askedCache("followed")
	if c != &followed.asked {
		t.Fatalf("askedCache(followed) = %p, want the hub's, %p", c, &followed.asked)
	}
	if got := f.askedCache("unfollowed"); got != nil {
		t.Errorf("askedCache(unfollowed) = %p, want nil: no hub, no cache", got)
	}
	sess := webtest.CarParkSession(t, play.NewStore(time.Now), 36)
	v := sess.View()
	cut := v.Clock.Now + 1
	if _, err := askedView(v, cut, v.Clock.Now, c); err != nil {
		t.Fatal(err)
	}
	hubs := c.sess
	if hubs == nil {
		t.Fatal("askedView kept no replay in the cache it was given")
	}
	later := v
	later.Clock.Now += 500
	if _, err := askedView(later, cut, later.Clock.Now, c); err != nil {
		t.Fatal(err)
	}
	if c.sess != hubs {
		t.Error("a page load half a second on replayed the requests again instead of continuing the hub's replay")
	}
}

// TestRoomPagesDuringAQuestionWhileFollowed: the phone and projector pages
// opened while a screen follows the room (so through the hub's replay,
// several at once) are the pages opened with none following.
func TestRoomPagesDuringAQuestionWhileFollowed(t *testing.T) {
	fx := newRoomFixture(t, nil)
	presenter := fx.device(t)
	id, _, _ := fx.startRoom(t, presenter)
	if res := presenter.post("/room/"+id+"/ask", `{"askKind":"admit","cost":1}`); res.status != http.StatusOK {
		t.Fatalf("ask: status %d: %s", res.status, res.header.Get("X-Problem"))
	}
	// The phone joins first: the projector counts the joined phones that
	// have not answered, so both pages are compared in one room state.
	phone := fx.joined(t, id)
	pages := map[string]*device{"/room/" + id: phone, "/room/" + id + "/present": presenter}
	alone := map[string]string{}
	for path, d := range pages {
		alone[path] = d.get(path).body
	}

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fx.base+"/room/"+id+"/stream?view=projector", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := presenter.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("stream: status %d", res.StatusCode)
	}

	var wg sync.WaitGroup
	for range 3 {
		for path, d := range pages {
			wg.Go(func() {
				if got := d.get(path); got.status != http.StatusOK || got.body != alone[path] {
					t.Errorf("GET %s while followed: status %d, and the page differs from the one opened with no screen following", path, got.status)
				}
			})
		}
	}
	wg.Wait()
}

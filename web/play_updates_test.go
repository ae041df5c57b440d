package web

import (
	"net/http"
	"testing"

	"github.com/windowlab/playground/play"
)

// Each firing action is one change of the session, so its stream renders
// and sends one update: the cost the page sends with it is taken in the same
// change, not as an update of its own that the requests then follow.
func TestPlayFiringIsOneUpdate(t *testing.T) {
	store := play.NewStore(nil)
	_, url, _ := newTestServer(t, Playground(store))
	sess := carParkSession(t, store, 40)
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

package play

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/windowlab/playground/internal/webtest"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/web/fanout"
	"github.com/windowlab/playground/web/play/pages"
)

// TestRestoredSessionRendersTheSamePage drives a session through the page's
// own actions, restores its snapshot (as a store kept outside the process
// would), and checks that the page and every streamed region render the
// same bytes for both, then again after the same next action on each.
func TestRestoredSessionRendersTheSamePage(t *testing.T) {
	store := play.NewStore(nil)
	srv, url, _ := newTestServer(t, Playground(store))
	sess := webtest.CarParkSession(t, store, 40)
	base := url + "/play/" + sess.ID()
	for i, a := range []struct{ action, body string }{
		{"client/add", `{"clientName": "bob"}`},
		{"burst", `{"cost": 2, "burstCount": 3}`},
		{"step?ms=2500", `{}`},
		{"pattern", `{"cost": 1, "pattern": "poisson", "patternCount": 12, "patternSeconds": 30}`},
		{"jump", `{"jumpSeconds": 20}`},
		{"fire", `{"cost": 1}`},
		{"select?i=4", `{}`},
		{"settings", `{"limit": 4, "windowSeconds": 20, "useFixedWindow": true, "useSlidingBuckets": true, "buckets": 4, "useGcra": true, "burst": 6}`},
	} {
		if res := post(t, base+"/"+a.action, a.body, sess); res.status != http.StatusOK {
			t.Fatalf("step %d: POST %s = %d, want 200 (%s)", i+1, a.action, res.status, res.header.Get("X-Problem"))
		}
	}
	orig := sess.Read() // a value from here on: the next steps change it alone
	data, err := json.Marshal(orig.Saved())
	if err != nil {
		t.Fatal(err)
	}
	var saved play.Saved
	if err := json.Unmarshal(data, &saved); err != nil {
		t.Fatal(err)
	}
	restored, err := play.Restore(saved)
	if err != nil {
		t.Fatalf("restoring %s: %v", data, err)
	}

	p := &playground{s: srv, store: store}
	r := httptest.NewRequest(http.MethodGet, "/play/"+sess.ID(), nil)
	page := func(s *play.Session) (string, []fanout.Region) {
		t.Helper()
		pp := p.pageData(r, s)
		var buf bytes.Buffer
		if err := pages.PlayPageView(pp).Render(r.Context(), &buf); err != nil {
			t.Fatal(err)
		}
		rs, err := regions(pp, r)
		if err != nil {
			t.Fatal(err)
		}
		return buf.String(), rs
	}
	compare := func(when string) {
		t.Helper()
		wantPage, wantRegions := page(orig)
		gotPage, gotRegions := page(restored)
		if gotPage != wantPage {
			t.Errorf("%s: the restored session's page differs from the original's", when)
		}
		if len(gotRegions) != len(wantRegions) {
			t.Fatalf("%s: %d regions, want %d", when, len(gotRegions), len(wantRegions))
		}
		for i := range wantRegions {
			if gotRegions[i] != wantRegions[i] {
				t.Errorf("%s: region %s differs", when, wantRegions[i].ID)
			}
		}
	}
	compare("restored")
	for i, next := range []func(s *play.Session) error{
		func(s *play.Session) error { return s.Fire(2) },
		func(s *play.Session) error { return s.SelectStep(-1) },
		func(s *play.Session) error { return s.StepWindow() },
	} {
		if err := next(orig); err != nil {
			t.Fatalf("next step %d on the original: %v", i+1, err)
		}
		if err := next(restored); err != nil {
			t.Fatalf("next step %d on the restored session: %v", i+1, err)
		}
		compare(fmt.Sprintf("after next step %d", i+1))
	}
}

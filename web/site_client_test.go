package web_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/windowlab/playground/internal/webtest"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/web"
	webplay "github.com/windowlab/playground/web/play"
	"github.com/windowlab/playground/web/simulate"
)

// TestPlayFloodFromOneAddress opens many playgrounds from address A through
// a trusted proxy: A keeps getting pages (its oldest are forgotten) but never
// holds more than its cap, and address B still gets one.
func TestPlayFloodFromOneAddress(t *testing.T) {
	store := play.NewStoreWithBounds(nil, 10, time.Hour).WithPerClient(4)
	proxies, _ := web.ParseTrustedProxies("127.0.0.1, ::1")
	s, err := web.New(web.Config{DatastarPath: webtest.BundlePath(t), TrustedProxies: proxies, Features: []web.Feature{simulate.API(), webplay.Playground(store)}}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	open := func(client string) int {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/play", nil)
		req.Header.Set("X-Forwarded-For", client)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	for i := range 30 {
		if status := open("198.51.100.1"); status != http.StatusOK {
			t.Fatalf("A's page %d: %d", i+1, status)
		}
	}
	if held := store.Held("198.51.100.1"); held > 4 {
		t.Errorf("A holds %d sessions, want at most 4", held)
	}
	if status := open("203.0.113.9"); status != http.StatusOK {
		t.Errorf("B's page after A's flood: %d, want 200", status)
	}
	if held := store.Held("203.0.113.9"); held != 1 {
		t.Errorf("B holds %d sessions, want 1", held)
	}
}

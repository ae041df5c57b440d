package simulate

import (
	"net/http/httptest"
	"testing"

	"github.com/windowlab/playground/internal/webtest"
	"github.com/windowlab/playground/web"
)

// newTestServer builds the site with the real bundle and the given features,
// serves it with httptest for the rest of the test, and returns the server,
// its base URL and its log.
func newTestServer(t testing.TB, features ...web.Feature) (*web.Server, string, *webtest.LogBuffer) {
	t.Helper()
	log, logs := webtest.Logger()
	s, err := web.New(web.Config{DatastarPath: webtest.BundlePath(t), Version: "test-version", Features: features}, log)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL, logs
}

package room

import (
	"io"
	"net/http"
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

// response is what get keeps of an HTTP response.
type response struct {
	status int
	header http.Header
	body   string
}

// get fetches url and fails the test if the request itself fails.
func get(t testing.TB, url string) response {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: res.StatusCode, header: res.Header, body: string(body)}
}

package web_test

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/room"
	weblessons "github.com/windowlab/playground/web/lessons"
	webplay "github.com/windowlab/playground/web/play"
	webroom "github.com/windowlab/playground/web/room"
)

// Every 405 the site gives names the methods that would work (RFC 9110
// requires Allow on a 405), and each method it names is not refused as
// not allowed. The routes are walked, so a route added later is covered.
func TestEvery405CarriesAllow(t *testing.T) {
	lib, set, err := weblessons.LoadLessons()
	if err != nil {
		t.Fatal(err)
	}
	rooms, err := room.New(room.NewMemStore(), room.Config{})
	if err != nil {
		t.Fatal(err)
	}
	sessions := play.NewStore(time.Now)
	rf := webroom.Rooms(rooms, sessions, lib)
	s, base, _ := newTestServer(t, webplay.Playground(sessions, rf), weblessons.Lessons(lib, set), rf)

	param := regexp.MustCompile(`\{[^}]*\}`)
	paths := map[string]bool{}
	if err := chi.Walk(s.Router(), func(_, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		paths[strings.TrimSuffix(param.ReplaceAllString(route, "x"), "/*")] = true
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	paths["/api/simulate"] = true // the reviewer's case, walked or not
	refused := 0
	for path := range paths {
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete} {
			status, allow := do(t, m, base+path)
			if status != http.StatusMethodNotAllowed {
				continue
			}
			refused++
			if allow == "" {
				t.Errorf("%s %s: 405 without an Allow header", m, path)
				continue
			}
			for _, a := range strings.Split(allow, ", ") {
				if a == m {
					t.Errorf("%s %s: 405 with Allow %q, which names the method refused", m, path, allow)
				} else if st, _ := do(t, a, base+path); st == http.StatusMethodNotAllowed {
					t.Errorf("%s %s: Allow %q, but %s is refused as not allowed too", m, path, allow, a)
				}
			}
		}
	}
	if refused == 0 {
		t.Fatal("no route refused a method; the walk found nothing to check")
	}
	if status, allow := do(t, http.MethodGet, base+"/api/simulate"); status != http.StatusMethodNotAllowed || !slices.Contains(strings.Split(allow, ", "), http.MethodPost) {
		t.Errorf("GET /api/simulate: status %d, Allow %q; want 405 with POST allowed", status, allow)
	}
}

func do(t *testing.T, method, url string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode, res.Header.Get("Allow")
}

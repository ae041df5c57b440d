package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/windowlab/playground/internal/webtest"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/web"
	webplay "github.com/windowlab/playground/web/play"
)

// TestOpenRoomFollowsThePlaygroundsPages drives openPlay and openRoom
// against a stand-in for the server's two pages.
func TestOpenRoomFollowsThePlaygroundsPages(t *testing.T) {
	tests := []struct {
		name      string
		page      string
		status    int
		location  string
		wantRoom  string
		wantError string
	}{
		{"a session", `<div id="play-stream" class="live-stream" data-session="s1" data-on-load="@get(&#39;/play/s1/stream&#39;)">`, http.StatusOK, "/room/r1/present", "/room/r1", ""},
		{"no session in the page", `<main>`, http.StatusOK, "/room/r1/present", "", "GET /play = 200, and no session in the page"},
		{"refused page", `<div id="play-stream" data-session="s1">`, http.StatusTooManyRequests, "/room/r1/present", "", "GET /play = 429"},
		{"no room made", `<div id="play-stream" data-session="s1">`, http.StatusOK, "/play/s1", "", `POST /play/s1/room = 303 (Location "/play/s1")`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mux := http.NewServeMux()
			mux.HandleFunc("GET /play", func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.page))
			})
			mux.HandleFunc("POST /play/s1/room", func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, tc.location, http.StatusSeeOther)
			})
			srv := httptest.NewServer(mux)
			defer srv.Close()
			client := srv.Client()
			client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
			got, err := openRoom(srv.URL, client)
			if tc.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantError) {
					t.Fatalf("openRoom = %q, %v; want an error containing %q", got, err, tc.wantError)
				}
				return
			}
			if err != nil || got != tc.wantRoom {
				t.Fatalf("openRoom = %q, %v; want %q", got, err, tc.wantRoom)
			}
		})
	}
}

// TestOpenPlayReadsTheServersPage opens /play on the server itself: the
// stand-in above once kept a page shape the server had stopped sending,
// and the tool found no stream in any real page.
func TestOpenPlayReadsTheServersPage(t *testing.T) {
	store := play.NewStore(nil)
	log, _ := webtest.Logger()
	s, err := web.New(web.Config{DatastarPath: webtest.BundlePath(t), Features: []web.Feature{webplay.Playground(store)}}, log)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	path, err := openPlay(srv.URL, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimSuffix(strings.TrimPrefix(path, "/play/"), "/stream")
	if _, err := store.Get(t.Context(), id); err != nil || path != "/play/"+id+"/stream" {
		t.Errorf("openPlay = %q: session %q: %v", path, id, err)
	}
}

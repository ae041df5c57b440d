package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestOpenRoomFollowsThePlaygroundsPages drives openPlay and openRoom
// against a stand-in for the server's two pages, in both of the ways the
// page may quote its stream's path.
func TestOpenRoomFollowsThePlaygroundsPages(t *testing.T) {
	tests := []struct {
		name      string
		page      string
		status    int
		location  string
		wantRoom  string
		wantError string
	}{
		{"escaped quotes", `<main data-init="@get(&#39;/play/s1/stream&#39;)">`, http.StatusOK, "/room/r1/present", "/room/r1", ""},
		{"plain quotes", `<main data-init="@get('/play/s1/stream')">`, http.StatusOK, "/room/r1/present", "/room/r1", ""},
		{"no stream in the page", `<main>`, http.StatusOK, "/room/r1/present", "", "GET /play = 200, and no stream path"},
		{"refused page", `<main data-init="@get('/play/s1/stream')">`, http.StatusTooManyRequests, "/room/r1/present", "", "GET /play = 429"},
		{"no room made", `<main data-init="@get('/play/s1/stream')">`, http.StatusOK, "/play/s1", "", `POST /play/s1/room = 303 (Location "/play/s1")`},
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

package web

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/windowlab/playground/play"
)

func TestClientAddress(t *testing.T) {
	proxies, err := ParseTrustedProxies("10.0.0.1, 192.168.0.0/16")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{trustedProxies: proxies}
	tests := []struct {
		remote, xff, want string
	}{
		{"203.0.113.5:4000", "", "203.0.113.5"},
		{"203.0.113.5:4000", "198.51.100.7", "203.0.113.5"}, // not from a proxy: the header is the client's word
		{"10.0.0.1:4000", "198.51.100.7", "198.51.100.7"},
		{"10.0.0.1:4000", "6.6.6.6, 198.51.100.7", "198.51.100.7"}, // the leftmost is the client's own claim
		{"10.0.0.1:4000", "198.51.100.7, 192.168.3.4", "198.51.100.7"},
		{"10.0.0.1:4000", "", "10.0.0.1"},
		{"10.0.0.1:4000", "nonsense", "10.0.0.1"},
		{"[::ffff:10.0.0.1]:4000", "198.51.100.7", "198.51.100.7"},
	}
	for i, tt := range tests {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = tt.remote
		if tt.xff != "" {
			r.Header.Set("X-Forwarded-For", tt.xff)
		}
		if got := s.ClientAddress(r); got != tt.want {
			t.Errorf("step %d: remote %s, X-Forwarded-For %q: client = %q, want %q", i+1, tt.remote, tt.xff, got, tt.want)
		}
	}
	if _, err := ParseTrustedProxies("10.0.0.1, proxy.local"); err == nil {
		t.Error(`ParseTrustedProxies("10.0.0.1, proxy.local") succeeded, want an error naming proxy.local`)
	}
}

// TestPlayFloodFromOneAddress opens many playgrounds from address A through
// a trusted proxy: A keeps getting pages (its oldest are forgotten) but never
// holds more than its cap, and address B still gets one.
func TestPlayFloodFromOneAddress(t *testing.T) {
	store := play.NewStoreWithBounds(nil, 10, time.Hour).WithPerClient(4)
	proxies, _ := ParseTrustedProxies("127.0.0.1, ::1")
	s, err := New(Config{DatastarPath: bundlePath(t), TrustedProxies: proxies, Features: []Feature{Playground(store)}}, slog.New(slog.DiscardHandler))
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

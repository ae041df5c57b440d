package web

import (
	"net/http"
	"net/http/httptest"
	"testing"
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

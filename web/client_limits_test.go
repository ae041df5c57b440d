package web

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestClientLimitsBuild: every Limit a feature may ask Admit about has its
// own limit, built from its constants; a Limit added without an entry in
// newClientLimits is nil here.
func TestClientLimitsBuild(t *testing.T) {
	l := newClientLimits(time.Now)
	for i, c := range l {
		if c == nil || c.cur.Load() == nil {
			t.Errorf("limit %d was not built", i)
		}
	}
}

// TestCapacityRetryAfterIsTheDecisionsRule: the server's own Retry-After
// for capacity is written by explain.RetryAfter, as a policy's is, so a
// wait under a second says 1 rather than 0 (an invitation to retry at
// once) and a fraction rounds up.
func TestCapacityRetryAfterIsTheDecisionsRule(t *testing.T) {
	s, _, _ := newTestServer(t)
	for _, tt := range []struct {
		wait time.Duration
		want string
	}{
		{500 * time.Millisecond, "1"},
		{1500 * time.Millisecond, "2"},
		{StreamRetryAfter, "10"},
		{PlaceRetryAfter, "60"},
	} {
		w := httptest.NewRecorder()
		s.NoteCapacity(w, httptest.NewRequest(http.MethodGet, "/", nil), tt.wait)
		if got := w.Header().Get("Retry-After"); got != tt.want {
			t.Errorf("wait %v: Retry-After %q, want %q", tt.wait, got, tt.want)
		}
	}
}

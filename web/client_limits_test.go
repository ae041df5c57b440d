package web

import "testing"

// TestClientLimitsBuild: every Limit a feature may ask Admit about has its
// own limit, built from its constants; a Limit added without an entry in
// newClientLimits is nil here.
func TestClientLimitsBuild(t *testing.T) {
	l := newClientLimits()
	for i, c := range l {
		if c == nil || c.cur.Load() == nil {
			t.Errorf("limit %d was not built", i)
		}
	}
}

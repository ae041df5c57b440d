package play_test

import (
	"testing"

	"github.com/windowlab/playground/internal/storetest"
	"github.com/windowlab/playground/play"
)

// TestStoreKeepsTheSessionsContract runs the contract every play.Sessions
// keeps against the in-memory Store, its replicas being handles from
// Store.Replica on one set of sessions.
func TestStoreKeepsTheSessionsContract(t *testing.T) {
	storetest.RunSessions(t, func(t *testing.T, b storetest.Bounds, n int) []play.Sessions {
		st := play.NewStoreWithBounds(b.Now, b.MaxSessions, b.Idle).WithPerClient(b.PerClient)
		hs := []play.Sessions{st}
		for len(hs) < n {
			hs = append(hs, st.Replica(b.Now))
		}
		return hs
	})
}

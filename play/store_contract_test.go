package play_test

import (
	"testing"

	"github.com/windowlab/playground/internal/storetest"
	"github.com/windowlab/playground/play"
)

// TestStoreKeepsTheSessionsContract runs the contract every play.Sessions
// keeps against the in-memory Store.
func TestStoreKeepsTheSessionsContract(t *testing.T) {
	storetest.RunSessions(t, func(t *testing.T, b storetest.Bounds) play.Sessions {
		return play.NewStoreWithBounds(b.Now, b.MaxSessions, b.Idle).WithPerClient(b.PerClient)
	})
}

package natsstore

import (
	"testing"

	"github.com/windowlab/playground/internal/storetest"
	"github.com/windowlab/playground/room"
)

// TestRoomsContract holds the NATS rooms to the contract the in-memory
// store passes, each handle on a connection of its own, as replicas would.
func TestRoomsContract(t *testing.T) {
	storetest.RunRooms(t, func(t *testing.T, n int) []room.Store {
		e := startServer(t, t.TempDir())
		hs := make([]room.Store, n)
		for i := range hs {
			hs[i] = openRooms(t, e)
		}
		return hs
	})
}

package room_test

import (
	"testing"

	"github.com/windowlab/playground/internal/storetest"
	"github.com/windowlab/playground/room"
)

// TestMemStoreKeepsTheRoomsContract runs the contract every room.Store
// keeps against MemStore; in one process, every replica's handle is the one
// store.
func TestMemStoreKeepsTheRoomsContract(t *testing.T) {
	storetest.RunRooms(t, func(t *testing.T, n int) []room.Store {
		st := room.NewMemStore()
		hs := make([]room.Store, n)
		for i := range hs {
			hs[i] = st
		}
		return hs
	})
}

package natsstore

import (
	"context"
	"testing"

	"github.com/windowlab/playground/internal/storetest"
	"github.com/windowlab/playground/play"
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

// TestSessionsContract holds the NATS sessions to the contract the
// in-memory store passes, each handle a replica on a connection of its
// own.
func TestSessionsContract(t *testing.T) {
	storetest.RunSessions(t, func(t *testing.T, b storetest.Bounds, n int) []play.Sessions {
		e := startServer(t, t.TempDir())
		hs := make([]play.Sessions, n)
		for i := range hs {
			nc, err := e.Connect()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(nc.Close)
			s, err := OpenSessions(context.Background(), nc, SessionsOptions{
				MaxSessions: b.MaxSessions, PerClient: b.PerClient, Idle: b.Idle, Now: b.Now, Memory: true,
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(s.Close)
			hs[i] = s
		}
		return hs
	})
}

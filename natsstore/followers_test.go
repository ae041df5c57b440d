package natsstore

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/windowlab/playground/room"
)

// A stream that ends while NATS is out of reach has ended all the same:
// the take-back is refused by the store but drops this replica's own
// count, so the first refresh once NATS is back says the streams still
// open, not the ones that ended during the outage. An added stream is
// refused then (it was never counted).
func TestFollowersTakenBackDuringAnOutage(t *testing.T) {
	ctx := context.Background()
	dir, addr := t.TempDir(), freePort(t)
	e, err := StartEmbedded(EmbeddedOptions{Dir: dir, Listen: addr})
	if err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(e.URL(), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	rooms, err := OpenRooms(ctx, nc, RoomsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g := Guard(nc).Rooms(rooms)
	if err := g.Create(ctx, newRoom(1), 10, 10); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	phone := room.Screens{Phones: 1}
	for range 3 {
		if _, err := g.Follow(ctx, "room-1", phone, at, nil); err != nil {
			t.Fatal(err)
		}
	}

	e.Close()
	waitConnected(t, nc, false) // the client sees its server's socket close
	if _, err := g.Follow(ctx, "room-1", phone.Neg(), at, nil); err == nil {
		t.Error("a take-back while NATS is down: nil error, want the store unreachable")
	}
	if _, err := g.Follow(ctx, "room-1", phone, at, nil); err == nil {
		t.Error("a new stream while NATS is down: admitted, want it refused")
	}

	back, err := StartEmbedded(EmbeddedOptions{Dir: dir, Listen: addr})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(back.Close)
	waitConnected(t, nc, true) // the client's own reconnection
	if got, err := g.Followers(ctx, "room-1", at); err != nil || got.Phones != 3 {
		t.Errorf("once NATS is back, before the refresh: %+v, %v; want the 3 phones last written", got, err)
	}
	if got, err := g.Follow(ctx, "room-1", room.Screens{}, at, nil); err != nil || got.Phones != 2 {
		t.Errorf("the first refresh once NATS is back: %+v, %v; want 2 phones (3, less the one that ended during the outage)", got, err)
	}
}

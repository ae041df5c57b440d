package natsstore

import (
	"context"
	"testing"
	"time"

	"github.com/windowlab/playground/room"
)

// A stream that ends while NATS is out of reach has ended all the same:
// the take-back is refused by the store but drops this replica's own
// count, so the first refresh once NATS is back says the streams still
// open, not the ones that ended during the outage. An added stream is
// refused then (it was never counted).
func TestFollowersTakenBackDuringAnOutage(t *testing.T) {
	ctx := context.Background()
	g, srv := guardedOutage(t)
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	phone := room.Screens{Phones: 1}
	for range 3 {
		if _, err := g.Follow(ctx, "room-1", phone, at, nil); err != nil {
			t.Fatal(err)
		}
	}

	srv.stop()
	if _, err := g.Follow(ctx, "room-1", phone.Neg(), at, nil); err == nil {
		t.Error("a take-back while NATS is down: nil error, want the store unreachable")
	}
	if _, err := g.Follow(ctx, "room-1", phone, at, nil); err == nil {
		t.Error("a new stream while NATS is down: admitted, want it refused")
	}

	srv.restart()
	if got, err := g.Followers(ctx, "room-1", at); err != nil || got.Phones != 3 {
		t.Errorf("once NATS is back, before the refresh: %+v, %v; want the 3 phones last written", got, err)
	}
	if got, err := g.Follow(ctx, "room-1", room.Screens{}, at, nil); err != nil || got.Phones != 2 {
		t.Errorf("the first refresh once NATS is back: %+v, %v; want 2 phones (3, less the one that ended during the outage)", got, err)
	}
}

package natsstore

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/windowlab/playground/internal/outage"
	"github.com/windowlab/playground/room"
)

// A guarded store answers "unreachable" (outage.ErrUnreachable) at once
// while its NATS server is gone, never "no such room"; once a server is
// back on the same files and address, the same handle works again.
func TestGuardedStoresSayUnreachable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
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

	e.Close()
	waitConnected(t, nc, false) // the client sees its server's socket close
	start := time.Now()
	_, err = g.Get(ctx, "room-1")
	if !outage.Is(err) || errors.Is(err, room.ErrNotFound) {
		t.Errorf("Get while NATS is down: %v, want an error wrapping outage.ErrUnreachable", err)
	}
	if _, err := g.Watch(ctx, "room-1"); !outage.Is(err) {
		t.Errorf("Watch while NATS is down: %v, want an error wrapping outage.ErrUnreachable", err)
	}
	if took := time.Since(start); took > CallTimeout {
		t.Errorf("the calls while NATS is down took %v, want them refused at once", took)
	}

	back, err := StartEmbedded(EmbeddedOptions{Dir: dir, Listen: addr})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(back.Close)
	waitConnected(t, nc, true) // the client's own reconnection
	if got, err := g.Get(ctx, "room-1"); err != nil || got.ID != "room-1" {
		t.Errorf("Get once NATS is back: %+v, %v; want the room", got, err)
	}
}

// waitConnected waits (polling the client, whose reconnection is a real
// socket's) until nc is connected or not, as want says.
func waitConnected(t *testing.T, nc *nats.Conn, want bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); (nc.Status() == nats.CONNECTED) != want; time.Sleep(10 * time.Millisecond) { // waits on the NATS client over a real socket
		if time.Now().After(deadline) {
			t.Fatalf("the NATS client is %v after 10 s, want connected = %v", nc.Status(), want)
		}
	}
}

package natsstore

import (
	"context"
	"errors"
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
	g, srv := guardedOutage(t)

	srv.stop()
	start := time.Now()
	_, err := g.Get(ctx, "room-1")
	if !outage.Is(err) || errors.Is(err, room.ErrNotFound) {
		t.Errorf("Get while NATS is down: %v, want an error wrapping outage.ErrUnreachable", err)
	}
	if _, err := g.Watch(ctx, "room-1"); !outage.Is(err) {
		t.Errorf("Watch while NATS is down: %v, want an error wrapping outage.ErrUnreachable", err)
	}
	if took := time.Since(start); took > CallTimeout {
		t.Errorf("the calls while NATS is down took %v, want them refused at once", took)
	}

	srv.restart()
	if got, err := g.Get(ctx, "room-1"); err != nil || got.ID != "room-1" {
		t.Errorf("Get once NATS is back: %+v, %v; want the room", got, err)
	}
}

// restartable is an embedded NATS server a test stops and starts again on the
// same files and address, and the client that reconnects to it.
type restartable struct {
	t         *testing.T
	dir, addr string
	e         *Embedded
	nc        *nats.Conn
}

// guardedOutage is a guarded room store, holding room-1, on a NATS server
// the test can stop and restart.
func guardedOutage(t *testing.T) (room.Store, *restartable) {
	t.Helper()
	o := &restartable{t: t, dir: t.TempDir(), addr: freePort(t)}
	var err error
	if o.e, err = StartEmbedded(EmbeddedOptions{Dir: o.dir, Listen: o.addr}); err != nil {
		t.Fatal(err)
	}
	if o.nc, err = nats.Connect(o.e.URL(), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(o.nc.Close)
	rooms, err := OpenRooms(context.Background(), o.nc, RoomsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g := Guard(o.nc).Rooms(rooms)
	if err := g.Create(context.Background(), newRoom(1), 10, 10); err != nil {
		t.Fatal(err)
	}
	return g, o
}

// stop closes the server and waits until the client sees it gone.
func (o *restartable) stop() {
	o.t.Helper()
	o.e.Close()
	waitConnected(o.t, o.nc, false) // the client sees its server's socket close
}

// restart starts a server on the same files and address and waits for
// the client's own reconnection.
func (o *restartable) restart() {
	o.t.Helper()
	back, err := StartEmbedded(EmbeddedOptions{Dir: o.dir, Listen: o.addr})
	if err != nil {
		o.t.Fatal(err)
	}
	o.t.Cleanup(back.Close)
	waitConnected(o.t, o.nc, true) // the client's own reconnection
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

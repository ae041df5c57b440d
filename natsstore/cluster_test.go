package natsstore

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/windowlab/playground/internal/outage"
	"github.com/windowlab/playground/room"
)

// freePort is a loopback address nothing listens on, for a cluster whose
// servers must name each other's addresses before any of them starts.
func freePort(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startCluster runs n embedded servers as one NATS cluster for the test's
// length, and returns them with the client URLs of all of them.
func startCluster(tb testing.TB, n int) ([]*Embedded, string) {
	tb.Helper()
	clusters, routes := make([]string, n), make([]string, n)
	for i := range n {
		clusters[i] = freePort(tb)
		routes[i] = "nats-route://" + clusters[i]
	}
	servers, urls := make([]*Embedded, n), make([]string, n)
	for i := range n {
		e, err := StartEmbedded(EmbeddedOptions{Dir: tb.TempDir(), Listen: "127.0.0.1:0", Name: fmt.Sprint("n", i+1), Cluster: clusters[i], Routes: routes})
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(e.Close)
		servers[i], urls[i] = e, e.URL()
	}
	return servers, strings.Join(urls, ",")
}

// startLone runs one embedded server listening on loopback, as
// `playground nats` does, and returns its URL.
func startLone(tb testing.TB) string {
	tb.Helper()
	e, err := StartEmbedded(EmbeddedOptions{Dir: tb.TempDir(), Listen: "127.0.0.1:0"})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(e.Close)
	return e.URL()
}

// connectReady connects to url and waits until JetStream answers there:
// on a cluster, once its servers have elected a leader.
func connectReady(tb testing.TB, url string) *nats.Conn {
	tb.Helper()
	nc, err := nats.Connect(url, nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		tb.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) { // waits on the servers electing a leader over real sockets
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := js.AccountInfo(ctx)
		cancel()
		if err == nil {
			return nc
		}
		if time.Now().After(deadline) {
			tb.Fatalf("JetStream did not answer within 30 s: %v", err)
		}
	}
}

// streamOf is the stream under a bucket: how many copies it keeps and the
// server leading it.
func streamOf(tb testing.TB, nc *nats.Conn, bucket string) *jetstream.StreamInfo {
	tb.Helper()
	js, err := jetstream.New(nc)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := js.Stream(ctx, "KV_"+bucket)
	if err != nil {
		tb.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	return info
}

// A lone server keeps one copy of each bucket; a cluster of three keeps
// three, so that the rooms outlive the server leading their bucket: the
// two left elect another, and a replica's next write and read go on as
// before on the same handle.
func TestClusterKeepsRoomsThroughTheLossOfAServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	lone := connectReady(t, startLone(t))
	if _, err := OpenRooms(ctx, lone, RoomsOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := streamOf(t, lone, "rooms").Config.Replicas; got != 1 {
		t.Errorf("on a lone server the rooms bucket keeps %d copies, want 1", got)
	}

	servers, url := startCluster(t, 3)
	nc := connectReady(t, url)
	s, err := OpenRooms(ctx, nc, RoomsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	info := streamOf(t, nc, "rooms")
	if info.Config.Replicas != 3 {
		t.Fatalf("on a cluster of three the rooms bucket keeps %d copies, want 3", info.Config.Replicas)
	}
	// Gets go to the leader, which also serves the watches: a replica
	// behind it would answer a get with the value before a change.
	if info.Config.AllowDirect {
		t.Error("the rooms bucket answers gets from any replica (AllowDirect), which may be behind its leader")
	}
	if err := s.Create(ctx, newRoom(1), 10, 10); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(ctx, "room-1", func(r *room.Room) error { r.Version = 1; return nil }); err != nil {
		t.Fatal(err)
	}

	leader := info.Cluster.Leader
	lost := time.Now()
	for _, e := range servers {
		if e.srv.Name() == leader {
			e.Close()
		}
	}
	t.Logf("stopped %s, the rooms bucket's leader", leader)
	// Update, what every action calls, is refused until the two left
	// have elected a leader (a few seconds at most); then it goes on.
	// Each try has the few seconds an action gives the store: a request
	// in flight on the lost server's connection has no answer to wait for.
	var r *room.Room
	for {
		actx, acancel := context.WithTimeout(ctx, 2*time.Second)
		r, err = s.Update(actx, "room-1", func(r *room.Room) error { r.Version++; return nil })
		acancel()
		if err == nil || ctx.Err() != nil {
			break
		}
		time.Sleep(50 * time.Millisecond) // waits on the two servers left electing a leader
	}
	if err != nil {
		t.Fatalf("after losing %s: Update = %v", leader, err)
	}
	t.Logf("the first write after the loss was kept %v after it", time.Since(lost).Round(time.Millisecond))
	if r.Version != 2 {
		t.Errorf("after losing %s the room is at version %d, want 2 (the write before the loss kept)", leader, r.Version)
	}
	if got, err := s.GetByCode(ctx, "C0001"); err != nil || got.Version != 2 {
		t.Errorf("after losing %s GetByCode = %+v, %v, want version 2", leader, got, err)
	}
	if now := streamOf(t, nc, "rooms").Cluster.Leader; now == leader || now == "" {
		t.Errorf("after losing %s the rooms bucket's leader is %q", leader, now)
	}
}

// BenchmarkRoomUpdate measures one Update of a room (a read and a
// revision-checked write, what every presenter's or phone's action costs
// the store) on a lone server and on a cluster of three, each over
// loopback TCP with its files on disk: the price of the two extra copies.
func BenchmarkRoomUpdate(b *testing.B) {
	for _, n := range []int{1, 3} {
		b.Run(fmt.Sprintf("servers=%d", n), func(b *testing.B) {
			url := ""
			if n == 1 {
				url = startLone(b)
			} else {
				_, url = startCluster(b, n)
			}
			nc := connectReady(b, url)
			ctx := context.Background()
			s, err := OpenRooms(ctx, nc, RoomsOptions{})
			if err != nil {
				b.Fatal(err)
			}
			if got := streamOf(b, nc, "rooms").Config.Replicas; got != n {
				b.Fatalf("%d copies, want %d", got, n)
			}
			if err := s.Create(ctx, newRoom(1), 10, 10); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := s.Update(ctx, "room-1", func(r *room.Room) error { r.Version++; return nil }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// What JetStream refuses while a cluster elects a leader is the store out
// of reach (503, the page retries), not a visitor's error nor an ended
// room; the stores' own errors pass as they are.
func TestGuardTakesJetStreamRefusalsForAnOutage(t *testing.T) {
	g := Guard(nil)
	election := fmt.Errorf("natsstore: reading a session: %w", &jetstream.APIError{Code: 503, ErrorCode: 10008, Description: "JetStream system temporarily unavailable"})
	if err := g.classify(context.Background(), election); !outage.Is(err) {
		t.Errorf("classify(%v) = %v, want it wrapping outage.ErrUnreachable", election, err)
	}
	for _, err := range []error{room.ErrNotFound, room.ErrFull, ErrTooLarge} {
		if got := g.classify(context.Background(), err); got != err {
			t.Errorf("classify(%v) = %v, want it as it was", err, got)
		}
	}
}

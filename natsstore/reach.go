package natsstore

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/windowlab/playground/internal/outage"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/room"
	"github.com/windowlab/playground/scenario"
)

// CallTimeout bounds one call of a guarded store (Guard): a store that
// answers in milliseconds when NATS is there must not hold a visitor's
// page for NATS's own 5 s request timeout when it is not. Pages make a few
// calls each, and the web answers within 2 s (docs/reliability.md).
const CallTimeout = time.Second

// Guarded are the stores over one NATS connection, each call failing fast
// and in words when NATS is out of reach: at once while the connection is
// down (nats.go reconnects behind it), else after CallTimeout, with an
// error wrapping outage.ErrUnreachable that the web answers with 503 and a
// sentence, never a 500 or "no such room".
type Guarded struct {
	nc *nats.Conn
	// quietUntil is when a call may wait on NATS again (Unix
	// nanoseconds): after one timed out, the calls of the next
	// CallTimeout fail at once, so a page making several calls still
	// answers within about CallTimeout when NATS hangs without closing
	// its connection.
	quietUntil *atomic.Int64
}

// Guard is the guard of stores over nc.
func Guard(nc *nats.Conn) Guarded { return Guarded{nc: nc, quietUntil: new(atomic.Int64)} }

// Rooms guards s.
func (g Guarded) Rooms(s room.Store) room.Store { return guardedRooms{g: g, s: s} }

// Sessions guards s; a store that holds sessions for rooms (HoldWith) is
// still told so through the guard.
func (g Guarded) Sessions(s play.Sessions) play.Sessions { return guardedSessions{g: g, s: s} }

// up is nil while the connection is up, else an unreachable error naming
// its state.
func (g Guarded) up() error {
	if st := g.nc.Status(); st != nats.CONNECTED {
		return outage.Wrap(fmt.Errorf("NATS connection %v", st))
	}
	if time.Now().UnixNano() < g.quietUntil.Load() {
		return outage.Wrap(errors.New("NATS timed out a moment ago"))
	}
	return nil
}

// call runs one store call under CallTimeout.
func (g Guarded) call(ctx context.Context, fn func(context.Context) error) error {
	if err := g.up(); err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, CallTimeout)
	defer cancel()
	return g.classify(ctx, fn(cctx))
}

// classify marks err as the store out of reach when it is a timeout (the
// call's own, not its caller's having gone) or a connection's failure.
func (g Guarded) classify(ctx context.Context, err error) error {
	if err == nil || ctx.Err() != nil || outage.Is(err) {
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) {
		g.quietUntil.Store(time.Now().Add(CallTimeout).UnixNano())
	}
	for _, e := range []error{context.DeadlineExceeded, nats.ErrTimeout, nats.ErrConnectionClosed, nats.ErrConnectionDraining,
		nats.ErrConnectionReconnecting, nats.ErrDisconnected, nats.ErrNoResponders, nats.ErrNoServers, nats.ErrStaleConnection,
		jetstream.ErrNoStreamResponse, jetstream.ErrServerShutdown, jetstream.ErrConnectionClosed, jetstream.ErrNoHeartbeat,
		jetstream.ErrJetStreamNotEnabled, jetstream.ErrConsumerLeadershipChanged} {
		if errors.Is(err, e) {
			return outage.Wrap(err)
		}
	}
	// What JetStream itself refuses (on a cluster: "temporarily
	// unavailable", a stream without a leader while the servers left
	// elect one) is the store's state, never the visitor's doing: the
	// stores turn the answers that mean something (a key absent or
	// taken) into their own errors before this sees them.
	if _, ok := errors.AsType[*jetstream.APIError](err); ok {
		return outage.Wrap(err)
	}
	return err
}

// watch starts a watch: its setup is bounded by CallTimeout, the watch
// itself lives as long as ctx.
func (g Guarded) watch(ctx context.Context, start func(context.Context) (<-chan struct{}, error)) (<-chan struct{}, error) {
	if err := g.up(); err != nil {
		return nil, err
	}
	wctx, cancel := context.WithCancel(ctx)
	timer := time.AfterFunc(CallTimeout, cancel)
	ch, err := start(wctx)
	if !timer.Stop() {
		// Too late: the setup was cancelled or would end at once.
		cancel()
		if err == nil {
			err = context.DeadlineExceeded
		}
		return nil, g.classify(ctx, err)
	}
	if err != nil {
		cancel()
		return nil, g.classify(ctx, err)
	}
	// wctx ends with ctx, as the watch does.
	return ch, nil
}

type guardedRooms struct {
	g Guarded
	s room.Store
}

var _ room.Store = guardedRooms{}

func (r guardedRooms) Create(ctx context.Context, rm *room.Room, limit, perOwner int) error {
	return r.g.call(ctx, func(ctx context.Context) error { return r.s.Create(ctx, rm, limit, perOwner) })
}

func (r guardedRooms) Get(ctx context.Context, id string) (rm *room.Room, err error) {
	err = r.g.call(ctx, func(ctx context.Context) error { rm, err = r.s.Get(ctx, id); return err })
	return rm, err
}

func (r guardedRooms) GetByCode(ctx context.Context, code string) (rm *room.Room, err error) {
	err = r.g.call(ctx, func(ctx context.Context) error { rm, err = r.s.GetByCode(ctx, code); return err })
	return rm, err
}

func (r guardedRooms) Update(ctx context.Context, id string, fn func(*room.Room) error) (rm *room.Room, err error) {
	err = r.g.call(ctx, func(ctx context.Context) error { rm, err = r.s.Update(ctx, id, fn); return err })
	return rm, err
}

func (r guardedRooms) Delete(ctx context.Context, id string) error {
	return r.g.call(ctx, func(ctx context.Context) error { return r.s.Delete(ctx, id) })
}

func (r guardedRooms) ShowingSession(ctx context.Context, session string) (ids []string, err error) {
	err = r.g.call(ctx, func(ctx context.Context) error { ids, err = r.s.ShowingSession(ctx, session); return err })
	return ids, err
}

func (r guardedRooms) DeleteIf(ctx context.Context, drop func(*room.Room) bool) (n int, err error) {
	err = r.g.call(ctx, func(ctx context.Context) error { n, err = r.s.DeleteIf(ctx, drop); return err })
	return n, err
}

func (r guardedRooms) Watch(ctx context.Context, id string) (<-chan struct{}, error) {
	return r.g.watch(ctx, func(ctx context.Context) (<-chan struct{}, error) { return r.s.Watch(ctx, id) })
}

// Follow refuses at once a stream that would be added while NATS is out
// of reach. One taken back is refused too, but still handed to the store
// (with a context already ended, so that it waits on nothing): the
// store's own count of this replica's streams drops whatever NATS says
// (Rooms.Follow), and its next refresh writes the streams still open.
func (r guardedRooms) Follow(ctx context.Context, id string, d room.Screens, now time.Time, fits func(room.Screens) error) (total room.Screens, err error) {
	if !d.Adds() {
		if down := r.g.up(); down != nil {
			gone, cancel := context.WithCancel(ctx)
			cancel()
			_, _ = r.s.Follow(gone, id, d, now, fits)
			return room.Screens{}, down
		}
	}
	err = r.g.call(ctx, func(ctx context.Context) error { total, err = r.s.Follow(ctx, id, d, now, fits); return err })
	return total, err
}

func (r guardedRooms) Followers(ctx context.Context, id string, now time.Time) (total room.Screens, err error) {
	err = r.g.call(ctx, func(ctx context.Context) error { total, err = r.s.Followers(ctx, id, now); return err })
	return total, err
}

type guardedSessions struct {
	g Guarded
	s play.Sessions
}

var _ play.Sessions = guardedSessions{}

func (s guardedSessions) NewFor(ctx context.Context, client string, sc scenario.Scenario) (sess *play.Session, err error) {
	err = s.g.call(ctx, func(ctx context.Context) error { sess, err = s.s.NewFor(ctx, client, sc); return err })
	return sess, err
}

func (s guardedSessions) Get(ctx context.Context, id string) (sess *play.Session, err error) {
	err = s.g.call(ctx, func(ctx context.Context) error { sess, err = s.s.Get(ctx, id); return err })
	return sess, err
}

func (s guardedSessions) Update(ctx context.Context, id string, fn func(*play.Session) error) (sess *play.Session, err error) {
	err = s.g.call(ctx, func(ctx context.Context) error { sess, err = s.s.Update(ctx, id, fn); return err })
	return sess, err
}

func (s guardedSessions) Watch(ctx context.Context, id string) (<-chan struct{}, error) {
	return s.g.watch(ctx, func(ctx context.Context) (<-chan struct{}, error) { return s.s.Watch(ctx, id) })
}

func (s guardedSessions) Touch(ctx context.Context, id string) error {
	return s.g.call(ctx, func(ctx context.Context) error { return s.s.Touch(ctx, id) })
}

// HoldWith passes the rooms' hold on to the guarded store.
func (s guardedSessions) HoldWith(held func(id string) bool) {
	if h, ok := s.s.(interface{ HoldWith(func(id string) bool) }); ok {
		h.HoldWith(held)
	}
}

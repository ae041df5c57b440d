package natsstore

import (
	"cmp"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// Embedded is a NATS server with JetStream running inside this process.
type Embedded struct {
	srv  *server.Server
	lock *dirLock
}

// EmbeddedOptions configure an embedded server.
type EmbeddedOptions struct {
	// Dir is where JetStream keeps its files. Required: a store that
	// forgets on restart is what -memory is for.
	Dir string
	// Listen is the host:port other processes connect to; "" serves this
	// process only (no socket is opened).
	Listen string
	// Name names the server among a cluster's (default "windowlab").
	Name string
	// Cluster is the host:port other servers of a NATS cluster connect
	// to, and Routes their cluster addresses (nats-route://host:port);
	// "" runs alone. A cluster of three keeps the buckets on all three
	// (see openBucket), so losing any one server loses nothing.
	Cluster string
	Routes  []string
}

// StartEmbedded starts a JetStream server under opts.Dir and waits until
// it accepts connections. It first takes the directory's lock, held until
// Close or the process's end: a directory another process holds is a
// *DirInUseError, before anything in it is read or written.
func StartEmbedded(opts EmbeddedOptions) (e *Embedded, err error) {
	if opts.Dir == "" {
		return nil, errors.New("natsstore: the embedded server needs a data directory")
	}
	lock, err := lockDir(opts.Dir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = lock.release()
		}
	}()
	so := &server.Options{
		ServerName: cmp.Or(opts.Name, "windowlab"),
		JetStream:  true,
		StoreDir:   opts.Dir,
		NoSigs:     true,
		NoLog:      true,
		DontListen: opts.Listen == "",
	}
	if opts.Listen != "" {
		host, port, err := splitHostPort(opts.Listen)
		if err != nil {
			return nil, err
		}
		so.Host, so.Port = host, anyPort(port)
	}
	if opts.Cluster != "" {
		if err := clusterOptions(so, opts); err != nil {
			return nil, err
		}
	}
	srv, err := server.NewServer(so)
	if err != nil {
		return nil, fmt.Errorf("natsstore: starting the embedded server: %w", err)
	}
	srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		srv.Shutdown()
		return nil, errors.New("natsstore: the embedded server did not start within 10 s")
	}
	return &Embedded{srv: srv, lock: lock}, nil
}

// Connect opens a connection to the embedded server, in process when it
// has no socket.
func (e *Embedded) Connect() (*nats.Conn, error) {
	if e.srv.Addr() == nil {
		return nats.Connect("", nats.InProcessServer(e.srv), nats.Name("windowlab"))
	}
	return nats.Connect(e.srv.ClientURL(), nats.Name("windowlab"))
}

// URL is where other processes reach the server ("" when it serves this
// process only).
func (e *Embedded) URL() string {
	if e.srv.Addr() == nil {
		return ""
	}
	return e.srv.ClientURL()
}

// Close shuts the server down and waits for it to stop, so that its files
// are consistent for the next start.
// The directory's lock is let go last, once no file is being written.
func (e *Embedded) Close() {
	e.srv.Shutdown()
	e.srv.WaitForShutdown()
	_ = e.lock.release()
}

// anyPort is port as the server reads it: to nats-server, 0 means its
// default port (4222, or 6222 for a cluster), and -1 any free one.
func anyPort(port int) int {
	if port == 0 {
		return server.RANDOM_PORT
	}
	return port
}

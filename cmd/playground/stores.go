package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/windowlab/playground/internal/cli"
	"github.com/windowlab/playground/natsstore"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/room"
)

// storeFlags choose where rooms and playground sessions live: an embedded NATS server with its
// files under -data (the default), an external NATS server (-nats, for
// several replicas), or this process's memory (-memory).
type storeFlags struct {
	memory *bool
	data   *string
	nats   *string
}

func addStoreFlags(fs *flag.FlagSet) storeFlags {
	return storeFlags{
		memory: fs.Bool("memory", false, "keep rooms and playground sessions in this process's memory only: a restart forgets them"),
		data:   fs.String("data", "", "directory of the embedded NATS server's files, where rooms and sessions outlive a restart (default: windowlab/nats under the user's cache directory)"),
		nats:   fs.String("nats", "", "URL of an external NATS server with JetStream (e.g. nats://127.0.0.1:4222), which several replicas of this server share; replaces the embedded one"),
	}
}

// stores are the opened stores and what closes them.
type stores struct {
	rooms    room.Store
	sessions play.Sessions
	where    string // said at start, so an operator knows what a restart keeps
	close    func()
}

// check refuses flags that contradict each other before anything starts.
func (f storeFlags) check() error {
	switch {
	case *f.memory && (*f.data != "" || *f.nats != ""):
		return errors.New("-memory keeps nothing on disk or in NATS: give it without -data and -nats")
	case *f.data != "" && *f.nats != "":
		return errors.New("-data is for the embedded NATS server and -nats replaces it: give one of them")
	}
	return nil
}

// open starts or connects to what the flags name.
func (f storeFlags) open(ctx context.Context) (stores, error) {
	if *f.memory {
		return stores{rooms: room.NewMemStore(), sessions: play.NewStore(time.Now), where: "in memory (-memory): a restart forgets them", close: func() {}}, nil
	}
	var (
		nc    *nats.Conn
		err   error
		where string
		stop  = func() {}
	)
	if *f.nats != "" {
		nc, err = nats.Connect(*f.nats, nats.Name("windowlab"), nats.MaxReconnects(-1))
		if err != nil {
			return stores{}, fmt.Errorf("-nats %s: %w", *f.nats, err)
		}
		where = "on NATS at " + *f.nats
	} else {
		dir := *f.data
		if dir == "" {
			if dir, err = defaultDataDir(); err != nil {
				return stores{}, err
			}
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return stores{}, fmt.Errorf("-data: %w", err)
		}
		emb, err := natsstore.StartEmbedded(natsstore.EmbeddedOptions{Dir: dir})
		if inUse := (*natsstore.DirInUseError)(nil); errors.As(err, &inUse) {
			// Starting twice on one directory is the user's to fix
			// (exit status 2), and the message says how.
			return stores{}, cli.Usage{Err: err}
		}
		if err != nil {
			return stores{}, err
		}
		if nc, err = emb.Connect(); err != nil {
			emb.Close()
			return stores{}, err
		}
		stop = emb.Close
		where = "in " + dir + " (embedded NATS)"
	}
	closeAll := func() { nc.Close(); stop() }
	openCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rooms, err := natsstore.OpenRooms(openCtx, nc, natsstore.RoomsOptions{})
	if err != nil {
		closeAll()
		return stores{}, err
	}
	sessions, err := natsstore.OpenSessions(openCtx, nc, natsstore.SessionsOptions{})
	if err != nil {
		closeAll()
		return stores{}, err
	}
	// Every call answers within about natsstore.CallTimeout, in words,
	// while NATS is out of reach (docs/reliability.md, "When the store is
	// unreachable").
	guard := natsstore.Guard(nc)
	return stores{rooms: guard.Rooms(rooms), sessions: guard.Sessions(sessions), where: where, close: func() { sessions.Close(); closeAll() }}, nil
}

// defaultDataDir is where the embedded server keeps its files when -data
// is not given: the user's cache directory, which every platform has.
func defaultDataDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no -data and no cache directory to keep rooms in (%w): give -data DIR or -memory", err)
	}
	return filepath.Join(base, "windowlab", "nats"), nil
}

// sayWhere tells the operator where rooms are kept.
func (s stores) sayWhere(w io.Writer) { fmt.Fprintf(w, "rooms and sessions kept %s\n", s.where) }

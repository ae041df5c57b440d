package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/windowlab/playground/internal/cli"
	"github.com/windowlab/playground/natsstore"
)

// runNATS runs the NATS server with JetStream that serve embeds, alone and
// listening, so that several replicas of serve (each with -nats) can share
// it without installing anything else; with -cluster and -routes, as one
// server of a NATS cluster (three of them keep every bucket three times).
func runNATS(ctx context.Context, args []string, stderr io.Writer) error {
	fs := newFlagSet("nats", "[flags]", "Run a NATS server with JetStream for several `playground serve -nats URL` replicas to share (the same server serve embeds by default).", stderr)
	listen := fs.String("listen", "127.0.0.1:4222", "host:port to listen on")
	data := fs.String("data", "", "directory of its files (default: windowlab/nats-shared under the user's cache directory)")
	name := fs.String("name", "", "this server's name, unique in a cluster (default windowlab)")
	cluster := fs.String("cluster", "", "host:port other servers of a cluster connect to (with -routes; default: run alone)")
	routes := fs.String("routes", "", "the other servers' -cluster addresses, comma-separated (nats-route://host:port,…)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return cli.Usage{Err: err}
	}
	if fs.NArg() > 0 {
		return usagef("nats takes no arguments, got %q", fs.Args())
	}
	dir := *data
	if dir == "" {
		base, err := defaultDataDir()
		if err != nil {
			return err
		}
		dir = base + "-shared"
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("-data: %w", err)
	}
	if (*cluster == "") != (*routes == "") {
		return usagef("-cluster and -routes go together: a cluster member listens for the others and names them")
	}
	var rs []string
	if *routes != "" {
		rs = strings.Split(*routes, ",")
	}
	e, err := natsstore.StartEmbedded(natsstore.EmbeddedOptions{Dir: dir, Listen: *listen, Name: *name, Cluster: *cluster, Routes: rs})
	if err != nil {
		return cli.Usage{Err: err}
	}
	defer e.Close()
	fmt.Fprintf(stderr, "nats listening on %s, files in %s\n", e.URL(), dir)
	<-ctx.Done()
	return nil
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/windowlab/playground/internal/cli"
	"github.com/windowlab/playground/onredis"
	"github.com/windowlab/playground/room"
	"github.com/windowlab/playground/web"
	weblessons "github.com/windowlab/playground/web/lessons"
	webplay "github.com/windowlab/playground/web/play"
	webroom "github.com/windowlab/playground/web/room"
	"github.com/windowlab/playground/web/simulate"
	webtraffic "github.com/windowlab/playground/web/traffic"
)

// shutdownTimeout bounds how long the server waits for requests in flight
// once asked to stop.
const shutdownTimeout = 10 * time.Second

// runServe starts the web server and runs it until ctx is done.
func runServe(ctx context.Context, args []string, stderr io.Writer) error {
	fs := newFlagSet("serve", "[flags]", "Start the web server (the default command; \"playground -h\" lists the others).", stderr)
	addr := fs.String("addr", ":8080", "address to listen on; without this flag, $PORT (if set) gives \":$PORT\"")
	bundle := fs.String("datastar", "", "path of a Datastar browser bundle to serve instead of the one built into the binary")
	publicURL := fs.String("public-url", "", "address attendees' devices reach this server at, for workshop join links and QR codes (e.g. http://192.168.1.20:8080); default: the address the page was opened at")
	storeFlags := addStoreFlags(fs)
	redisURL := fs.String("redis", "", "also decide every playground lane's requests through its policy's Redis script at this URL (redis://host:port/db), drawn under each lane; without it nothing needs Redis")
	proxies := fs.String("trusted-proxy", "", "comma-separated addresses or prefixes (10.0.0.1, 10.0.0.0/8) of reverse proxies whose X-Forwarded-For names the client; without it, X-Forwarded-For is ignored")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return cli.Usage{Err: err}
	}
	if fs.NArg() > 0 {
		return usagef("serve takes no arguments, got %q", fs.Args())
	}
	if *publicURL != "" {
		u, err := room.ParsePublicURL(*publicURL)
		if err != nil {
			return cli.Usage{Err: err}
		}
		*publicURL = u.String()
	}
	if err := storeFlags.check(); err != nil {
		return cli.Usage{Err: err}
	}
	var redisOpts *redis.Options
	if *redisURL != "" {
		var err error
		if redisOpts, err = parseRedisURL(*redisURL); err != nil {
			return err
		}
	}
	trusted, err := web.ParseTrustedProxies(*proxies)
	if err != nil {
		return usagef("-trusted-proxy: %v", err)
	}
	if !flagGiven(fs, "addr") {
		if port := os.Getenv("PORT"); port != "" {
			*addr = ":" + port
		}
	}

	log := slog.New(slog.NewTextHandler(stderr, nil))
	lib, set, err := weblessons.LoadLessons()
	if err != nil {
		return err
	}
	st, err := storeFlags.open(ctx)
	if err != nil {
		return err
	}
	// Closed after the HTTP server has stopped (defers run last first), so
	// no handler writes to a store that is gone.
	defer st.close()
	st.sayWhere(stderr)
	rooms, err := room.New(st.rooms, room.Config{})
	if err != nil {
		return err
	}
	// The rooms watch the playground's own actions (the undo checkpoint of
	// a session a room shows), so the playground is given them.
	roomsFeature := webroom.Rooms(rooms, st.sessions, lib)
	var playOpts webplay.Options
	if redisOpts != nil {
		rdb := serveRedis(ctx, redisOpts, stderr)
		// Closed after the HTTP server has stopped, as the store is.
		defer rdb.Close()
		playOpts.Redis = onredis.NewMirror(rdb, log)
	}
	// Bound before the site is built, so that its pages know which of the
	// machine's addresses it answers at (the projector's join address).
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	defer ln.Close() // Serve closes it too; this covers a failure before
	site, err := web.New(web.Config{DatastarPath: *bundle, Version: version(), PublicURL: *publicURL, TrustedProxies: trusted, Listen: ln.Addr(),
		Features: []web.Feature{simulate.API(), webtraffic.Feature(), webplay.PlaygroundWith(st.sessions, playOpts, roomsFeature), weblessons.Lessons(lib, set), roomsFeature}}, log)
	if err != nil {
		return err
	}
	ln = web.LimitConnsPerClient(ln, web.ConnsPerClient, trusted)
	// Every request's context derives from base; shutdown cancels it, so
	// scenario runs in flight stop within milliseconds instead of being
	// waited out.
	base, cancelRequests := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelRequests()
	srv := &http.Server{
		Handler:           site,
		BaseContext:       func(net.Listener) context.Context { return base },
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       15 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    web.MaxHeaderBytes,
		// No WriteTimeout: it would cut every Datastar SSE stream (the
		// playground's running clock) after that long. Streams end when the
		// client leaves or when the server shuts down (below).
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	// Shutdown waits for handlers to return, and a stream's handler returns
	// only when its context ends: EndStreams ends them all.
	srv.RegisterOnShutdown(site.EndStreams)
	srv.RegisterOnShutdown(cancelRequests)

	fmt.Fprintf(stderr, "playground listening on %s\n", displayURL(ln.Addr()))
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()

	select {
	case err := <-serveErr:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down", "timeout", shutdownTimeout)
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	if err := <-serveErr; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// flagGiven reports whether the flag was set on the command line.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			given = true
		}
	})
	return given
}

// displayURL is the address to open in a browser: localhost with the port
// actually bound (which differs from -addr when that asks for port 0).
func displayURL(addr net.Addr) string {
	host := "localhost"
	if tcp, ok := addr.(*net.TCPAddr); ok {
		if !tcp.IP.IsUnspecified() && !tcp.IP.IsLoopback() {
			host = tcp.IP.String()
		}
		return "http://" + net.JoinHostPort(host, fmt.Sprint(tcp.Port))
	}
	return "http://" + addr.String()
}

// version names the build: the short VCS revision Go stamps into binaries
// built from a checkout (with "+dirty" for uncommitted changes), else "dev".
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	var rev string
	var dirty bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "+dirty"
	}
	return rev
}

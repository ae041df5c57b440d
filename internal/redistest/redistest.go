// Package redistest runs tests against a real Redis: Debian's redis-server,
// started on a free loopback port with no persistence, one per Start, and
// stopped when the test ends.
//
//	func TestSomething(t *testing.T) {
//		srv := redistest.Start(t)
//		rdb := srv.Client(t)
//		...
//	}
//
// Without redis-server the test fails when the CI environment variable is
// "true" (CI installs it, so a green run there must mean Redis was tried)
// and is skipped elsewhere, with the command that installs it.
package redistest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// ExecPath is where Debian's redis-server package installs the server.
const ExecPath = "/usr/bin/redis-server"

// startTimeout bounds how long a server may take to answer its first PING.
const startTimeout = 10 * time.Second

// Server is one redis-server process.
type Server struct {
	Addr string // host:port on 127.0.0.1

	cmd    *exec.Cmd
	log    *bytes.Buffer
	once   sync.Once
	exited chan struct{}
}

// Start starts a redis-server for the rest of the test (or benchmark) and
// stops it in the test's cleanup. A free port is found by listening on
// port 0; another process may take it before redis-server binds it, so a
// server that fails to start is retried on a new port a few times.
func Start(tb testing.TB) *Server {
	tb.Helper()
	if _, err := os.Stat(ExecPath); err != nil {
		msg := fmt.Sprintf("redistest: redis-server is not installed at %s (install it with `apt-get install -y redis-server`): %v", ExecPath, err)
		if os.Getenv("CI") == "true" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	var last error
	for range 3 {
		srv, err := start(tb.TempDir())
		if err == nil {
			tb.Cleanup(srv.Stop)
			return srv
		}
		last = err
	}
	tb.Fatalf("redistest: %v", last)
	return nil
}

func start(dir string) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	cmd := exec.Command(ExecPath,
		"--port", strconv.Itoa(port),
		"--bind", "127.0.0.1",
		"--save", "",
		"--appendonly", "no",
		"--dir", dir,
		"--daemonize", "no",
		"--loglevel", "warning",
	)
	log := &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", ExecPath, err)
	}
	srv := &Server{Addr: addr, cmd: cmd, log: log, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(srv.exited)
	}()
	if err := srv.waitReady(); err != nil {
		srv.Stop()
		return nil, fmt.Errorf("redis-server on %s: %w\n%s", addr, err, log.String())
	}
	return srv, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	return port, l.Close()
}

func (s *Server) waitReady() error {
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	defer rdb.Close()
	deadline := time.Now().Add(startTimeout)
	for {
		select {
		case <-s.exited:
			return errors.New("exited before answering")
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		err := rdb.Ping(ctx).Err()
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no answer to PING within %s: %w", startTimeout, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Client returns a go-redis client of the server, closed when the test ends.
func (s *Server) Client(tb testing.TB) *redis.Client {
	tb.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr})
	tb.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// Stop kills the server and waits for it to exit. It may be called more
// than once, and mid-test, to see what a client does when Redis goes away.
func (s *Server) Stop() {
	s.once.Do(func() {
		_ = s.cmd.Process.Kill()
		<-s.exited
	})
}

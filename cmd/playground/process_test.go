package main

import (
	"context"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/windowlab/playground/internal/browsertest"
)

// The test binary doubles as the processes the multi-process tests run,
// so they need no separate build: with runEnv set it is the playground
// command given those arguments (serve, or nats for the server replicas
// share).
const (
	runEnv = "PLAYGROUND_TEST_RUN" // arguments, separated by argSep
	argSep = "\x1f"
)

func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv(runEnv); ok {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := run(ctx, strings.Split(args, argSep), os.Stdin, os.Stdout, os.Stderr)
		stop()
		os.Exit(exitCode(err, os.Stderr))
	}
	code := m.Run()
	browsertest.Close()
	os.Exit(code)
}

// process is one child process of a test: a playground server or a NATS
// server.
type process struct {
	cmd    *exec.Cmd
	stderr *lockedBuffer
	done   chan struct{}
}

// startChild runs the test binary with env set and waits until its
// standard error matches ready.
func startChild(t *testing.T, env, ready string) *process {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), env)
	p := &process{cmd: cmd, stderr: &lockedBuffer{}, done: make(chan struct{})}
	cmd.Stderr, cmd.Stdout = p.stderr, p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = cmd.Wait(); close(p.done) }()
	t.Cleanup(p.kill)
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(p.stderr.String(), ready) {
		select {
		case <-p.done:
			t.Fatalf("the child process exited before it was ready:\n%s", p.stderr)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the child process was not ready within 20 s:\n%s", p.stderr)
		}
	}
	return p
}

// startServer runs `playground serve` with args in a child process.
func startServer(t *testing.T, args ...string) *process {
	t.Helper()
	return startChild(t, runEnv+"="+strings.Join(append([]string{"serve"}, args...), argSep), "playground listening on")
}

// startNATS runs `playground nats` in a child process, listening on addr
// with its files under dir.
func startNATS(t *testing.T, addr, dir string) *process {
	t.Helper()
	return startChild(t, runEnv+"="+strings.Join([]string{"nats", "-listen", addr, "-data", dir}, argSep), "nats listening on")
}

// kill ends the process at once, as a crash or a power cut would: no
// shutdown, no flushing beyond what each write already did.
func (p *process) kill() {
	if p.cmd.Process != nil {
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
	}
	<-p.done
}

// freeAddr is a loopback address with a port nothing listens on, for a
// server that must come back on the same address after a restart.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// stop asks the process to shut down (SIGTERM, as a deploy or Ctrl-C
// would) and waits for it to exit.
func (p *process) stop() {
	if p.cmd.Process != nil {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
	}
	<-p.done
}

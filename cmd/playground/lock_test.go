package main

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// dirState is every file under dir with its size, modification time and
// contents' hash: what a second process must not change.
func dirState(t *testing.T, dir string) map[string]string {
	t.Helper()
	state := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		state[path] = fmt.Sprintf("%d %s %x", info.Size(), info.ModTime(), sha256.Sum256(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return state
}

// A second server on a -data directory another holds exits with status 2,
// naming the directory and the process holding it, and changes nothing
// there; the first goes on serving. Once the first dies (kill -9, no
// shutdown) the kernel has let the lock go and a new server starts.
func TestServeRefusesAHeldDataDirectory(t *testing.T) {
	dir := t.TempDir()
	addr := freeAddr(t)
	first := startServer(t, "-addr", addr, "-data", dir)
	// The first is stopped (SIGSTOP, its lock still held) while the second
	// tries, so that whatever changes in dir is the second's doing.
	if err := first.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	before := dirState(t, dir)

	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	second := exec.Command(self, "-test.run=^$")
	second.Env = append(os.Environ(), runEnv+"="+strings.Join([]string{"serve", "-addr", freeAddr(t), "-data", dir}, argSep))
	// Waits for the second process to exit, which it must do by itself.
	out, err := second.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("a second serve on the same -data: %v, want exit status 2; it said:\n%s", err, out)
	}
	holder := fmt.Sprintf("process %d ", first.cmd.Process.Pid)
	if !strings.Contains(string(out), dir) || !strings.Contains(string(out), holder) {
		t.Errorf("the second serve said %q, want it to name %s and %q", out, dir, holder)
	}
	if strings.Contains(string(out), "playground listening on") {
		t.Errorf("the second serve listened before refusing:\n%s", out)
	}
	after := dirState(t, dir)
	if err := first.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	for path, was := range before {
		if after[path] != was {
			t.Errorf("%s changed while the second serve tried to start: was %s, now %s", path, was, after[path])
		}
	}
	for path := range after {
		if _, ok := before[path]; !ok {
			t.Errorf("%s appeared while the second serve tried to start", path)
		}
	}
	resp, err := http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatalf("the first server after the refusal: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("the first server after the refusal answers / with %d, want 200", resp.StatusCode)
	}

	first.kill()
	startServer(t, "-addr", addr, "-data", dir)
}

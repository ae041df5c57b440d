package natsstore

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gofrs/flock"
)

// LockFile is the file in a data directory whose lock says which process
// owns the directory. The embedded NATS server does not lock its store
// directory, and two servers writing one directory each overwrite the
// other's streams: rooms and sessions are lost without a word.
const LockFile = "windowlab.lock"

// DirInUseError is the answer to a second process starting on a data
// directory another process holds.
type DirInUseError struct {
	Dir    string
	Holder string // what the holder wrote in the lock file: "process 1234 (playground serve …)", or "" when unreadable
}

func (e *DirInUseError) Error() string {
	who := "another process"
	if e.Holder != "" {
		who = e.Holder
	}
	return fmt.Sprintf("the data directory %s is in use by %s: one process keeps its rooms and sessions there, and a second one would overwrite them; "+
		"stop it, give this one another -data DIR, or share one store between several servers with `playground nats` and -nats URL (docs/replicas.md)", e.Dir, who)
}

// dirLock is the lock a process holds on its data directory for its life.
// It is an flock(2) lock, so the kernel releases it whenever the process
// ends, kill -9 included; the file itself stays, naming the last holder.
type dirLock struct{ fl *flock.Flock }

// lockDir takes dir's lock without waiting, or says who holds it.
func lockDir(dir string) (*dirLock, error) {
	path := filepath.Join(dir, LockFile)
	fl := flock.New(path, flock.SetPermissions(0o600))
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("natsstore: locking the data directory %s: %w", dir, err)
	}
	if !ok {
		return nil, &DirInUseError{Dir: dir, Holder: readHolder(path)}
	}
	// Say who holds it, for the next process that is refused. The lock is
	// on the file, not its contents, so rewriting them keeps it; a failure
	// only leaves the next refusal less precise.
	_ = os.WriteFile(path, []byte(holderLine()), 0o600)
	return &dirLock{fl: fl}, nil
}

// holderLine describes this process as the lock file keeps it.
func holderLine() string {
	return fmt.Sprintf("process %d (%s)\n", os.Getpid(), strings.Join(os.Args, " "))
}

// readHolder is the lock file's description of its holder, cut to one
// short line: it was written by another process, so it is not trusted to
// be short or printable.
func readHolder(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	s, _, _ := strings.Cut(string(b), "\n")
	s = strings.Map(func(r rune) rune {
		if !strconv.IsPrint(r) {
			return -1
		}
		return r
	}, s)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// release lets the directory go (at most once).
func (l *dirLock) release() error {
	if l == nil {
		return nil
	}
	return l.fl.Unlock()
}

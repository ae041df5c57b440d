package web

import (
	"testing"
	"time"
)

func TestRunWorkShares(t *testing.T) {
	l := newRunLimiter(2, time.Now)
	var releases []func()
	for i := range 2 {
		release, ok := l.tryAcquire(MaxRunWork)
		if !ok {
			t.Fatalf("worst-case run %d of 2 refused by a 2-slot limiter", i+1)
		}
		releases = append(releases, release)
	}
	if _, ok := l.tryAcquire(1); ok {
		t.Error("a third run admitted while two worst-case runs fill both slots")
	}
	releases[0]()
	for i := range runShares {
		if _, ok := l.tryAcquire(10); !ok {
			t.Fatalf("small run %d of %d refused in a free slot", i+1, runShares)
		}
	}
	if _, ok := l.tryAcquire(10); ok {
		t.Errorf("small run %d admitted: each takes at least 1/%d of a slot", runShares+1, runShares)
	}
}

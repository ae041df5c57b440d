package scenario

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// countdown is a context that turns cancelled after its Err has been asked
// a number of times: it tells how often RunContext looks.
type countdown struct {
	context.Context
	left int
}

func (c *countdown) Err() error {
	if c.left == 0 {
		return context.Canceled
	}
	c.left--
	return nil
}

func TestRunContextStopsWhenCancelled(t *testing.T) {
	s := WorstCase()
	for i := range s.Policies {
		s.Policies[i].Name = "fixed-window" // the same looks, faster
	}
	decisions := MaxRequests * MaxPolicies
	for _, looks := range []int{0, 1, 5, decisions/checkEvery - 1} {
		ctx := &countdown{Context: context.Background(), left: looks}
		res, err := RunContext(ctx, s)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled after %d looks: err = %v, want context.Canceled", looks, err)
		}
		if len(res.Results) != 0 {
			t.Errorf("cancelled after %d looks: %d policy results, want none", looks, len(res.Results))
		}
	}
	// Enough looks for every decision: the run completes.
	ctx := &countdown{Context: context.Background(), left: decisions/checkEvery + MaxPolicies}
	if _, err := RunContext(ctx, s); err != nil {
		t.Errorf("with a look to spare for every %d decisions: %v", checkEvery, err)
	}
}

// TestRunContextStopsSoon cancels a worst-case run early and times how long
// it takes to return. Issue 8 asks for about 10 ms, which an idle machine
// meets (a look every 64 decisions); the bound here is far looser because
// the test shares two cores with other builds under the race detector,
// yet still far below the seconds the whole run takes there.
func TestRunContextStopsSoon(t *testing.T) {
	s := WorstCase()
	base, cancel := context.WithCancel(context.Background())
	// Cancelled once the run has looked at its context: it is running.
	ctx := &firstLook{Context: base, looked: make(chan struct{})}
	done := make(chan time.Time)
	go func() {
		_, _ = RunContext(ctx, s)
		done <- time.Now()
	}()
	<-ctx.looked
	cancel()
	cancelled := time.Now()
	select {
	case returned := <-done:
		if took := returned.Sub(cancelled); took > time.Second {
			t.Errorf("RunContext returned %v after its context was cancelled, want well under a second", took)
		} else {
			t.Logf("returned %v after cancellation", took)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("RunContext still running 5 s after its context was cancelled")
	}
}

// firstLook is a context that says when it is first asked whether it is
// done.
type firstLook struct {
	context.Context
	once   sync.Once
	looked chan struct{}
}

func (c *firstLook) Err() error {
	c.once.Do(func() { close(c.looked) })
	return c.Context.Err()
}

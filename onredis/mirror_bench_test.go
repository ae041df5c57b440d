package onredis

import (
	"context"
	"fmt"
	"testing"

	"github.com/windowlab/playground/scenario"
)

// everyPolicy is n requests of one client, 100 ms apart, in every policy's
// lane.
func everyPolicy(n int) scenario.Scenario {
	s := carPark(0)
	for i := range n {
		s.Requests = append(s.Requests, scenario.Request{At: int64(i) * 100, Key: "k", Cost: 1, Count: 1})
	}
	return s
}

// BenchmarkMirrorFirstReplay is a session's first replay at the bound:
// MaxRequests requests in every lane with a Redis form.
func BenchmarkMirrorFirstReplay(b *testing.B) {
	m, _, _ := newMirror(b)
	s := everyPolicy(MaxRequests)
	ctx := context.Background()
	m.Replay(ctx, "warm", 1, s) // the scripts loaded
	i := 0
	for b.Loop() {
		i++
		m.Replay(ctx, fmt.Sprint("s", i), 1, s)
	}
}

// BenchmarkMirrorFiredRequest is one request appended to a session of a
// few hundred: the continuation a fire costs.
func BenchmarkMirrorFiredRequest(b *testing.B) {
	m, _, _ := newMirror(b)
	ctx := context.Background()
	s := everyPolicy(300)
	rev := uint64(1)
	m.Replay(ctx, "a", rev, s)
	for b.Loop() {
		rev++
		if len(s.Requests) == MaxRequests {
			s = everyPolicy(300) // afresh, outside the bound
			b.StopTimer()
			m.Replay(ctx, "a", rev, s)
			b.StartTimer()
			rev++
		}
		s.Requests = append(s.Requests, scenario.Request{At: int64(len(s.Requests)) * 100, Key: "k", Cost: 1, Count: 1})
		m.Replay(ctx, "a", rev, s)
	}
}

// BenchmarkMirrorShownAgain is an update of a session whose scenario has
// not changed (its clock moved): no call to Redis.
func BenchmarkMirrorShownAgain(b *testing.B) {
	m, _, _ := newMirror(b)
	ctx := context.Background()
	s := everyPolicy(MaxRequests)
	m.Replay(ctx, "a", 1, s)
	for b.Loop() {
		m.Replay(ctx, "a", 1, s)
	}
}

package play

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/windowlab/playground/internal/webtest"
	"github.com/windowlab/playground/play"
)

// watchers is how many pages follow the benchmark's one session: a large
// workshop with every attendee's phone on the presenter's shared link.
const watchers = 1000

// BenchmarkPlayWatchers opens watchers gzip streams of one car-park session
// (in process: the site's handler writing into counting writers, no TCP, no
// browser) and measures one update, a 100 ms step of the clock, reaching
// every one of them. ns/op is wall time, which includes a quiet wait of
// watchersQuiet once every stream has written (a stream's update is several
// writes; the wait lets the last land). cpu-ns/op is the process's user and
// system time (getrusage), the cost on a shared machine; B/op counts every
// goroutine's allocations. heap-B/stream is the heap the open, idle streams
// retain, per stream; stack-B/stream their goroutines' stacks.
func BenchmarkPlayWatchers(b *testing.B) {
	store := play.NewStore(nil)
	s, _, _ := newTestServer(b, Playground(store))
	sess := webtest.CarParkSession(b, store, 40)

	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var fl flushes
	ws := make([]*countingStream, watchers)
	for i := range ws {
		ws[i] = &countingStream{header: http.Header{}, flushes: &fl}
		r := httptest.NewRequestWithContext(ctx, http.MethodGet, "/play/"+sess.ID()+"/stream", nil)
		r.Header.Set("Accept-Encoding", "gzip")
		// Addresses of their own: one address holds at most
		// web.StreamsPerClient streams.
		r.RemoteAddr = fmt.Sprintf("10.1.%d.%d:4000", i/250, i%250+1)
		wg.Go(func() { s.ServeHTTP(ws[i], r) })
	}
	b.Cleanup(func() { cancel(); wg.Wait() })
	fl.wait(b, watchers, 0)
	quiet(&fl)

	var open runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&open)

	cpu0 := cpuTime()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		fl.round.Store(int64(i + 1))
		if err := sess.Do(func(s *play.Session) error { return s.Step(100) }); err != nil {
			b.Fatal(err)
		}
		fl.wait(b, watchers, int64(i+1))
		quiet(&fl)
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
	// After the loop: ResetTimer drops metrics reported before it.
	b.ReportMetric(float64(int64(open.HeapAlloc)-int64(before.HeapAlloc))/watchers, "heap-B/stream")
	b.ReportMetric(float64(int64(open.StackInuse)-int64(before.StackInuse))/watchers, "stack-B/stream")
	for i, w := range ws {
		if w.status != http.StatusOK || w.header.Get("Content-Encoding") != "gzip" {
			b.Fatalf("watcher %d: status %d, Content-Encoding %q, want 200 and gzip", i, w.status, w.header.Get("Content-Encoding"))
		}
	}
}

// watchersQuiet is how long no stream may write before an update counts as
// delivered.
const watchersQuiet = 30 * time.Millisecond

// quiet waits until no stream has written for watchersQuiet.
func quiet(fl *flushes) {
	for {
		n := fl.writes.Load()
		time.Sleep(watchersQuiet) // waits on real streams writing over real sockets (a benchmark)
		if fl.writes.Load() == n {
			return
		}
	}
}

func cpuTime() time.Duration {
	var u syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// flushes counts, across the streams, those that have flushed data since
// update number round began.
type flushes struct {
	round  atomic.Int64 // the update being waited for
	done   atomic.Int64 // streams that flushed data in round
	writes atomic.Int64 // every Write of every stream
}

// wait returns once n streams have flushed data in round.
func (f *flushes) wait(b *testing.B, n int, round int64) {
	b.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for f.done.Load() < int64(n)*(round+1) {
		if time.Now().After(deadline) {
			b.Fatalf("update %d: %d of %d streams wrote it", round, f.done.Load()-int64(n)*round, n)
		}
		time.Sleep(time.Millisecond) // waits on real streams writing over real sockets (a benchmark)
	}
}

// countingStream is an http.ResponseWriter and Flusher that keeps nothing
// of what is written but how much.
type countingStream struct {
	header  http.Header
	status  int
	flushes *flushes
	mu      sync.Mutex
	pending bool  // written since the last flush
	seen    int64 // the last round this stream flushed data in, plus one
}

func (c *countingStream) Header() http.Header { return c.header }

func (c *countingStream) WriteHeader(status int) {
	if c.status == 0 {
		c.status = status
	}
}

func (c *countingStream) Write(p []byte) (int, error) {
	c.WriteHeader(http.StatusOK)
	c.flushes.writes.Add(1)
	c.mu.Lock()
	c.pending = c.pending || len(p) > 0
	c.mu.Unlock()
	return len(p), nil
}

func (c *countingStream) Flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.pending {
		return
	}
	c.pending = false
	if r := c.flushes.round.Load(); c.seen <= r {
		c.seen = r + 1
		c.flushes.done.Add(1)
	}
}

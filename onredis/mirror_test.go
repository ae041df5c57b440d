package onredis

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/windowlab/playground/internal/redistest"
	"github.com/windowlab/playground/limiter"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// carPark is the seeds' car park (cars at 0, 5, 5, 15, 15, 25, 35, 40,
// 40, 40 s), its first n requests, in every policy the registry lists.
func carPark(n int) scenario.Scenario {
	s := scenario.Scenario{Limit: 5, WindowMs: 30_000}
	for _, name := range policies.Names {
		s.Policies = append(s.Policies, scenario.PolicySpec{Name: name})
	}
	for _, sec := range []int64{0, 5, 5, 15, 15, 25, 35, 40, 40, 40}[:n] {
		s.Requests = append(s.Requests, scenario.Request{At: sec * 1000, Key: "car-park", Cost: 1, Count: 1})
	}
	return s
}

// evalCalls is how many scripts Redis has run to the end (EVALSHA and EVAL)
// since it started: an EVALSHA answered NOSCRIPT is not one.
func evalCalls(t *testing.T, rdb *redis.Client) int {
	t.Helper()
	info, err := rdb.Info(context.Background(), "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range regexp.MustCompile(`cmdstat_eval(?:sha)?:calls=(\d+),.*rejected_calls=(\d+),failed_calls=(\d+)`).FindAllStringSubmatch(info, -1) {
		calls, _ := strconv.Atoi(m[1])
		rejected, _ := strconv.Atoi(m[2])
		failed, _ := strconv.Atoi(m[3])
		n += calls - rejected - failed
	}
	return n
}

// checkAgrees fails unless every lane of got was decided on Redis through
// its first through requests with no difference from Go, except the lanes
// whose policy has no Redis form, which say so.
func checkAgrees(t *testing.T, step string, s scenario.Scenario, got *Replayed, through int) {
	t.Helper()
	if len(got.Lanes) != len(s.Specs()) {
		t.Fatalf("%s: %d lanes, want %d", step, len(got.Lanes), len(s.Specs()))
	}
	for i, spec := range s.Specs() {
		l := got.Lane(i)
		if !slices.Contains(limiter.RedisNames(), spec.Name) {
			if !strings.HasPrefix(l.Status(), "Redis: no Redis form (") {
				t.Errorf("%s: lane %s without a Redis form says %q", step, spec.Name, l.Status())
			}
			continue
		}
		if l.Unavailable != "" || l.Skipped != "" {
			t.Errorf("%s: lane %s: %q, want it decided", step, spec.Name, l.Status())
			continue
		}
		if l.Through != through || l.Compared.Decided != through || len(l.Compared.Differences) != 0 {
			t.Errorf("%s: lane %s: through %d, decided %d, %d differences; want %d, %d, 0 (%s)", step, spec.Name,
				l.Through, l.Compared.Decided, len(l.Compared.Differences), through, through, l.Status())
		}
		if want := fmt.Sprintf("Redis: %d decisions, all as in Go.", through); l.Status() != want {
			t.Errorf("%s: lane %s says %q, want %q", step, spec.Name, l.Status(), want)
		}
	}
}

func newMirror(t testing.TB) (*Mirror, *redis.Client, *redistest.Server) {
	t.Helper()
	srv := redistest.Start(t)
	rdb := srv.Client(t)
	return NewMirror(rdb, slog.New(slog.DiscardHandler)), rdb, srv
}

// A session decided on Redis agrees with Go; appending requests continues
// the replay (only the new requests are sent), the same revision asks
// Redis nothing, and another scenario starts afresh under a new prefix,
// deleting the old one's keys.
func TestMirrorAgreesAndContinues(t *testing.T) {
	m, rdb, _ := newMirror(t)
	ctx := context.Background()
	forms := len(limiter.RedisNames())

	s := carPark(5)
	checkAgrees(t, "step 1", s, m.Replay(ctx, "a", 1, s), 5)
	calls := evalCalls(t, rdb)
	if calls != 5*forms {
		t.Errorf("step 1: %d scripts run, want %d (5 requests × %d forms)", calls, 5*forms, forms)
	}

	checkAgrees(t, "step 2", s, m.Replay(ctx, "a", 1, s), 5)
	if got := evalCalls(t, rdb); got != calls {
		t.Errorf("step 2: the same revision ran %d scripts, want none", got-calls)
	}

	s = carPark(10)
	checkAgrees(t, "step 3", s, m.Replay(ctx, "a", 2, s), 10)
	if got := evalCalls(t, rdb) - calls; got != 5*forms {
		t.Errorf("step 3: appending 5 requests ran %d scripts, want %d", got, 5*forms)
	}
	keys, err := rdb.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}

	s.Limit = 3 // not an append: decided afresh
	checkAgrees(t, "step 4", s, m.Replay(ctx, "a", 3, s), 10)
	after, err := rdb.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if slices.Contains(after, k) {
			t.Errorf("step 4: the earlier replay's key %s is left", k)
		}
	}
	if len(after) != forms+1 {
		t.Errorf("step 4: Redis holds %d keys %v, want %d (one per form and the marker)", len(after), after, forms+1)
	}
}

// Redis that lost the session's keys (restarted, flushed) is noticed, and
// the session replayed afresh: no false difference.
func TestMirrorReplaysAfreshWhenRedisForgot(t *testing.T) {
	m, rdb, _ := newMirror(t)
	ctx := context.Background()
	s := carPark(5)
	checkAgrees(t, "before", s, m.Replay(ctx, "a", 1, s), 5)
	if err := rdb.FlushAll(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	s = carPark(10)
	checkAgrees(t, "after FLUSHALL", s, m.Replay(ctx, "a", 2, s), 10)
}

// Redis deciding otherwise than Go is a difference at that request, with
// both decisions in words. Here the lane's key is deleted behind the
// mirror's back, so Redis admits the sixth car, which Go's fixed window
// (five in 30 s) refuses.
func TestMirrorMarksADifference(t *testing.T) {
	m, rdb, _ := newMirror(t)
	ctx := context.Background()
	s := carPark(5)
	s.Policies = []scenario.PolicySpec{{Name: policies.FixedWindow}}
	checkAgrees(t, "before", s, m.Replay(ctx, "a", 1, s), 5)
	keys, err := rdb.Keys(ctx, "*{car-park}").Result()
	if err != nil || len(keys) != 1 {
		t.Fatalf("the lane's key: %v %v", keys, err)
	}
	if err := rdb.Del(ctx, keys...).Err(); err != nil {
		t.Fatal(err)
	}
	s.Requests = carPark(6).Requests
	l := m.Replay(ctx, "a", 2, s).Lane(0)
	d, ok := l.Differs(5)
	if !ok || len(l.Compared.Differences) != 1 {
		t.Fatalf("differences %+v, want request 6 alone", l.Compared.Differences)
	}
	if !d.Redis.Allowed || d.Go.Allowed {
		t.Errorf("request 6: Redis allowed = %v, Go allowed = %v; want true, false", d.Redis.Allowed, d.Go.Allowed)
	}
	if _, ok := l.Differs(4); ok {
		t.Errorf("request 5 is marked as a difference")
	}
	want := "Redis: 1 of 6 decisions differ from Go's; first, request 6 (at 25 s, key car-park): Redis admitted at estimate 0, Go refused, retry after 5 s at estimate 5."
	if l.Status() != want {
		t.Errorf("status %q\nwant   %q", l.Status(), want)
	}
}

// When Redis goes away every lane says so in words (without the server's
// address), a revision already shown stays as it was, and no session asks
// Redis again for RetryAfter: the client's dials are counted.
func TestMirrorUnavailableAfterTheServerStops(t *testing.T) {
	srv := redistest.Start(t)
	var dials atomic.Int32
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, MaxRetries: -1, DialerRetries: 1,
		Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			dials.Add(1)
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		}})
	t.Cleanup(func() { _ = rdb.Close() })
	m := NewMirror(rdb, slog.New(slog.DiscardHandler))
	ctx := context.Background()
	s := carPark(5)
	checkAgrees(t, "before", s, m.Replay(ctx, "a", 1, s), 5)
	srv.Stop()
	checkAgrees(t, "the same revision", s, m.Replay(ctx, "a", 1, s), 5)

	s = carPark(6)
	got := m.Replay(ctx, "a", 2, s)
	for i := range s.Specs() {
		l := got.Lane(i)
		if !strings.HasPrefix(l.Status(), "Redis unavailable: the server cannot reach Redis") {
			t.Errorf("lane %d says %q, want Redis unavailable", i, l.Status())
		}
		if strings.Contains(l.Status(), srv.Addr) {
			t.Errorf("lane %d names Redis's address: %q", i, l.Status())
		}
		if l.Replayed(0) {
			t.Errorf("lane %d: request 1 counts as replayed while Redis is unavailable", i)
		}
	}
	before := dials.Load()
	other := m.Replay(ctx, "b", 1, s)
	if got := dials.Load() - before; got != 0 {
		t.Errorf("within RetryAfter, another session dialled Redis %d times, want 0", got)
	}
	if l := other.Lane(0); l.Unavailable != got.Lane(0).Unavailable {
		t.Errorf("the other session says %q, want %q", l.Status(), got.Lane(0).Status())
	}
}

// The bounds: a lane replays at most MaxRequests requests and says so; the
// mirror keeps at most MaxSessions sessions, deleting the keys of the one
// it forgets.
func TestMirrorBounds(t *testing.T) {
	m, rdb, _ := newMirror(t)
	ctx := context.Background()
	s := scenario.Scenario{Limit: 5, WindowMs: 30_000, Policies: []scenario.PolicySpec{{Name: policies.FixedWindow}},
		Requests: []scenario.Request{{At: 0, Key: "k", Cost: 1, Count: MaxRequests - 1}, {At: 1000, Key: "k", Cost: 1, Count: 6}}}
	l := m.Replay(ctx, "big", 1, s).Lane(0)
	if l.Through != MaxRequests || l.Total != MaxRequests+5 || l.Compared.Decided != MaxRequests {
		t.Errorf("through %d, total %d, decided %d; want %d, %d, %d", l.Through, l.Total, l.Compared.Decided, MaxRequests, MaxRequests+5, MaxRequests)
	}
	if !l.Replayed(MaxRequests-1) || l.Replayed(MaxRequests) {
		t.Errorf("replayed(%d) = %v, replayed(%d) = %v; want true, false", MaxRequests-1, l.Replayed(MaxRequests-1), MaxRequests, l.Replayed(MaxRequests))
	}
	if want := fmt.Sprintf("Requests after the first %d are not replayed on Redis", MaxRequests); !strings.Contains(l.Status(), want) {
		t.Errorf("status %q does not say %q", l.Status(), want)
	}

	small := carPark(1)
	small.Policies = s.Policies
	for i := range MaxSessions - 1 {
		m.Replay(ctx, fmt.Sprint("s", i), 1, small)
	}
	if n := m.Sessions(); n != MaxSessions {
		t.Fatalf("%d sessions kept, want %d", n, MaxSessions)
	}
	// "big" was shown least recently: the next session pushes it out.
	bigKeys, err := rdb.Keys(ctx, "*{k}").Result()
	if err != nil || len(bigKeys) != 1 {
		t.Fatalf("big's key: %v %v", bigKeys, err)
	}
	m.Replay(ctx, "one more", 1, small)
	if n := m.Sessions(); n != MaxSessions {
		t.Errorf("%d sessions kept, want %d", n, MaxSessions)
	}
	if n, err := rdb.Exists(ctx, bigKeys...).Result(); err != nil || n != 0 {
		t.Errorf("the forgotten session's key is left (exists %d, %v)", n, err)
	}
}

// A lane keeps at most MaxDifferences differences: its replay stops at the
// last, says so, and stays stopped as requests are appended. Here Redis's
// count is set to the limit behind the mirror's back, so Redis refuses
// every later request that Go admits.
func TestMirrorStopsAtMaxDifferences(t *testing.T) {
	m, rdb, _ := newMirror(t)
	ctx := context.Background()
	s := scenario.Scenario{Limit: 200, WindowMs: 30_000, Policies: []scenario.PolicySpec{{Name: policies.FixedWindow}},
		Requests: []scenario.Request{{At: 0, Key: "k", Cost: 1, Count: 1}}}
	m.Replay(ctx, "a", 1, s)
	keys, err := rdb.Keys(ctx, "*{k}").Result()
	if err != nil || len(keys) != 1 {
		t.Fatalf("the lane's key: %v %v", keys, err)
	}
	if err := rdb.Set(ctx, keys[0], "0 200", redis.KeepTTL).Err(); err != nil {
		t.Fatal(err)
	}
	for step, n := range []int{120, 150} {
		s.Requests = append(slices.Clip(s.Requests), scenario.Request{At: int64(n), Key: "k", Cost: 1, Count: int64(n - len(s.Requests))})
		l := m.Replay(ctx, "a", uint64(step+2), s).Lane(0)
		if !l.Stopped || len(l.Compared.Differences) != MaxDifferences || l.Through != MaxDifferences+1 || l.Compared.Decided != MaxDifferences+1 {
			t.Errorf("step %d: stopped %v, %d differences, through %d, decided %d; want true, %d, %d, %d", step+1,
				l.Stopped, len(l.Compared.Differences), l.Through, l.Compared.Decided, MaxDifferences, MaxDifferences+1, MaxDifferences+1)
		}
		if want := fmt.Sprintf("The replay stopped at the %dth difference", MaxDifferences); !strings.Contains(l.Status(), want) {
			t.Errorf("step %d: status %q does not say %q", step+1, l.Status(), want)
		}
	}
}

// A Redis that answers with errors (here: out of memory, refusing writes)
// is unavailable in words; the mirror asks again only after RetryAfter,
// and then, Redis well again, the same revision is decided afresh.
func TestMirrorRecoversAfterRetryAfter(t *testing.T) {
	m, rdb, _ := newMirror(t)
	ctx := context.Background()
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	m.now = func() time.Time { return now }
	s := carPark(5)
	checkAgrees(t, "before", s, m.Replay(ctx, "a", 1, s), 5)

	if err := rdb.ConfigSet(ctx, "maxmemory", "1").Err(); err != nil {
		t.Fatal(err)
	}
	s = carPark(6)
	for i, l := range m.Replay(ctx, "a", 2, s).Lanes {
		if want := "Redis unavailable: Redis answered with an error"; !strings.HasPrefix(l.Status(), want) {
			t.Errorf("step 1: lane %d says %q, want %q", i, l.Status(), want)
		}
	}
	if err := rdb.ConfigSet(ctx, "maxmemory", "0").Err(); err != nil {
		t.Fatal(err)
	}
	calls := evalCalls(t, rdb)
	now = now.Add(RetryAfter - time.Millisecond)
	if l := m.Replay(ctx, "a", 2, s).Lane(0); l.Unavailable == "" || evalCalls(t, rdb) != calls {
		t.Errorf("step 2: within RetryAfter, %q and %d scripts run; want unavailable and none", l.Status(), evalCalls(t, rdb)-calls)
	}
	now = now.Add(time.Millisecond)
	checkAgrees(t, "step 3", s, m.Replay(ctx, "a", 2, s), 6)
}

// TestBusyRedisIsNoAnswerInTime: on NewClient's client a Redis that does not
// answer (a long script holds it) ends a replay at the replay's own
// deadline, not at the next socket timeout, and a Mirror's lanes say it
// did not answer in time, with both bounds.
func TestBusyRedisIsNoAnswerInTime(t *testing.T) {
	srv := redistest.Start(t)
	opts, err := redis.ParseURL("redis://" + srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	rdb := NewClient(opts)
	t.Cleanup(func() { _ = rdb.Close() })
	ctx := context.Background()
	s := carPark(3)
	res, err := scenario.RunContext(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	form, err := LaneForm(rdb, s, 0, "busy:")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rdb.Ping(ctx).Result(); err != nil { // dialled before Redis is held
		t.Fatal(err)
	}
	other := srv.Client(t)
	busy := make(chan error, 1)
	go func() {
		// About 1.5 s here; well under the 5 s after which Redis answers
		// BUSY instead of nothing.
		busy <- other.Eval(ctx, "local x = 0 for i = 1, 350000000 do x = x + i end return 1", nil).Err()
	}()
	time.Sleep(50 * time.Millisecond) // waits on the Redis server to start the busy script

	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	start := time.Now()
	_, err = Replay(short, form, res.Results[0].Decisions)
	took := time.Since(start)
	cancel()
	if err == nil || took > IOTimeout/2 {
		t.Errorf("Replay with 100 ms on a held Redis: %v after %v; want an error at its deadline, well before IOTimeout %v", err, took, IOTimeout)
	}

	got := NewMirror(rdb, slog.New(slog.DiscardHandler)).Replay(ctx, "a", 1, s)
	stillBusy := len(busy) == 0
	if err := <-busy; err != nil {
		t.Fatalf("the busy script: %v", err)
	}
	want := fmt.Sprintf("Redis unavailable: no answer in time (%s a call, %s a replay)", IOTimeout, Timeout)
	for i := range s.Specs() {
		if st := got.Lane(i).Status(); !strings.HasPrefix(st, want) {
			t.Errorf("lane %d says %q, want %q…", i, st, want)
		}
	}
	if !stillBusy {
		t.Error("Redis finished its busy script before the Mirror gave up; the test proved nothing")
	}
}

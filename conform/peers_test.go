package conform_test

import (
	"context"
	"flag"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/httprate"
	"github.com/go-redis/redis_rate/v10"
	"github.com/juju/ratelimit"
	"github.com/sethvargo/go-limiter/memorystore"
	"github.com/throttled/throttled/v2"
	"github.com/throttled/throttled/v2/store/memstore"
	ulule "github.com/ulule/limiter/v3"
	ululememory "github.com/ulule/limiter/v3/drivers/store/memory"
	"golang.org/x/time/rate"

	"github.com/windowlab/playground/conform"
	"github.com/windowlab/playground/internal/redistest"
	"github.com/windowlab/playground/policies"
)

// updatePeers rewrites docs/peers.md from this run; without it the test
// checks that the committed file says what this run found.
var updatePeers = flag.Bool("update-peers", false, "write docs/peers.md from this run")

// peer is one real limiter, with the mapping of its parameters onto a
// registry policy and what its documentation says, to judge a difference.
type peer struct {
	name    string // the module and what of it
	policy  string
	params  policies.Params
	mapping string // how its parameters map onto the policy's
	target  func(t *testing.T) conform.Target
	// judgement is who is right where it differs, by whose documentation.
	judgement string
	opts      []conform.Option
}

// wallOpts bound a real-time run: a few scenarios, a short shrink.
var wallOpts = []conform.Option{conform.MaxRequests(60), conform.RandomScenarios(2, 8), conform.ShrinkTries(15)}

func peers() []peer {
	return []peer{
		{
			name: "golang.org/x/time/rate (Limiter.AllowN, ReserveN for the wait)", policy: policies.TokenBucket,
			params:  policies.Params{Limit: 5, WindowMs: 1000, Burst: 5},
			mapping: "`rate.NewLimiter(rate.Limit(limit/window in s), burst)`; the wait of a refusal is `ReserveN(t, n).DelayFrom(t)`, then `CancelAt(t)`",
			target:  func(*testing.T) conform.Target { return xrateTarget() },
			judgement: "Only a clock stepping back tells them apart: for a t before the limiter's last, x/time/rate takes t as its last instant and counts the wait from there, a millisecond shorter here than the policy's, which decides a late request at the key's latest instant and counts the wait from the caller's now. " +
				"x/time/rate's documentation says nothing of times that go backwards, and its users pass time.Now(), which does not; neither is wrong by the other's documentation, and on a clock that only goes forward they agree on every decision and every wait.",
		},
		{
			name: "juju/ratelimit (Bucket.TakeMaxDuration with no wait)", policy: policies.TokenBucket,
			params:  policies.Params{Limit: 2, WindowMs: 1000, Burst: 2},
			mapping: "`NewBucketWithRateAndClock(limit/window in s, burst, clock)`; admitted iff `TakeMaxDuration(cost, 0)` reports true",
			target:  func(*testing.T) conform.Target { return jujuTarget() },
			judgement: "juju's documentation says the bucket fills with quantum tokens every fillInterval, in ticks counted from the bucket's creation: a token taken just before a tick comes back at that tick (at 2 s above), not a whole interval after it was taken as in the policy's continuous refill. " +
				"By its own documentation juju is right; by the token bucket's usual definition (and the policy's) it admits early. A time before the bucket's start it refuses outright, where the policy decides it at the key's latest instant.",
		},
		{
			name: "throttled/throttled/v2 (GCRARateLimiterCtx on a store whose clock the kit sets)", policy: policies.GCRA,
			params:  policies.Params{Limit: 2, WindowMs: 1000, Burst: 3},
			mapping: "`RateQuota{MaxRate: PerDuration(limit, window), MaxBurst: burst - 1}`: throttled's MaxBurst is the requests allowed *beyond* the first (throttled/throttled #29), so burst 3 is MaxBurst 2",
			target:  func(*testing.T) conform.Target { return throttledTarget() },
			judgement: "With MaxBurst mapped as its documentation defines it, every admission agrees; the difference is the Remaining of a request larger than the whole burst, which throttled refuses but reports as if nothing had been taken (3 where one of 3 was used). " +
				"Its own documentation says Remaining is the requests that could be permitted instantaneously for the key, 2 here: by its own documentation throttled is wrong, and so is anyone who trusts that field after a too-large request.",
		},
		{
			name: "sethvargo/go-limiter (memorystore)", policy: policies.FixedWindow,
			params:    policies.Params{Limit: 3, WindowMs: 1000},
			mapping:   "`memorystore.New(&Config{Tokens: limit, Interval: window})`; `Take` on the real clock",
			target:    func(*testing.T) conform.Target { return sethvargoTarget() },
			judgement: "Its documentation says a key's tokens are replenished every interval counted from when the key's bucket was made, not at the epoch's window edges as the policy's fixed window is: a key first seen mid-window keeps that window until mid-way through the next one. It differs by design and by its own documentation is right; to compare it, count the policy's windows from each key's first request (not an option the policy has).",
			opts:      wallOpts,
		},
		{
			name: "ulule/limiter/v3 (memory store)", policy: policies.FixedWindow,
			params:    policies.Params{Limit: 3, WindowMs: 1000},
			mapping:   "`limiter.New(memory.NewStore(), Rate{Period: window, Limit: limit})`; `Get` on the real clock; refused when `Reached`",
			target:    func(*testing.T) conform.Target { return ululeTarget() },
			judgement: "Its period starts with the key's first request (the memory store's expiration), not at the epoch's window edges the policy counts in, so a key first seen mid-window is refused just past the edge where the policy has started a new window. By its own documentation (a period per key) it is right; it differs by design.",
			opts:      wallOpts,
		},
		{
			name: "go-redis/redis_rate/v10 (on the tests' redis-server)", policy: policies.GCRA,
			params:  policies.Params{Limit: 2, WindowMs: 1000, Burst: 2},
			mapping: "`Limit{Rate: limit, Period: window, Burst: burst}`; `AllowN(ctx, key, limit, cost)`, admitted iff `Allowed > 0`; its `RetryAfter` and `Remaining`; its script reads Redis `TIME`, so the run is in real time",
			target:  redisRateTarget,
			judgement: "Admissions agree; a request larger than the whole burst is refused by both, but redis_rate reports Remaining 0 (and a RetryAfter, for a request that can never pass) where nothing is in use. " +
				"Its documentation says Remaining is the requests that could be permitted instantaneously for the key: 2 here, so by its own documentation redis_rate is wrong there.",
			opts: wallOpts,
		},
		{
			name: "go-chi/httprate (LimitBy with a LimitCounter, so its windows follow the clock)", policy: policies.SlidingCounter,
			params:    policies.Params{Limit: 3, WindowMs: 1000, Arithmetic: policies.Exact},
			mapping:   "`httprate.NewRateLimiter(limit, window, WithKeyFuncs(by header), WithLimitCounter(NewLocalLimitCounter(window)))` behind `httptest.Server`; refused with 429 and `Retry-After`",
			target:    httprateTarget,
			judgement: "Its documentation calls it a sliding window counter: the previous window's count weighted by what of it is still inside the window, plus the current one, which is the policy's exact arithmetic; but it rounds that estimate to the nearest whole request before comparing it with the limit, and its Retry-After is always the whole window. By the RateLimit draft and RFC 9110 a Retry-After is when a retry can succeed; the policy's is that instant, httprate's only an upper bound.",
			opts:      append(slices.Clone(wallOpts), conform.CostOne()),
		},
		{
			name: "nginx limit_req (Debian's nginx, started on loopback)", policy: policies.LeakyBucket,
			params:    policies.Params{Limit: 2, WindowMs: 1000, Burst: 3, Delay: policies.NoDelay},
			mapping:   "`limit_req_zone $http_x_client_key zone=z:1m rate=2r/s; limit_req zone=z burst=3 nodelay; limit_req_status 429;` is leaky-bucket limit 2 per 1000 ms, burst 3, delay nodelay (nginx's `delay=N` is the policy's delay N; without `burst`, nginx queues nothing)",
			target:    nginxTarget(" burst=3 nodelay"),
			judgement: "The policy is nginx's own arithmetic (excess = max(0, excess - rate × elapsed + 1), refused above the burst); nginx sends no Retry-After, so only admission is compared.",
			opts:      append(slices.Clone(wallOpts), conform.CostOne()),
		},
		{
			name: "nginx limit_req without burst (Debian's nginx, nginx's default: no queue)", policy: policies.LeakyBucket,
			params:    policies.Params{Limit: 2, WindowMs: 1000, Burst: policies.NoQueue},
			mapping:   "`limit_req_zone $http_x_client_key zone=z:1m rate=2r/s; limit_req zone=z; limit_req_status 429;` is leaky-bucket limit 2 per 1000 ms with `\"burst\": 0`, no queue: one request per 500 ms passes and none waits",
			target:    nginxTarget(""),
			judgement: "As with a burst: nginx's excess above 0 is refused, which the policy's queue of length 0 does at the same instants; nginx sends no Retry-After, so only admission is compared.",
			opts:      append(slices.Clone(wallOpts), conform.CostOne()),
		},
	}
}

// TestPeers runs the kit against each peer and holds docs/peers.md to
// what it found (go test ./conform -run TestPeers -update-peers writes it).
func TestPeers(t *testing.T) {
	var mu sync.Mutex
	sections := map[string]string{}
	t.Run("peers", func(t *testing.T) {
		for _, pr := range peers() {
			t.Run(pr.name, func(t *testing.T) {
				target := pr.target(t)
				if target.Clock.Wall {
					// Real time is mostly waiting: the wall-clock peers
					// wait side by side.
					t.Parallel()
				}
				rep, err := conform.Run(context.Background(), target, pr.policy, pr.params, pr.opts...)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s", rep.Text())
				var forward *conform.Report
				if !rep.Agrees() && rep.Counterexample.StepsBack() {
					// Does it differ only when time goes backwards?
					fw, err := conform.Run(context.Background(), target, pr.policy, pr.params, append(slices.Clone(pr.opts), conform.MonotoneClock())...)
					if err != nil {
						t.Fatal(err)
					}
					t.Logf("with a clock that only goes forward: %s", fw.Text())
					forward = &fw
				}
				mu.Lock()
				sections[pr.name] = peerSection(pr, target, rep, forward)
				mu.Unlock()
			})
		}
	})
	if t.Failed() {
		return
	}
	var b strings.Builder
	b.WriteString(peersHead)
	for _, pr := range peers() {
		b.WriteString(sections[pr.name])
	}
	const path = "../docs/peers.md"
	if *updatePeers {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(old) != b.String() {
		t.Errorf("docs/peers.md is not what this run found; regenerate it with: go test ./conform -run TestPeers -update-peers\n--- got\n%s", b.String())
	}
}

const peersHead = `# Peers: real limiters checked against the policies

Written by ` + "`go test ./conform -run TestPeers -update-peers`" + ` (package conform's kit, docs in its package comment); ` + "`go test ./...`" + ` checks that this file says what a run finds and writes nothing.
Each peer is mapped onto the registry policy its documentation describes, driven through the lessons', adversarial and seeded random scenarios, and its first difference shrunk.
Peers that take the time as an argument (or a clock) run on the virtual clock and their counterexamples are exact; the others run in real time on a 1 s window, judged only away from a change of the policy's answer (±150 ms), and their counterexample, whose instants are measured, is in the test's log (` + "`-v`" + `) rather than here.

`

// peerSection is a peer's part of docs/peers.md: only what a rerun gives
// again, so that the file can be checked.
func peerSection(pr peer, target conform.Target, rep conform.Report, forward *conform.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n", pr.name)
	fmt.Fprintf(&b, "- policy: `%s`, %s\n", pr.policy, paramsLine(pr))
	fmt.Fprintf(&b, "- mapping: %s\n", pr.mapping)
	fmt.Fprintf(&b, "- compared: %s; clock: %s\n", target.Reports, clockText(target))
	if rep.Agrees() {
		b.WriteString("- verdict: **agrees**\n\n")
		return b.String()
	}
	c := rep.Counterexample
	fmt.Fprintf(&b, "- verdict: **differs** in %s\n", diffFields(c))
	if !target.Clock.Wall {
		fmt.Fprintf(&b, "- smallest counterexample (%d requests):\n\n```\n%s```\n\n", len(c.Steps), indentless(c.Text()))
	}
	switch {
	case forward == nil:
	case forward.Agrees():
		b.WriteString("- with a clock that only goes forward (the scenarios that step back left out): **agrees**\n")
	default:
		fmt.Fprintf(&b, "- with a clock that only goes forward it differs too, in %s\n", diffFields(forward.Counterexample))
		if !target.Clock.Wall {
			fmt.Fprintf(&b, "\n```\n%s```\n\n", indentless(forward.Counterexample.Text()))
		}
	}
	fmt.Fprintf(&b, "- who is right: %s\n\n", pr.judgement)
	return b.String()
}

// diffFields names the fields the counterexample's last request differs
// in: "allowed", "retry-after, remaining".
func diffFields(c *conform.Counterexample) string {
	last := c.Steps[len(c.Steps)-1]
	fields := make([]string, 0, len(last.Diffs))
	for _, d := range last.Diffs {
		f, _, _ := strings.Cut(d, ":")
		fields = append(fields, f)
	}
	return strings.Join(fields, ", ")
}

func paramsLine(pr peer) string {
	p, _ := policies.Normalised(pr.policy, pr.params)
	return conform.ParamsText(pr.policy, p)
}

func indentless(s string) string {
	_, rest, _ := strings.Cut(s, "\n") // the first line says how it was shrunk
	return rest
}

func clockText(t conform.Target) string {
	if t.Clock.Wall {
		return fmt.Sprintf("real time, ±%d ms", t.Clock.ToleranceMs)
	}
	return "virtual"
}

func xrateTarget() conform.Target {
	return conform.Virtual("x/time/rate", conform.RetryAfter, 1, func(p policies.Params) (conform.DecideFunc, error) {
		lims := map[string]*rate.Limiter{}
		every := rate.Limit(float64(p.Limit) * 1000 / float64(p.WindowMs))
		return func(r conform.Request, at time.Time) conform.Answer {
			l := lims[r.Key]
			if l == nil {
				l = rate.NewLimiter(every, int(p.Burst))
				lims[r.Key] = l
			}
			if l.AllowN(at, int(r.Cost)) {
				return conform.Answer{Allowed: true}
			}
			res := l.ReserveN(at, int(r.Cost))
			if !res.OK() {
				return conform.Answer{}
			}
			wait := res.DelayFrom(at)
			res.CancelAt(at)
			return conform.Answer{RetryAfterMs: int64(math.Ceil(float64(wait) / float64(time.Millisecond)))}
		}, nil
	})
}

// manualClock is juju's Clock on the virtual clock.
type manualClock struct{ now time.Time }

func (c *manualClock) Now() time.Time      { return c.now }
func (c *manualClock) Sleep(time.Duration) {}

func jujuTarget() conform.Target {
	return conform.Virtual("juju/ratelimit", 0, 1, func(p policies.Params) (conform.DecideFunc, error) {
		clock := &manualClock{now: conform.T0}
		buckets := map[string]*ratelimit.Bucket{}
		return func(r conform.Request, at time.Time) conform.Answer {
			clock.now = at
			b := buckets[r.Key]
			if b == nil {
				b = ratelimit.NewBucketWithRateAndClock(float64(p.Limit)*1000/float64(p.WindowMs), p.Burst, clock)
				buckets[r.Key] = b
			}
			_, ok := b.TakeMaxDuration(r.Cost, 0)
			return conform.Answer{Allowed: ok}
		}, nil
	})
}

// clockedStore is throttled's memstore with the kit's clock: GCRA asks
// its store for the time.
type clockedStore struct {
	throttled.GCRAStoreCtx
	now time.Time
}

func (s *clockedStore) GetWithTime(ctx context.Context, key string) (int64, time.Time, error) {
	v, _, err := s.GCRAStoreCtx.GetWithTime(ctx, key)
	return v, s.now, err
}

func throttledTarget() conform.Target {
	return conform.Virtual("throttled/v2", conform.RetryAfter|conform.Remaining, 1, func(p policies.Params) (conform.DecideFunc, error) {
		mem, err := memstore.NewCtx(0)
		if err != nil {
			return nil, err
		}
		st := &clockedStore{GCRAStoreCtx: mem}
		lim, err := throttled.NewGCRARateLimiterCtx(st, throttled.RateQuota{
			MaxRate:  throttled.PerDuration(int(p.Limit), time.Duration(p.WindowMs)*time.Millisecond),
			MaxBurst: int(p.Burst) - 1,
		})
		if err != nil {
			return nil, err
		}
		return func(r conform.Request, at time.Time) conform.Answer {
			st.now = at
			limited, res, err := lim.RateLimitCtx(context.Background(), r.Key, int(r.Cost))
			if err != nil {
				panic(err) // the memory store does not fail
			}
			a := conform.Answer{Allowed: !limited, Remaining: int64(res.Remaining)}
			if limited && res.RetryAfter >= 0 {
				a.RetryAfterMs = int64(math.Ceil(float64(res.RetryAfter) / float64(time.Millisecond)))
			}
			return a
		}, nil
	})
}

func sethvargoTarget() conform.Target {
	return conform.Wall("sethvargo/go-limiter", 0, 1, 150, func(p policies.Params) (conform.DecideFunc, error) {
		st, err := memorystore.New(&memorystore.Config{Tokens: uint64(p.Limit), Interval: time.Duration(p.WindowMs) * time.Millisecond})
		if err != nil {
			return nil, err
		}
		return func(r conform.Request, _ time.Time) conform.Answer {
			ok := true
			for range r.Cost {
				_, _, _, took, err := st.Take(context.Background(), r.Key)
				if err != nil {
					panic(err)
				}
				ok = ok && took
			}
			return conform.Answer{Allowed: ok}
		}, nil
	})
}

func ululeTarget() conform.Target {
	return conform.Wall("ulule/limiter/v3", 0, 1, 150, func(p policies.Params) (conform.DecideFunc, error) {
		lim := ulule.New(ululememory.NewStore(), ulule.Rate{Period: time.Duration(p.WindowMs) * time.Millisecond, Limit: p.Limit})
		return func(r conform.Request, _ time.Time) conform.Answer {
			c, err := lim.Increment(context.Background(), r.Key, r.Cost)
			if err != nil {
				panic(err)
			}
			return conform.Answer{Allowed: !c.Reached}
		}, nil
	})
}

func redisRateTarget(t *testing.T) conform.Target {
	srv := redistest.Start(t)
	rdb := srv.Client(t)
	return conform.Wall("redis_rate/v10", conform.RetryAfter|conform.Remaining, 1, 150, func(p policies.Params) (conform.DecideFunc, error) {
		lim := redis_rate.NewLimiter(rdb)
		prefix := fmt.Sprintf("peers:%d:", time.Now().UnixNano())
		limit := redis_rate.Limit{Rate: int(p.Limit), Period: time.Duration(p.WindowMs) * time.Millisecond, Burst: int(p.Burst)}
		return func(r conform.Request, _ time.Time) conform.Answer {
			res, err := lim.AllowN(context.Background(), prefix+r.Key, limit, int(r.Cost))
			if err != nil {
				panic(err)
			}
			a := conform.Answer{Allowed: res.Allowed > 0, Remaining: int64(res.Remaining)}
			if !a.Allowed && res.RetryAfter >= 0 {
				a.RetryAfterMs = int64(math.Ceil(float64(res.RetryAfter) / float64(time.Millisecond)))
			}
			return a
		}, nil
	})
}

func httprateTarget(t *testing.T) conform.Target {
	var mu sync.Mutex
	var current http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		h := current
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	target := conform.HTTP("go-chi/httprate", conform.HTTPOptions{URL: srv.URL, Reports: conform.RetryAfter, ToleranceMs: 150})
	newLimiter := target.New
	// A fresh limiter for every run, so that no run inherits another's
	// counts.
	target.New = func(ctx context.Context, p policies.Params) (conform.Limiter, error) {
		window := time.Duration(p.WindowMs) * time.Millisecond
		rl := httprate.NewRateLimiter(int(p.Limit), window,
			httprate.WithKeyFuncs(func(r *http.Request) (string, error) { return r.Header.Get("X-Client-Key"), nil }),
			httprate.WithLimitCounter(httprate.NewLocalLimitCounter(window)))
		mu.Lock()
		current = rl.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
		mu.Unlock()
		return newLimiter(ctx, p)
	}
	return target
}

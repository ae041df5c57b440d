package conform

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/windowlab/playground/policies"
)

// T0 is the virtual clock's instant 0: a request at At ms is decided at
// T0 plus At ms. It is a fixed instant far from the Unix epoch (some
// limiters treat a zero time as "never seen").
var T0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// DecideFunc decides one request at the instant given (T0 plus its At on
// the virtual clock, the real now on the wall clock).
type DecideFunc func(r Request, at time.Time) Answer

// Virtual is a target for a limiter that takes the time as an argument:
// build makes a fresh one for the parameters, and it is driven on the
// virtual clock, so that a run takes no real time and is exact. unitMs is
// the granularity of its retry-after and reset (1: exact ms).
func Virtual(name string, reports Fields, unitMs int64, build func(p policies.Params) (DecideFunc, error)) Target {
	return Target{Name: name, Reports: reports, UnitMs: unitMs,
		New: func(_ context.Context, p policies.Params) (Limiter, error) {
			f, err := build(p)
			if err != nil {
				return nil, err
			}
			return LimiterFunc(func(_ context.Context, r Request) (Answer, error) {
				return f(r, T0.Add(time.Duration(r.At)*time.Millisecond)), nil
			}), nil
		}}
}

// Wall is a target for a limiter that reads the real clock: it is driven
// in real time, each request sent at its instant after the run began, so
// give it parameters with a small window (a few hundred ms). A request
// decided within toleranceMs of an instant where the policy's answer
// changes is not judged, and numbers are compared within the tolerance:
// on a loaded machine a call may start late, and the limiter's clock is
// not the kit's.
func Wall(name string, reports Fields, unitMs, toleranceMs int64, build func(p policies.Params) (DecideFunc, error)) Target {
	t := Virtual(name, reports, unitMs, build)
	t.Clock = Clock{Wall: true, ToleranceMs: toleranceMs}
	t.New = func(_ context.Context, p policies.Params) (Limiter, error) {
		f, err := build(p)
		if err != nil {
			return nil, err
		}
		return LimiterFunc(func(_ context.Context, r Request) (Answer, error) { return f(r, time.Now()), nil }), nil
	}
	return t
}

// runID is a fresh prefix for one run's keys, so that a shared store (a
// Redis, a server) starts every run from empty.
func runID() string {
	var b [6]byte
	_, _ = rand.Read(b[:]) // crypto/rand does not fail (Go 1.24)
	return hex.EncodeToString(b[:])
}

// RedisScript is a target for a rate limiter written as a Redis Lua
// script, run on the virtual clock. Its argument convention:
//
//	KEYS[1]  the client's key (one key per client; the kit prefixes it per run)
//	ARGV[1]  now, in ms (the virtual clock: T0 in Unix ms plus the request's At)
//	ARGV[2]  the cost, in permits
//	ARGV[3]  the limit, permits per window
//	ARGV[4]  the window, in ms
//	ARGV[5]  the burst (the limit for a policy without one)
//	ARGV[6]  the delay (leaky-bucket; 0 otherwise)
//
// and its reply is an array of integers {allowed, retryAfterMs, remaining,
// resetMs}: allowed 1 or 0, then whichever of the rest reports says it
// gives (the reply may stop after the last of them). A script should set
// a TTL on what it writes; the kit does not delete its keys.
func RedisScript(name string, rdb redis.UniversalClient, lua string, reports Fields) Target {
	script := redis.NewScript(lua)
	return Target{Name: name, Reports: reports, UnitMs: 1,
		New: func(_ context.Context, p policies.Params) (Limiter, error) {
			prefix := "conform:" + runID() + ":"
			return LimiterFunc(func(ctx context.Context, r Request) (Answer, error) {
				now := T0.UnixMilli() + r.At
				v, err := script.Run(ctx, rdb, []string{prefix + "{" + r.Key + "}"}, now, r.Cost, p.Limit, p.WindowMs, p.Burst, p.Delay).Int64Slice()
				if err != nil {
					return Answer{}, err
				}
				if len(v) < 1 || v[0] < 0 || v[0] > 1 {
					return Answer{}, fmt.Errorf("the script replied %v, not {allowed (0 or 1), retryAfterMs, remaining, resetMs}", v)
				}
				a := Answer{Allowed: v[0] == 1}
				at := func(i int) int64 {
					if i < len(v) {
						return v[i]
					}
					return 0
				}
				a.RetryAfterMs, a.Remaining, a.ResetMs = at(1), at(2), at(3)
				return a, nil
			}), nil
		}}
}

// HTTPOptions say how to ask an endpoint.
type HTTPOptions struct {
	// URL is asked once per request, with GET.
	URL string
	// KeyHeader is the request header carrying the client's key, which
	// the endpoint limits by (default X-Client-Key); the kit prefixes keys
	// per run.
	KeyHeader string
	// Refused are the statuses that mean refused (default 429); any
	// other status of 400 or above is an error, not a decision.
	Refused []int
	// Reports are the fields it sends: RetryAfter (Retry-After in whole
	// seconds), Headers (RateLimit and RateLimit-Policy, the draft's
	// fields; Remaining and Reset are then read from RateLimit's r and t).
	Reports Fields
	// ToleranceMs is the wall-clock tolerance (see Wall); default 100.
	ToleranceMs int64
	Client      *http.Client
}

// HTTP is a target for an HTTP endpoint that enforces a limit, paced in
// real time: each request is a GET at its instant after the run began.
// The cost of a request is sent as that many requests at once.
func HTTP(name string, o HTTPOptions) Target {
	if o.KeyHeader == "" {
		o.KeyHeader = "X-Client-Key"
	}
	if len(o.Refused) == 0 {
		o.Refused = []int{http.StatusTooManyRequests}
	}
	if o.ToleranceMs == 0 {
		o.ToleranceMs = 100
	}
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 10 * time.Second}
	}
	return Target{Name: name, Reports: o.Reports, UnitMs: 1000, Clock: Clock{Wall: true, ToleranceMs: o.ToleranceMs},
		New: func(_ context.Context, p policies.Params) (Limiter, error) {
			prefix := runID() + "-"
			return LimiterFunc(func(ctx context.Context, r Request) (Answer, error) {
				if r.Cost != 1 {
					return Answer{}, fmt.Errorf("an HTTP endpoint takes one permit a request; the scenario asks for %d", r.Cost)
				}
				return askHTTP(ctx, o, prefix+r.Key)
			}), nil
		}}
}

// askHTTP sends one request and reads the decision from its answer.
func askHTTP(ctx context.Context, o HTTPOptions, key string) (Answer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, o.URL, nil)
	if err != nil {
		return Answer{}, err
	}
	req.Header.Set(o.KeyHeader, key)
	res, err := o.Client.Do(req)
	if err != nil {
		return Answer{}, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 1<<16))
	res.Body.Close()
	var a Answer
	switch {
	case res.StatusCode < 400:
		a.Allowed = true
	case containsInt(o.Refused, res.StatusCode):
	default:
		return Answer{}, fmt.Errorf("%s answered %s, neither a success nor a refusal", o.URL, res.Status)
	}
	if !a.Allowed && o.Reports&RetryAfter != 0 {
		v := strings.TrimSpace(res.Header.Get("Retry-After"))
		s, err := strconv.ParseInt(v, 10, 64)
		if err != nil || s < 0 {
			return Answer{}, fmt.Errorf("%s refused without a Retry-After in seconds (%q)", o.URL, v)
		}
		a.RetryAfterMs = s * 1000
	}
	a.RateLimit, a.RateLimitPolicy = res.Header.Get("RateLimit"), res.Header.Get("RateLimit-Policy")
	if it, err := parseItem(a.RateLimit); err == nil {
		a.Remaining = it.params["r"]
		a.ResetMs = it.params["t"] * 1000
	}
	return a, nil
}

func containsInt(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// Package conform checks someone else's rate limiter against one of the
// registry's policies: it drives the limiter through scenarios (the
// lessons', random ones from a seed, adversarial ones), decides every
// request again with the policy, compares every field the limiter reports
// (allowed, Retry-After with its rounding, remaining, reset, the RateLimit
// header fields), and shrinks the first difference it finds to a smallest
// scenario, printed as scenario JSON that `playground simulate` replays.
//
// A limiter is wrapped in a Target: a constructor of fresh limiters and
// what they report. Adapters for the usual shapes are here: a limiter that
// takes the time as an argument (Virtual, driven on the virtual clock), one
// that reads the wall clock (Wall: real time on a small window, with a
// stated tolerance), a Redis script (RedisScript, on the virtual clock) and
// an HTTP endpoint (HTTP, paced in real time).
//
//	func TestMyLimiter(t *testing.T) {
//		target := conform.Virtual("mine", conform.RetryAfter, func(p policies.Params) conform.DecideFunc {
//			lim := mine.New(p.Limit, time.Duration(p.WindowMs)*time.Millisecond)
//			return func(r conform.Request, at time.Time) conform.Answer { … }
//		})
//		conform.Check(t, target, "token-bucket", policies.Params{Limit: 5, WindowMs: 1000})
//	}
package conform

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/windowlab/playground/policies"
)

// Request is one request of a run: At is its instant in ms on the run's
// clock, which starts at 0 (a virtual clock's t0, or the run's first wall
// instant); Key names the client; Cost is its permits (at least 1).
type Request struct {
	At   int64  `json:"at"`
	Key  string `json:"key"`
	Cost int64  `json:"cost"`
}

// Answer is what a limiter told about one request. Fields the target does
// not report (Target.Reports) are ignored.
type Answer struct {
	Allowed bool
	// RetryAfterMs is a refused request's wait as the limiter says it, in
	// ms (an HTTP Retry-After of 2 is 2000).
	RetryAfterMs int64
	// Remaining is the whole permits available to the key after the
	// request.
	Remaining int64
	// ResetMs is how long after the request the key's whole capacity is
	// available again if nothing else arrives.
	ResetMs int64
	// RateLimit and RateLimitPolicy are those header fields as sent, for
	// a target reporting Headers.
	RateLimit, RateLimitPolicy string
}

// Fields says which of an Answer's fields a limiter reports; Allowed is
// always compared.
type Fields uint8

// The fields a target may report.
const (
	RetryAfter Fields = 1 << iota
	Remaining
	Reset
	Headers // the RateLimit and RateLimit-Policy fields
)

func (f Fields) String() string {
	var names []string
	for _, n := range []struct {
		f    Fields
		name string
	}{{RetryAfter, "retry-after"}, {Remaining, "remaining"}, {Reset, "reset"}, {Headers, "RateLimit headers"}} {
		if f&n.f != 0 {
			names = append(names, n.name)
		}
	}
	return strings.Join(append([]string{"allowed"}, names...), ", ")
}

// Limiter decides one request; a run calls it from one goroutine, in
// order.
type Limiter interface {
	Decide(ctx context.Context, r Request) (Answer, error)
}

// LimiterFunc is a Limiter written as a function.
type LimiterFunc func(ctx context.Context, r Request) (Answer, error)

// Decide calls f.
func (f LimiterFunc) Decide(ctx context.Context, r Request) (Answer, error) { return f(ctx, r) }

// Target is a limiter under test: how to build a fresh one (holding
// nothing, so that every run starts from empty) and what it reports.
type Target struct {
	Name string
	// New builds a fresh limiter for the policy's parameters, normalised
	// (a burst of 0 is the limit). Every run, and every try of the
	// shrinker, gets its own.
	New func(ctx context.Context, p policies.Params) (Limiter, error)
	// Reports are the fields besides Allowed that the limiter tells.
	Reports Fields
	// UnitMs is the granularity of RetryAfterMs and ResetMs: 1 for exact
	// ms, 1000 for whole seconds. The policy's wait is rounded up to it,
	// as a client waiting that long must then be admitted; 0 means 1.
	UnitMs int64
	// Clock is how the run's instants reach the limiter; the zero value
	// is the virtual clock (the limiter is given them).
	Clock Clock
	// Close, when set, is called when a Check or Run is done with the
	// target.
	Close func()
}

// Clock says how a run's instants reach a limiter.
type Clock struct {
	// Wall is true for a limiter that reads the real clock: requests are
	// sent at their instants in real time, and a request decided within
	// ToleranceMs of a point where the policy's answer changes is not
	// judged (its decision follows the limiter's).
	Wall        bool
	ToleranceMs int64
}

// Check runs Run with opts and fails t with every difference's shrunk
// counterexample.
func Check(t testing.TB, target Target, policy string, p policies.Params, opts ...Option) Report {
	t.Helper()
	rep, err := Run(context.Background(), target, policy, p, opts...)
	if err != nil {
		t.Fatalf("conform: %s against %s: %v", target.Name, policy, err)
	}
	if !rep.Agrees() {
		t.Errorf("%s", rep.Text())
	}
	return rep
}

// Report is what a Run found.
type Report struct {
	Target string
	Policy string
	Params policies.Params
	// Scenarios is how many scenarios were run, Requests how many
	// requests they held; Unjudged how many of those a wall-clock run
	// could not judge (decided within the tolerance of a change).
	Scenarios, Requests, Unjudged int
	// Counterexample is the first difference found, shrunk; nil when the
	// limiter agreed with the policy on every scenario.
	Counterexample *Counterexample
}

// Agrees reports whether no difference was found.
func (r Report) Agrees() bool { return r.Counterexample == nil }

// Text words the report: one line when the limiter agrees, else the
// counterexample with both sides' answers and its scenario JSON.
func (r Report) Text() string {
	head := fmt.Sprintf("%s against %s (%s): %d scenarios, %d requests", r.Target, r.Policy, ParamsText(r.Policy, r.Params), r.Scenarios, r.Requests)
	if r.Unjudged > 0 {
		head += fmt.Sprintf(" (%d within the clock's tolerance of a change, not judged)", r.Unjudged)
	}
	if r.Agrees() {
		return head + ": agrees"
	}
	return head + ": DIFFERS\n" + r.Counterexample.Text()
}

// ParamsText words the parameters as the policy runs them, its options
// as the registry describes them: "limit 2 per 1000 ms, burst 3, delay 3",
// "limit 3 per 1000 ms, arithmetic exact". Reports and docs/peers.md
// both say it so.
func ParamsText(policy string, p policies.Params) string {
	parts := []string{fmt.Sprintf("limit %d per %d ms", p.Limit, p.WindowMs)}
	in, _ := policies.Lookup(policy)
	for _, o := range in.Options {
		d := o.Describe(o.Of(p))
		if o.Kind == policies.Choice {
			d = o.Label + " " + d // "exact" alone would not say of what
		}
		parts = append(parts, d)
	}
	return strings.Join(parts, ", ")
}

package conform_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/dunglas/httpsfv"

	"github.com/windowlab/playground/conform"
	"github.com/windowlab/playground/explain"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// promiseParams are the settings each policy's promises are checked on:
// a burst below, at and above the limit, windows in whole seconds and
// not, both arithmetics, windows of 5 buckets (every window here divides
// by 5).
var promiseParams = []policies.Params{
	{Limit: 5, WindowMs: 30_000, Buckets: 5},
	{Limit: 3, WindowMs: 1000, Burst: 6, Buckets: 5, Arithmetic: policies.Exact},
	{Limit: 4, WindowMs: 2500, Burst: 2, Buckets: 5},
	{Limit: 7, WindowMs: 1000, Delay: policies.NoDelay, Buckets: 5, Arithmetic: policies.Exact},
	{Limit: 2, WindowMs: 900, Burst: 3, Delay: 1, Buckets: 5},
}

// decided is one request of a replay with its headers.
type decided struct {
	req     conform.Request
	d       policies.Decision
	headers []scenario.Header
}

// replayWithHeaders decides reqs on a fresh policy, wording each
// decision's headers as a server would send them.
func replayWithHeaders(t *testing.T, name string, p policies.Params, reqs []conform.Request) []decided {
	t.Helper()
	pol, err := policies.New(name, p)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]decided, len(reqs))
	for i, r := range reqs {
		key := scenario.KeyOf(r.Key)
		d := pol.Decide(key, r.At, r.Cost)
		out[i] = decided{r, d, explain.Headers(explain.Policy{Name: name, Params: pol.Params()}, d, pol, key)}
	}
	return out
}

// header returns the named field's value.
func header(hs []scenario.Header, name string) string {
	for _, h := range hs {
		if h.Name == name {
			return h.Value
		}
	}
	return ""
}

// TestWaitingAsToldAdmits is each policy's promise to a client: after a
// refusal, waiting what Retry-After says (whole seconds, rounded up), or
// what the RateLimit field's t says, admits the same request if nothing
// else arrives (for t, a request of one permit: t is when more than r is
// available). Checked on the seeded random scenarios of package conform.
func TestWaitingAsToldAdmits(t *testing.T) {
	for _, name := range policies.Names {
		t.Run(name, func(t *testing.T) {
			checked := 0
			for _, p := range promiseParams {
				p, err := policies.Normalised(name, p)
				if err != nil {
					continue // a setting this policy does not take
				}
				for _, sc := range conform.Random(7, 15, p, 24) {
					steps := replayWithHeaders(t, name, p, sc.Requests)
					for i, s := range steps {
						if s.d.Allowed || s.d.Never {
							continue
						}
						ra, err := strconv.ParseInt(header(s.headers, "Retry-After"), 10, 64)
						if err != nil {
							t.Fatalf("%s step %d: Retry-After %q: %v", sc.Name, i+1, header(s.headers, "Retry-After"), err)
						}
						waits := []struct {
							what string
							ms   int64
							cost int64
						}{{"Retry-After " + strconv.FormatInt(ra, 10), ra * 1000, s.req.Cost}}
						if s.req.Cost == 1 {
							if tSec, ok := rateLimitT(t, header(s.headers, "RateLimit")); ok {
								waits = append(waits, struct {
									what string
									ms   int64
									cost int64
								}{fmt.Sprintf("RateLimit t=%d", tSec), tSec * 1000, 1})
							}
						}
						for _, w := range waits {
							again := append(append([]conform.Request{}, sc.Requests[:i+1]...), conform.Request{At: s.req.At + w.ms, Key: s.req.Key, Cost: w.cost})
							last := replayWithHeaders(t, name, p, again)[i+1]
							checked++
							if !last.d.Allowed {
								t.Errorf("%s (%+v) step %d: refused at %d ms; waiting as %s says (to %d ms) refused again", sc.Name, p, i+1, s.req.At, w.what, s.req.At+w.ms)
							}
						}
					}
				}
			}
			if checked == 0 {
				t.Fatal("no refusal to wait after: the scenarios test nothing")
			}
			t.Logf("%d waits checked", checked)
		})
	}
}

// rateLimitT reads the RateLimit field's t, if it has one.
func rateLimitT(t *testing.T, field string) (int64, bool) {
	t.Helper()
	l, err := httpsfv.UnmarshalList([]string{field})
	if err != nil || len(l) != 1 {
		t.Fatalf("RateLimit %q does not parse: %v", field, err)
	}
	v, ok := l[0].(httpsfv.Item).Params.Get("t")
	if !ok {
		return 0, false
	}
	return v.(int64), true
}

// TestPoliciesKeepTheirPromises: what each policy admits on the random
// scenarios stays within what it promises: the fixed window no more than
// the limit in any of its windows, the log no more in any window-long
// span, the buckets no more than their capacity plus what refills in any
// span (the leaky bucket's capacity counts the one being served).
func TestPoliciesKeepTheirPromises(t *testing.T) {
	bound := map[string]func(p policies.Params, from, to int64) int64{
		policies.FixedWindow: nil, // per aligned window, below
		policies.SlidingLog: func(p policies.Params, from, to int64) int64 {
			if to-from < p.WindowMs {
				return p.Limit
			}
			return 1 << 62
		},
		policies.TokenBucket: func(p policies.Params, from, to int64) int64 { return p.Burst + p.Limit*(to-from)/p.WindowMs },
		policies.GCRA:        func(p policies.Params, from, to int64) int64 { return p.Burst + p.Limit*(to-from)/p.WindowMs },
		policies.LeakyBucket: func(p policies.Params, from, to int64) int64 { return p.Burst + 1 + p.Limit*(to-from)/p.WindowMs },
	}
	for name, within := range bound {
		t.Run(name, func(t *testing.T) {
			for _, p := range promiseParams {
				p, err := policies.Normalised(name, p)
				if err != nil {
					continue
				}
				for _, sc := range conform.Random(11, 20, p, 40) {
					admitted := map[string][]conform.Request{}
					for _, s := range replayWithHeaders(t, name, p, sc.Requests) {
						if s.d.Allowed {
							admitted[s.req.Key] = append(admitted[s.req.Key], s.req)
						}
					}
					for key, reqs := range admitted {
						for i := range reqs {
							sum := int64(0)
							for j := i; j < len(reqs); j++ {
								sum += reqs[j].Cost
								from, to := reqs[i].At, reqs[j].At
								var most int64
								if within == nil {
									if from/p.WindowMs != to/p.WindowMs {
										break
									}
									most = p.Limit
								} else {
									most = within(p, from, to)
								}
								if sum > most {
									t.Fatalf("%s (%+v) key %s: %d admitted from %d ms to %d ms; it promises at most %d", sc.Name, p, key, sum, from, to, most)
								}
							}
						}
					}
				}
			}
		})
	}
}

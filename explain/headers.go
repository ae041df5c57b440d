package explain

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/dunglas/httpsfv"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// Header is one HTTP response header field; the first of a response is
// the status line, named "Status". It is scenario's, so that a run's
// decisions can carry their headers (see Run).
type Header = scenario.Header

// ceilSeconds rounds a wait in ms up to whole seconds, as Retry-After and
// the RateLimit fields require.
func ceilSeconds(ms int64) int64 {
	if ms <= 0 {
		return 0
	}
	return (ms + 999) / 1000
}

// RetryAfter is the Retry-After field's value for a wait of ms: delay
// seconds (RFC 9110, section 10.2.3), rounded up so that a client
// retrying on time is not refused again for the lost fraction, and at
// least 1, since 0 would invite an immediate retry into the same refusal.
// Every Retry-After the app sends, a policy's or the server's own for
// capacity, is written here.
func RetryAfter(ms int64) string {
	return strconv.FormatInt(max(ceilSeconds(ms), 1), 10)
}

// Peeker is what Headers reads after a decision: the policy that made it
// (a lane's, a node's, a server's limiter), peeked at later instants
// without being changed.
type Peeker interface {
	Peek(key policies.Key, now int64) policies.Fraction
}

// Headers returns the status line and the header fields a server enforcing
// this policy would send for the decision det on key, with on the policy as
// the decision left it: Retry-After (RFC 9110, whole seconds, rounded up)
// on a refusal, Server-Timing's queue duration (ms) on a request a queue
// held back before answering, and the IETF RateLimit-Policy and RateLimit
// fields as draft-ietf-httpapi-ratelimit-headers-11 defines them (the
// newest whose text could be read; docs/scenario.md says what was
// checked). Each is a List of one Item, the policy's name as a String:
//
//   - RateLimit-Policy: q, the quota, and w, its window in whole seconds.
//     The quota is the policy's capacity, and its window the time the whole
//     capacity takes to come back at the policy's rate of limit per window:
//     the window itself for the window policies, whose capacity is the
//     limit, and for a bucket with a burst above or below the limit,
//     burst × window ÷ limit, so that a token bucket of burst 10 refilling 5
//     per 30 s says q=10;w=60 — the 10 it can take at once, and the rate it
//     refills at.
//   - RateLimit: r, the quota available now, and t, the effective window:
//     the seconds (rounded up) until more than r is available if nothing
//     else arrives, so that within t no more than r passes. t is left out
//     when nothing more can come back (the whole quota is available).
//
// No pk (partition key): the decision's key already says whose quota it
// is, and a server keyed by address should not echo the address (the
// draft's section 6.1).
func Headers(pol Policy, det policies.Decision, on Peeker, key policies.Key) []Header {
	policy, p := pol.Name, pol.Params
	status := "200 OK"
	if !det.Allowed {
		status = "429 Too Many Requests"
	}
	out := []Header{{Name: "Status", Value: status}}
	if !det.Allowed && !det.Never {
		out = append(out, Header{Name: "Retry-After", Value: RetryAfter(det.RetryAfterMs)})
	}
	if det.Allowed && det.DelayMs > 0 {
		// A queued request is answered 200 once its wait is over, as nginx
		// answers it; Server-Timing (W3C) tells the client where the time went.
		out = append(out, Header{Name: "Server-Timing", Value: "queue;dur=" + strconv.FormatInt(det.DelayMs, 10) + `;desc="waited in the queue"`})
	}
	available := func(at int64) int64 { return availableAt(det, on, key, at) }
	remaining := available(det.At)
	limit := []param{{"r", remaining}}
	if more, ok := moreAfter(p, det, remaining, available); ok {
		limit = append(limit, param{"t", ceilSeconds(more)})
	}
	quota := []param{{"q", det.Capacity}, {"w", max(ceilSeconds(refillAllMs(p, det.Capacity)), 1)}}
	return append(out,
		Header{Name: "RateLimit-Policy", Value: structured(policy, quota...)},
		Header{Name: "RateLimit", Value: structured(policy, limit...)},
	)
}

// Remaining is what RateLimit's r says of det: the whole permits of its
// capacity left to key after it, with on the policy as det left it.
func Remaining(det policies.Decision, on Peeker, key policies.Key) int64 {
	return availableAt(det, on, key, det.At)
}

// availableAt is the whole permits of det's capacity available to key at
// instant at if nothing else arrives: the capacity less what on holds,
// rounded up.
func availableAt(det policies.Decision, on Peeker, key policies.Key, at int64) int64 {
	return max(det.Capacity-ceilFraction(on.Peek(key, at)), 0)
}

// moreAfter is the least wait in ms after det.At at which more than
// remaining is available, if nothing else arrives. With no arrivals a
// policy's count only falls, so what is available only grows and a binary
// search over the policy's own Peek finds the instant: the policy's
// arithmetic decides, not a formula here. By two windows and the time the
// whole capacity takes to refill everything has gone from every policy;
// false when even then no more is available (it all is already).
func moreAfter(p policies.Params, det policies.Decision, remaining int64, available func(at int64) int64) (int64, bool) {
	hi := 2*p.WindowMs + refillAllMs(p, det.Capacity)
	if remaining >= det.Capacity || available(det.At+hi) <= remaining {
		return 0, false
	}
	lo := int64(0) // available(det.At+lo) <= remaining; available(det.At+hi) > remaining
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if available(det.At+mid) > remaining {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, true
}

// refillAllMs is how long capacity permits take to come back at limit per
// window, rounded up to a whole ms.
func refillAllMs(p policies.Params, capacity int64) int64 {
	if p.Limit <= 0 {
		return p.WindowMs
	}
	return (capacity*p.WindowMs + p.Limit - 1) / p.Limit
}

// HeaderLines writes headers as an HTTP/1.1 response starts: the status
// line, then one "Name: value" line per field.
func HeaderLines(hs []Header) string {
	var b strings.Builder
	for i, h := range hs {
		if i == 0 {
			b.WriteString("HTTP/1.1 " + h.Value)
			continue
		}
		b.WriteString("\n" + h.Name + ": " + h.Value)
	}
	return b.String()
}

// param is one Integer parameter of a RateLimit field's item.
type param struct {
	key   string
	value int64
}

// maxInteger is the largest Integer a structured field holds (RFC 9651,
// 15 digits). A window of 2^40 ms with a burst of 2^20 at a limit of 1
// takes longer than that many seconds to refill: it says the largest.
const maxInteger = 999_999_999_999_999

// quotedNames holds each policy's name serialised as a String item, the
// part of a field httpsfv writes: a run words every decision's fields,
// and building the item each time was most of the cost.
var quotedNames sync.Map

// structured serialises one RateLimit field: a List of one Item, the
// policy's name as a String (serialised by httpsfv, so that quoting is the
// library's), with Integer parameters, whose syntax is ";key=digits".
// Tests read every field back with httpsfv.
func structured(name string, params ...param) string {
	quoted, ok := quotedNames.Load(name)
	if !ok {
		out, err := httpsfv.Marshal(httpsfv.List{httpsfv.NewItem(name)})
		if err != nil {
			// A policy name is plain ASCII: only a name with control
			// characters could fail, and no policy has one.
			panic("explain: serialising a policy's name: " + err.Error())
		}
		quoted, _ = quotedNames.LoadOrStore(name, out)
	}
	b := []byte(quoted.(string))
	for _, p := range params {
		b = append(append(append(b, ';'), p.key...), '=')
		b = strconv.AppendInt(b, min(max(p.value, 0), maxInteger), 10)
	}
	return string(b)
}

// Run is scenario.RunContext with every decision's Headers filled in, as
// the deciding policy would send them: a lane on several servers gives the
// headers of the node that decided, from what that node knew (its own
// count, on its own clock), since that node is the server that answered.
func Run(ctx context.Context, s scenario.Scenario) (scenario.Result, error) {
	specs := s.Specs()
	wordings := make([]Policy, len(specs))
	for i, spec := range specs {
		wordings[i] = For(s, spec)
	}
	return scenario.RunAnnotated(ctx, s, func(lane int, deciding policies.Policy, d *scenario.Decision) {
		if !d.Probe {
			d.Headers = Headers(wordings[lane], d.Detail, deciding, scenario.KeyOf(d.Key))
		}
	})
}

// HeadersText prints every decision's response, one policy after another,
// as a server would begin to write it (HeaderLines), each under the
// request it answers; on several servers the request's line names the node
// that answered. A run made by Run has the headers; probes have none and
// are left out.
func HeadersText(w io.Writer, r scenario.Result) error {
	var b strings.Builder
	for _, p := range r.Results {
		b.WriteString("\n" + p.Label + "\n")
		for i, d := range p.Decisions {
			if d.Probe {
				continue
			}
			fmt.Fprintf(&b, "  #%d at %s, %s", i+1, scenario.FormatMs(d.At), d.Key)
			if d.Nodes != nil {
				b.WriteString(", " + NodeCell(d))
			}
			b.WriteString("\n    " + strings.ReplaceAll(HeaderLines(d.Headers), "\n", "\n    ") + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

package explain

import (
	"strconv"
	"strings"

	"github.com/dunglas/httpsfv"

	"github.com/windowlab/playground/policies"
)

// Header is one HTTP response header field; the first of a response is
// the status line, named "Status".
type Header struct{ Name, Value string }

// ceilSeconds rounds a wait in ms up to whole seconds, as Retry-After and
// the RateLimit fields require.
func ceilSeconds(ms int64) int64 {
	if ms <= 0 {
		return 0
	}
	return (ms + 999) / 1000
}

// Headers returns the status line and the header fields a server enforcing
// this policy would send: Retry-After (RFC 9110, whole seconds, rounded up)
// on a refusal, and the IETF RateLimit-Policy and RateLimit fields
// (draft-ietf-httpapi-ratelimit-headers, -11: q the quota, w its window in
// whole seconds; r the quota remaining, t the seconds until it is whole
// again if nothing else arrives).
//
// The quota is the policy's capacity, and its window the time the whole
// capacity takes to come back at the policy's rate of limit per window:
// the window itself for the window policies, whose capacity is the limit,
// and for a bucket with a burst above or below the limit, burst × window ÷
// limit, so that a token bucket of burst 10 refilling 5 per 30 s says
// q=10;w=60 — the 10 it can take at once, and the rate it refills at.
func Headers(pol Policy, det policies.Decision, after policies.State) []Header {
	policy, p := pol.Name, pol.Params
	status := "200 OK"
	if !det.Allowed {
		status = "429 Too Many Requests"
	}
	out := []Header{{"Status", status}}
	if !det.Allowed && !det.Never {
		out = append(out, Header{"Retry-After", strconv.FormatInt(max(ceilSeconds(det.RetryAfterMs), 1), 10)})
	}
	remaining := max(det.Capacity-ceilFraction(after.Estimate), 0)
	var reset int64 // ms until the quota is whole again
	if !det.Allowed && !det.Never {
		reset = det.RetryAfterMs
	} else {
		reset = wordingOf(policy).resetMs(p, det.At, after)
	}
	out = append(out,
		Header{"RateLimit-Policy", structured(policy, "q", det.Capacity, "w", max(ceilSeconds(refillAllMs(p, det.Capacity)), 1))},
		Header{"RateLimit", structured(policy, "r", remaining, "t", ceilSeconds(reset))},
	)
	return out
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

// structured serialises one RateLimit field: a list of one item, the
// policy's name as a string with integer parameters (RFC 9651), so that
// quoting and parameter syntax are the library's, not hand-written.
func structured(name, k1 string, v1 int64, k2 string, v2 int64) string {
	item := httpsfv.NewItem(name)
	item.Params.Add(k1, v1)
	item.Params.Add(k2, v2)
	out, err := httpsfv.Marshal(httpsfv.List{item})
	if err != nil {
		// A policy name is plain ASCII and the parameters are whole
		// numbers far inside the 15 digits a field may hold.
		panic("explain: serialising a RateLimit field: " + err.Error())
	}
	return out
}

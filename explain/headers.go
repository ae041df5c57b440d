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
// (draft-ietf-httpapi-ratelimit-headers: q the quota, w the window in
// seconds; r the quota remaining, t the seconds until it is whole again if
// nothing else arrives).
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
		Header{"RateLimit-Policy", structured(policy, "q", p.Limit, "w", max(ceilSeconds(p.WindowMs), 1))},
		Header{"RateLimit", structured(policy, "r", remaining, "t", ceilSeconds(reset))},
	)
	return out
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

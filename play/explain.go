package play

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// explain writes out one decision's arithmetic with its own numbers, and the
// response headers a server would send.
func explain(policy, label string, params policies.Params, d scenario.Decision, before, after policies.State) *Explained {
	det := d.Detail
	p := det.Terms
	cost, capacity := det.Cost, det.Capacity
	ms := scenario.FormatMs
	if policy == policies.SlidingCounter || policy == policies.SlidingBuckets {
		// Their formulas put durations side by side: keep every one of
		// them, the retry included, in seconds.
		ms = secs
	}
	verdict := func(total string, fits bool) string {
		if fits {
			return fmt.Sprintf("%s ≤ %d: admitted", total, capacity)
		}
		return fmt.Sprintf("%s > %d: refused", total, capacity)
	}
	e := &Explained{Lane: label, Policy: policy, Decision: det, Before: before, After: after}
	add := func(format string, args ...any) { e.Steps = append(e.Steps, fmt.Sprintf(format, args...)) }
	if det.Late {
		add("The request is earlier than this client's latest one, so it is decided at %s.", ms(det.At))
	}
	switch policy {
	case policies.FixedWindow:
		add("Window [%s, %s): %d already counted in it.", ms(p.WindowStart), ms(p.WindowStart+params.WindowMs), p.Count)
		add("count + cost = %d + %d = %s", p.Count, cost, verdict(strconv.FormatInt(p.Count+cost, 10), p.Count+cost <= capacity))
	case policies.SlidingLog:
		add("Entries in the look-back (%s − window, %s]: %d.", ms(det.At), ms(det.At), p.Count)
		if p.Count > 0 {
			add("The oldest of them, at %s, leaves the window at %s (one window after it arrived).", ms(p.OldestMs), ms(p.OldestMs+params.WindowMs))
		}
		add("entries + cost = %d + %d = %s", p.Count, cost, verdict(strconv.FormatInt(p.Count+cost, 10), p.Count+cost <= capacity))
	case policies.SlidingCounter:
		// Every duration here is in seconds, with the milliseconds as
		// decimals where there are any, so that a term never mixes units.
		w := params.WindowMs
		add("Window starts at %s; elapsed = %s; previous window admitted %d, this one %d.", secs(p.WindowStart), secs(p.Elapsed), p.Previous, p.Current)
		if p.Carried.Den == 1 {
			add("carried = ⌊previous × (window − elapsed) ÷ window⌋ = ⌊%d × (%s − %s) ÷ %s⌋ = %d (floored)", p.Previous, secs(w), secs(p.Elapsed), secs(w), p.Carried.Num)
		} else {
			add("carried = previous × (window − elapsed) ÷ window = %d × (%s − %s) ÷ %s = %s (exact)", p.Previous, secs(w), secs(p.Elapsed), secs(w), formatFraction(p.Carried))
		}
		total := policies.Fraction{Num: det.Estimate.Num + cost*det.Estimate.Den, Den: det.Estimate.Den}
		add("carried + current + cost = %s + %d + %d = %s", formatFraction(p.Carried), p.Current, cost, verdict(formatFraction(total), det.Allowed))
	case policies.SlidingBuckets:
		add("The window is %d buckets of %s, and it is %s into the newest. The oldest bucket, partly outside the window, held %d: carried = %d × (%s − %s) ÷ %s = %s.",
			params.Buckets, secs(p.BucketMs), secs(p.Elapsed), p.Previous, p.Previous, secs(p.BucketMs), secs(p.Elapsed), secs(p.BucketMs), formatFraction(p.Carried))
		total := policies.Fraction{Num: det.Estimate.Num + cost*det.Estimate.Den, Den: det.Estimate.Den}
		add("carried + the other buckets + cost = %s + %d + %d = %s", formatFraction(p.Carried), p.Current, cost, verdict(formatFraction(total), det.Allowed))
	case policies.TokenBucket:
		add("Tokens before the request: %s of %d (it refills continuously at limit per window).", formatFraction(p.Tokens), capacity)
		if det.Allowed {
			add("cost %d ≤ tokens %s: admitted, leaving %s.", cost, formatFraction(p.Tokens), formatFraction(after.Tokens))
		} else {
			add("cost %d > tokens %s: refused.", cost, formatFraction(p.Tokens))
		}
	case policies.GCRA:
		add("Theoretical arrival time (TAT) before: %s; one permit is emitted every window ÷ limit = %s.", FormatInstant(p.TAT), FormatInstant(policies.Fraction{Num: params.WindowMs, Den: params.Limit}))
		total := policies.Fraction{Num: det.Estimate.Num + cost*det.Estimate.Den, Den: det.Estimate.Den}
		add("in use = (max(TAT, now) − now) ÷ interval = %s; in use + cost = %s", formatFraction(det.Estimate), verdict(formatFraction(total), det.Allowed))
		if det.Allowed {
			add("TAT moves on by cost × interval to %s.", FormatInstant(after.TAT))
		}
	}
	switch {
	case det.Allowed:
	case det.Never:
		add("The cost is above the capacity: this request can never be admitted.")
	default:
		add("Retry after %s: waiting exactly that long, with nothing else arriving, admits it.", ms(det.RetryAfterMs))
	}
	e.Headers = headers(policy, params, det, after)
	return e
}

// secs writes a duration or instant in ms always in seconds, exactly: "25 s",
// "0.25 s", "2.001 s". Unlike scenario.FormatMs it never switches to ms for
// short spans, so that the terms of one formula share a unit.
func secs(ms int64) string {
	sign := ""
	if ms < 0 {
		sign, ms = "-", -ms
	}
	if ms%1000 == 0 {
		return fmt.Sprintf("%s%d s", sign, ms/1000)
	}
	frac := strings.TrimRight(fmt.Sprintf("%03d", ms%1000), "0")
	return fmt.Sprintf("%s%d.%s s", sign, ms/1000, frac)
}

// FormatInstant shows an instant or a duration held as a fraction of a
// millisecond (GCRA's TAT, its emission interval): "36 s", or
// "1000/3 ≈ 333.33 ms".
func FormatInstant(f policies.Fraction) string {
	r := f.Reduced()
	if r.Den == 1 {
		return scenario.FormatMs(r.Num)
	}
	return formatFraction(r) + " ms"
}

// ceilSeconds rounds a wait in ms up to whole seconds, as Retry-After and
// the RateLimit fields require.
func ceilSeconds(ms int64) int64 {
	if ms <= 0 {
		return 0
	}
	return (ms + 999) / 1000
}

// headers returns the status line and the header fields a server enforcing
// this policy would send: Retry-After (RFC 9110, whole seconds, rounded up)
// on a refusal, and the IETF RateLimit-Policy and RateLimit fields
// (draft-ietf-httpapi-ratelimit-headers: q the quota, w the window in
// seconds; r the quota remaining, t the seconds until it is whole again if
// nothing else arrives).
func headers(policy string, p policies.Params, det policies.Decision, after policies.State) []Header {
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
	at := det.At
	switch {
	case !det.Allowed && !det.Never:
		reset = det.RetryAfterMs
	case policy == policies.FixedWindow:
		if after.Count > 0 {
			reset = after.WindowStart + p.WindowMs - at
		}
	case policy == policies.SlidingLog:
		if n := len(after.Log); n > 0 {
			reset = after.Log[n-1] + p.WindowMs - at
		}
	case policy == policies.SlidingCounter:
		switch {
		case after.Current > 0:
			reset = after.WindowStart + 2*p.WindowMs - at
		case after.Previous > 0:
			reset = after.WindowStart + p.WindowMs - at
		}
	case policy == policies.SlidingBuckets:
		if after.Estimate.Num > 0 {
			reset = p.WindowMs
		}
	default: // token-bucket, gcra: the permits in use refill at limit per window
		inUse := after.Estimate
		if inUse.Den > 0 {
			reset = (inUse.Num*p.WindowMs + inUse.Den*p.Limit - 1) / (inUse.Den * p.Limit)
		}
	}
	out = append(out,
		Header{"RateLimit-Policy", fmt.Sprintf("%q;q=%d;w=%d", policy, p.Limit, max(ceilSeconds(p.WindowMs), 1))},
		Header{"RateLimit", fmt.Sprintf("%q;r=%d;t=%d", policy, remaining, ceilSeconds(reset))},
	)
	return out
}

package explain

import (
	"fmt"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// Policy is what the wording needs to know about the policy that decided:
// its name and its resolved settings.
type Policy struct {
	Name   string
	Params policies.Params
}

// For is the policy a spec stands for in the scenario.
func For(s scenario.Scenario, spec scenario.PolicySpec) Policy {
	return Policy{Name: spec.Name, Params: spec.Params(s)}
}

// ForResult is the policy behind one policy's results.
func ForResult(p scenario.PolicyResult) Policy {
	o := p.Params
	return Policy{Name: p.Policy, Params: policies.Params{
		Limit: o.Limit, WindowMs: o.WindowMs, Arithmetic: o.Arithmetic, Buckets: o.Buckets, Burst: int64(o.Burst),
	}}
}

// The outcome words, the same on every page.
const (
	Admitted = "admitted"
	Refused  = "refused"
	// NeverPass is said of a request whose cost is above the capacity.
	NeverPass = "can never pass"
)

// Verdict is the outcome word alone: Admitted or Refused.
func Verdict(allowed bool) string {
	if allowed {
		return Admitted
	}
	return Refused
}

// retry words the wait a refused request is told, as the Retry-After
// header names it: "retry after 5 s".
func retry(ms int64) string { return "retry after " + scenario.FormatMs(ms) }

// Outcome words a decision: "admitted", "admitted, waits 2.6 s" (held in
// a queue), "refused, retry after 5 s" or "refused, can never pass".
func Outcome(d policies.Decision) string {
	if d.Allowed {
		if d.DelayMs > 0 {
			return Admitted + ", " + Queued(d.DelayMs)
		}
		return Admitted
	}
	return Refused + ", " + Wait(d)
}

// Queued words the wait of an admitted request a queue holds back: "waits
// 2.6 s".
func Queued(delayMs int64) string { return "waits " + secs(delayMs) }

// Wait is the refusal's tail on its own: Retry or NeverPass, and "" for an
// admitted request.
func Wait(d policies.Decision) string {
	switch {
	case d.Allowed:
		return ""
	case d.Never:
		return NeverPass
	}
	return retry(d.RetryAfterMs)
}

// Fraction shows a whole number as is, else the reduced fraction and its
// value: "25/6 ≈ 4.17".
func Fraction(f policies.Fraction) string {
	r := f.Reduced()
	if r.Den == 1 {
		return fmt.Sprint(r.Num)
	}
	return fmt.Sprintf("%d/%d ≈ %s", r.Num, r.Den, scenario.FormatFraction(r))
}

// Instant shows an instant or a duration held as a fraction of a
// millisecond (GCRA's TAT, its emission interval), exactly: "36 s", or
// "1000/3 ≈ 333.33 ms".
func Instant(f policies.Fraction) string {
	r := f.Reduced()
	if r.Den == 1 {
		return scenario.FormatMs(r.Num)
	}
	return Fraction(r) + " ms"
}

// secs writes a duration or instant always in seconds (scenario's one
// spelling of it), so that the terms of one formula share a unit.
func secs(ms int64) string { return scenario.FormatSeconds(ms) }

// ceilFraction rounds a count of permits up: what is left of a capacity is
// what the rounded-up use leaves.
func ceilFraction(f policies.Fraction) int64 {
	if f.Den <= 0 {
		return 0
	}
	return (f.Num + f.Den - 1) / f.Den
}

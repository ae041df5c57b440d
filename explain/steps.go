package explain

import (
	"fmt"
	"strconv"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// Steps writes out one decision's arithmetic with its own numbers, step by
// step: what the policy held, the comparison with its capacity, and what a
// refused request is told. after is the policy's state after the decision.
func Steps(pol Policy, det policies.Decision, after policies.State) []string {
	policy, params := pol.Name, pol.Params
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
			return fmt.Sprintf("%s ≤ %d: %s", total, capacity, Admitted)
		}
		return fmt.Sprintf("%s > %d: %s", total, capacity, Refused)
	}
	var steps []string
	add := func(format string, args ...any) { steps = append(steps, fmt.Sprintf(format, args...)) }
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
			add("carried = previous × (window − elapsed) ÷ window = %d × (%s − %s) ÷ %s = %s (exact)", p.Previous, secs(w), secs(p.Elapsed), secs(w), Fraction(p.Carried))
		}
		total := policies.Fraction{Num: det.Estimate.Num + cost*det.Estimate.Den, Den: det.Estimate.Den}
		add("carried + current + cost = %s + %d + %d = %s", Fraction(p.Carried), p.Current, cost, verdict(Fraction(total), det.Allowed))
	case policies.SlidingBuckets:
		add("The window is %d buckets of %s, and it is %s into the newest. The oldest bucket, partly outside the window, held %d: carried = %d × (%s − %s) ÷ %s = %s.",
			params.Buckets, secs(p.BucketMs), secs(p.Elapsed), p.Previous, p.Previous, secs(p.BucketMs), secs(p.Elapsed), secs(p.BucketMs), Fraction(p.Carried))
		total := policies.Fraction{Num: det.Estimate.Num + cost*det.Estimate.Den, Den: det.Estimate.Den}
		add("carried + the other buckets + cost = %s + %d + %d = %s", Fraction(p.Carried), p.Current, cost, verdict(Fraction(total), det.Allowed))
	case policies.TokenBucket:
		add("Tokens before the request: %s of %d (it refills continuously at limit per window).", Fraction(p.Tokens), capacity)
		if det.Allowed {
			add("cost %d ≤ tokens %s: %s, leaving %s.", cost, Fraction(p.Tokens), Admitted, Fraction(after.Tokens))
		} else {
			add("cost %d > tokens %s: %s.", cost, Fraction(p.Tokens), Refused)
		}
	case policies.GCRA:
		add("Theoretical arrival time (TAT) before: %s; one permit is emitted every window ÷ limit = %s.", Instant(p.TAT), Instant(policies.Fraction{Num: params.WindowMs, Den: params.Limit}))
		total := policies.Fraction{Num: det.Estimate.Num + cost*det.Estimate.Den, Den: det.Estimate.Den}
		add("in use = (max(TAT, now) − now) ÷ interval = %s; in use + cost = %s", Fraction(det.Estimate), verdict(Fraction(total), det.Allowed))
		if det.Allowed {
			add("TAT moves on by cost × interval to %s.", Instant(after.TAT))
		}
	}
	switch {
	case det.Allowed:
	case det.Never:
		add("The cost is above the capacity: this request %s.", NeverPass)
	default:
		add("Retry after %s: waiting exactly that long, with nothing else arriving, admits it.", ms(det.RetryAfterMs))
	}
	return steps
}

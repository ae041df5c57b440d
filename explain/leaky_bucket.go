package explain

import (
	"fmt"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// leakyBucket words leaky-bucket: a queue that drains at limit per window,
// in nginx's terms (excess, burst, delay), where a request may be told to
// wait instead of being refused.
type leakyBucket struct{}

func init() { register(policies.LeakyBucket, leakyBucket{}) }

// name adds the burst and the delay the spec sets: "leaky bucket (burst 5,
// nodelay)", "leaky bucket (no queue)".
func (leakyBucket) name(human string, spec scenario.PolicySpec) string {
	return withNumbers(human, spec)
}

func (leakyBucket) estimateWord() string { return "in the bucket" }

// leakyDelay is the delay the policy runs with: NoDelay is the whole burst.
func leakyDelay(p policies.Params, burst int64) int64 {
	if p.Delay == policies.NoDelay {
		return burst
	}
	return p.Delay
}

// excessOf is nginx's excess after the request: what the bucket holds
// with it, less the one permit being served.
func excessOf(det policies.Decision) policies.Fraction {
	e := plusCost(det)
	e.Num -= e.Den
	return e
}

// drainedText is what drained since the key was last updated: "0.4 in
// 0.4 s", or "nothing".
func drainedText(det policies.Decision) string {
	terms := det.Terms.LeakyBucket()
	if terms.Drained.Num == 0 {
		return "nothing"
	}
	return fmt.Sprintf("%s in %s", scenario.FormatFraction(terms.Drained), scenario.FormatMs(terms.Elapsed))
}

// working: "excess 2.6 of 5 after draining 0.4 in 400 ms; waits 2.6 s".
func (leakyBucket) working(_ Policy, d scenario.Decision) string {
	det := d.Detail
	burst := det.Capacity - 1
	head := fmt.Sprintf("excess %s of %d after draining %s", scenario.FormatFraction(excessOf(det)), burst, drainedText(det))
	switch {
	case det.Never:
		return fmt.Sprintf("cost %d is above burst + 1 = %d; it %s", det.Cost, det.Capacity, NeverPass)
	case !det.Allowed:
		return head + "; the queue is full"
	case det.DelayMs > 0:
		return head + "; waits " + secs(det.DelayMs)
	}
	return head + "; passes at once"
}

func (leakyBucket) state(s policies.State) string {
	return fmt.Sprintf("in the bucket %s of %d (%s queued behind the one served)", scenario.FormatFraction(s.Estimate), s.Capacity, scenario.FormatFraction(queued(s)))
}

// queued is the permits waiting behind the one being served.
func queued(s policies.State) policies.Fraction {
	if h, ok := s.Held.(policies.LeakyBucketHeld); ok && h.Queued.Den != 0 {
		return h.Queued
	}
	return policies.Whole(0)
}

func (leakyBucket) status(s policies.State) string {
	return fmt.Sprintf(" (queue %s)", Fraction(queued(s)))
}

func (leakyBucket) legend() string {
	return "Line: permits in the bucket (the one being served and those queued behind it), draining at limit per window. A queued request's bar runs from its arrival to its departure, after its wait."
}

func (leakyBucket) legendWhileAsked() string { return "" }

func (leakyBucket) stepsInSeconds() bool { return true }

func (leakyBucket) steps(st *stepper, pol Policy, det policies.Decision, _ policies.State) {
	burst := det.Capacity - 1
	delay := leakyDelay(pol.Params, burst)
	st.add("The bucket drains at limit per window; since this client's last admitted request %s drained, leaving %s in the bucket.", drainedText(det), Fraction(det.Estimate))
	excess := excessOf(det)
	fits := det.Allowed
	if det.Never {
		return
	}
	cmp := "≤"
	if !fits {
		cmp = ">"
	}
	st.add("excess = in the bucket + cost − the one served = %s %s burst %d: %s.", Fraction(excess), cmp, burst, Verdict(fits))
	switch {
	case !fits:
	case det.DelayMs == 0:
		st.add("excess %s ≤ delay %d: it passes at once.", Fraction(excess), delay)
	default:
		st.add("The excess above delay %d drains in %s (rounded up to the ms): it waits %s and leaves at %s.", delay, secs(det.DelayMs), secs(det.DelayMs), secs(det.At+det.DelayMs))
	}
	st.add("%s", quotaWords(pol.Params, det.Capacity))
}

// quotaWords says why the leaky bucket's RateLimit-Policy reads as it does
// (see Headers): its quota is what the bucket holds, the queue and the one
// served, and its window the time all of it takes to drain, so that
// limit 5 per 30 s with a queue of 5 says q=6;w=36 where a window of the
// same limit says q=5;w=30.
func quotaWords(p policies.Params, capacity int64) string {
	w := max(ceilSeconds(refillAllMs(p, capacity)), 1)
	return fmt.Sprintf("Its RateLimit-Policy says q=%d;w=%d: q is what the bucket holds, burst %d queued behind the one served, and w the seconds all %d take to drain at %d per %s (%d × %s ÷ %d, rounded up), not the limit's q=%d;w=%d.",
		capacity, w, capacity-1, capacity, p.Limit, secs(p.WindowMs), capacity, secs(p.WindowMs), p.Limit, p.Limit, max(ceilSeconds(p.WindowMs), 1))
}

func (leakyBucket) toWorkOut(p policies.Params, window, when string) string {
	return fmt.Sprintf("work out the queue's level at %s: what it held after the last request, less what drained since, plus this request.", when)
}

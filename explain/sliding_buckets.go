package explain

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// slidingBuckets words sliding-buckets: a ring of k sub-buckets, the
// oldest weighted.
type slidingBuckets struct{}

func init() { register(policies.SlidingBuckets, slidingBuckets{}) }

func (slidingBuckets) name(human string, spec scenario.PolicySpec) string {
	switch spec.Buckets {
	case 0:
		return human
	case 1:
		return "ring of 1 sub-bucket"
	}
	return fmt.Sprintf("ring of %d sub-buckets", spec.Buckets)
}

func (slidingBuckets) estimateWord() string { return "estimate" }

func (slidingBuckets) working(_ Policy, d scenario.Decision) string {
	t := d.Detail.Terms.SlidingBuckets()
	weight := policies.Fraction{Num: t.BucketMs - t.Elapsed, Den: max(t.BucketMs, 1)}.Reduced().String()
	return fmt.Sprintf("oldest %d × %s + %d in the newer buckets = %s; + %d against %d",
		t.Oldest, weight, t.Rest, scenario.FormatFraction(d.Estimate), d.Cost, d.Detail.Capacity)
}

func (slidingBuckets) state(s policies.State) string {
	h, _ := s.Held.(policies.SlidingBucketsHeld)
	cs := make([]string, len(h.Slots))
	for i, sl := range h.Slots {
		cs[i] = strconv.FormatInt(sl.Count, 10)
	}
	return fmt.Sprintf("slots [%s], estimate %s", strings.Join(cs, " "), scenario.FormatFraction(s.Estimate))
}

func (slidingBuckets) status(policies.State) string { return "" }

func (slidingBuckets) legend() string {
	return "Bars: the sub-buckets at the clock, the oldest weighted by the part of it still inside the window. Line: the estimate."
}

func (slidingBuckets) legendWhileAsked() string { return "" }

func (slidingBuckets) stepsInSeconds() bool { return true }

func (slidingBuckets) steps(st *stepper, pol Policy, det policies.Decision, _ policies.State) {
	p := det.Terms.SlidingBuckets()
	st.add("The window is %d buckets of %s, and it is %s into the newest. The oldest bucket, partly outside the window, held %d: carried = %d × (%s − %s) ÷ %s = %s.",
		pol.Params.Buckets, secs(p.BucketMs), secs(p.Elapsed), p.Oldest, p.Oldest, secs(p.BucketMs), secs(p.Elapsed), secs(p.BucketMs), Fraction(p.Carried))
	st.add("carried + the other buckets + cost = %s + %d + %d = %s", Fraction(p.Carried), p.Rest, det.Cost, st.verdict(Fraction(plusCost(det)), det.Allowed))
}

func (slidingBuckets) toWorkOut(p policies.Params, window, when string) string {
	return fmt.Sprintf("add up the sub-buckets still inside the %s window at %s, the oldest one weighted.", window, when)
}

func (slidingBuckets) carried(d policies.Decision) policies.Fraction {
	return d.Terms.SlidingBuckets().Carried
}

package explain

import (
	"fmt"
	"strings"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// expHistogram words exp-histogram: buckets of powers of two, the oldest
// counted at half.
type expHistogram struct{}

func init() { register(policies.ExpHistogram, expHistogram{}) }

func (expHistogram) name(human string, spec scenario.PolicySpec) string {
	return withNumbers(human, spec)
}

func (expHistogram) estimateWord() string { return "estimate" }

func (expHistogram) working(_ Policy, d scenario.Decision) string {
	t := d.Detail.Terms.ExpHistogram()
	if t.Buckets == 0 {
		return fmt.Sprintf("no bucket in the look-back; %d against %d", d.Cost, d.Detail.Capacity)
	}
	return fmt.Sprintf("%d in the newer buckets + %s of the oldest (%d) = %s; + %d against %d",
		t.Total-t.Oldest, halfWords(t.Oldest, oldestCounted(t, d.Detail.Estimate)), t.Oldest, scenario.FormatFraction(d.Estimate), d.Cost, d.Detail.Capacity)
}

// oldestCounted is what the policy's estimate counted of the oldest
// bucket: the estimate less the newer buckets, which it counts in full.
// It is read from the decision rather than halved again here.
func oldestCounted(t policies.ExpHistogramTerms, estimate policies.Fraction) int64 {
	return estimate.Num/estimate.Den - (t.Total - t.Oldest)
}

// halfWords is what the estimate counts of the oldest bucket of size, in
// words.
func halfWords(size, counted int64) string {
	if size == 1 {
		return "all 1"
	}
	return fmt.Sprintf("half, %d,", counted)
}

func expHeld(s policies.State) policies.ExpHistogramHeld {
	h, _ := s.Held.(policies.ExpHistogramHeld)
	return h
}

func (expHistogram) state(s policies.State) string {
	h := expHeld(s)
	if len(h.Buckets) == 0 {
		return "no bucket"
	}
	bs := make([]string, len(h.Buckets))
	for i, b := range h.Buckets {
		bs[i] = fmt.Sprintf("%d@%s", b.Size, scenario.FormatMs(b.At))
	}
	return "buckets, oldest first: " + strings.Join(bs, " ")
}

func (expHistogram) status(s policies.State) string {
	if n := len(expHeld(s).Buckets); n > 0 {
		return fmt.Sprintf(" (%d buckets)", n)
	}
	return ""
}

func (expHistogram) legend() string {
	return "Blocks: the buckets, each ending at its newest permit, as tall as its permits; the oldest, counted at half, is faint with a dashed edge. Line: the estimate."
}

func (expHistogram) legendWhileAsked() string { return "" }

func (expHistogram) stepsInSeconds() bool { return false }

func (expHistogram) steps(st *stepper, pol Policy, det policies.Decision, _ policies.State) {
	t := det.Terms.ExpHistogram()
	if t.Buckets == 0 {
		st.add("No bucket holds a permit of the last %s: the estimate is 0.", scenario.FormatMs(pol.Params.WindowMs))
	} else {
		st.add("%d buckets hold %d permits of the last %s. The oldest (%d, its newest permit at %s) may have begun before the look-back, so it counts at half (a bucket of one in full): estimate = %d − %d + %d = %s.",
			t.Buckets, t.Total, scenario.FormatMs(pol.Params.WindowMs), t.Oldest, Instant(policies.Whole(t.OldestAt)),
			t.Total, t.Oldest, oldestCounted(t, det.Estimate), Fraction(det.Estimate))
	}
	st.add("estimate + cost = %s + %d = %s", Fraction(det.Estimate), det.Cost, st.verdict(Fraction(plusCost(det)), det.Allowed))
}

func (expHistogram) toWorkOut(p policies.Params, window, when string) string {
	return fmt.Sprintf("merge the admitted permits into buckets of 1, 2, 4, … (at most %d of a size), drop those whose newest permit is older than %s before %s, and count the oldest at half.", p.Buckets, window, when)
}

package explain

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// slidingLog words sliding-log: the timestamps of the last window.
type slidingLog struct{}

func init() { register(policies.SlidingLog, slidingLog{}) }

func (slidingLog) name(human string, _ scenario.PolicySpec) string { return human }
func (slidingLog) estimateWord() string                            { return "count" }

func (slidingLog) working(p Policy, d scenario.Decision) string {
	t, w := d.Detail.Terms.SlidingLog(), p.Params.WindowMs
	return fmt.Sprintf("%d in (%s, %s]; %d + %d against %d", t.Count, scenario.FormatMs(d.Detail.At-w), scenario.FormatMs(d.Detail.At), t.Count, d.Cost, d.Detail.Capacity)
}

func (slidingLog) state(s policies.State) string {
	log := logOf(s)
	ts := make([]string, len(log))
	for i, t := range log {
		ts[i] = scenario.FormatMs(t)
	}
	return fmt.Sprintf("%d in the log: [%s]", len(log), strings.Join(ts, ", "))
}

func (slidingLog) status(policies.State) string { return "" }

func (slidingLog) legend() string {
	return "Shaded: the look-back (now − window, now]. Ticks on the axis: the timestamps the log holds. Line: the count in the look-back."
}

func (slidingLog) legendWhileAsked() string { return "Shaded: the look-back (now − window, now]." }

func (slidingLog) stepsInSeconds() bool { return false }

func (slidingLog) steps(st *stepper, pol Policy, det policies.Decision, _ policies.State) {
	p, ms := det.Terms.SlidingLog(), st.ms
	st.add("Entries in the look-back (%s − window, %s]: %d.", ms(det.At), ms(det.At), p.Count)
	if p.Count > 0 {
		st.add("The oldest of them, at %s, leaves the window at %s (one window after it arrived).", ms(p.OldestMs), ms(p.OldestMs+pol.Params.WindowMs))
	}
	st.add("entries + cost = %d + %d = %s", p.Count, det.Cost, st.verdict(strconv.FormatInt(p.Count+det.Cost, 10), p.Count+det.Cost <= st.capacity))
}

// logOf is the timestamps a state holds (none in a zero state).
func logOf(s policies.State) []int64 {
	h, _ := s.Held.(policies.SlidingLogHeld)
	return h.Log
}

func (slidingLog) toWorkOut(p policies.Params, window, when string) string {
	return fmt.Sprintf("count the requests in the %s before %s; one exactly %s old no longer counts.", window, when, window)
}

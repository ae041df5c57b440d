package explain

import (
	"fmt"
	"strings"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// State describes what a policy holds for one key in one line: "window
// from 30 s, previous 5, current 1, estimate 4.5".
func State(policy string, s policies.State) string {
	return wordingOf(policy).state(s)
}

// Status is the line under a playground lane: the count or estimate at
// the clock, what remains, and what the next request would get. next is
// nil when the clock is before the last request, where the policy has
// already moved past the clock and cannot say.
func Status(policy string, now, capacity int64, s policies.State, next *policies.Decision) string {
	b := statusHead(policy, now, capacity, s)
	if next == nil {
		b.WriteString(" · the clock is before the last request")
	} else {
		b.WriteString(" · the next request " + nextOutcome(*next))
	}
	return b.String()
}

// StatusOnNode is Status for a lane on several servers with the clock at
// or after the last request, where the node the next request reaches is
// known (its route is the next in turn, the client's server, or the seeded
// generator's next draw): s is the combined lane's, next that node's
// answer, node from 0.
func StatusOnNode(policy string, now, capacity int64, s policies.State, next policies.Decision, node int) string {
	b := statusHead(policy, now, capacity, s)
	b.WriteString(" · the next request reaches " + NodeName(node) + " and " + nextOutcome(next))
	return b.String()
}

// nextOutcome is what the next request would get, after "the next request".
func nextOutcome(next policies.Decision) string {
	switch {
	case next.Allowed && next.DelayMs > 0:
		return "would be " + Admitted + " and " + Queued(next.DelayMs)
	case next.Allowed:
		return "would be " + Admitted
	case next.Never:
		return NeverPass + " (its cost is above the capacity)"
	default:
		return "would be " + Refused + ", " + retry(next.RetryAfterMs)
	}
}

// StatusOnServers is Status for a lane on several servers with the clock
// at or after the last request whose next answer is not shown (see
// StatusOnNode): s is the combined lane's, and what the next request would
// get is not said, since it is decided by the node it reaches, on what
// that node alone has heard of.
func StatusOnServers(policy string, now, capacity int64, s policies.State) string {
	b := statusHead(policy, now, capacity, s)
	b.WriteString(" · the next request's answer depends on the server it reaches")
	return b.String()
}

// statusHead is what Status and StatusOnServers both start with: the count
// or estimate at the clock and what remains.
func statusHead(policy string, now, capacity int64, s policies.State) *strings.Builder {
	b := new(strings.Builder)
	est := s.Estimate
	w := wordingOf(policy)
	fmt.Fprintf(b, "At %s: %s %s of %d", scenario.FormatMs(now), w.estimateWord(), Fraction(est), capacity)
	fmt.Fprintf(b, " · %d left", max(capacity-ceilFraction(est), 0))
	b.WriteString(w.status(s))
	return b
}

// StatusWhileAsked is the line under a lane while a workshop room's
// question about it is open. It states nothing the policy holds (no count
// or estimate, nothing left, no tokens, no TAT, nothing about the next
// request): at the question's moment each of those is the answer, or the
// answer after one subtraction.
func StatusWhileAsked(now int64) string {
	return fmt.Sprintf("At %s: what this policy holds is hidden while a question is open: work it out from the requests drawn", scenario.FormatMs(now))
}

// WorkingWhileAsked stands for a request's working while a workshop
// room's question is open. Of a request before the question the lanes
// draw only whether it got in; its working, and the state before and
// after it, are the policy's state at the question for the last such
// request, which StatusWhileAsked keeps hidden for the same reason.
const WorkingWhileAsked = "While a question is open only each policy's verdict is shown here: how it decided, and what it held before and after, would give the answer away. They come back at the reveal."

// Legend says what a playground lane draws for the policy besides the
// requests' marks.
func Legend(policy string) string { return wordingOf(policy).legend() }

// LegendWhileAsked is Legend for a lane drawn while a workshop room's
// question about it is open, which draws no line, bars, ticks or TAT
// (lane.Options.Asked): it names only what is drawn, the windows and the
// log's look-back, and is empty for a policy whose lane then draws the
// requests alone.
func LegendWhileAsked(policy string) string { return wordingOf(policy).legendWhileAsked() }

// WindowCount is a drawn window's count in words, for its block's title
// when the short label ("10/10") does not fit: "window from 3 s to 4 s:
// 10 of 10 permits admitted".
func WindowCount(start, end, admitted, limit int64) string {
	return fmt.Sprintf("window from %s to %s: %d of %d permits admitted", scenario.FormatMs(start), scenario.FormatMs(end), admitted, limit)
}

// WindowOpenWhileAsked stands for WindowCount while a workshop room's
// question is open and the window has not ended by it: its count is what
// the policy holds, which may be the answer.
func WindowOpenWhileAsked(start, end int64) string {
	return fmt.Sprintf("window from %s to %s: still open at the question, its count hidden", scenario.FormatMs(start), scenario.FormatMs(end))
}

// DrawsWindows reports whether a lane of the policy shows its
// epoch-aligned windows, with the permits admitted in each: those the
// registry marks as counting in such windows (policies.Info.Windows).
func DrawsWindows(policy string) bool {
	in, ok := policies.Lookup(policy)
	return ok && in.Windows
}

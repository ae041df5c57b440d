package ask

import (
	"fmt"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// A clue is the step between "Not quite" and the whole answer: worked out
// from the learner's own answer, it says which part of the working theirs
// differs in (a request miscounted, a window, the retry, a millisecond at
// the edge) without stating the answer. Each kind words its own (Kind.Clue);
// this file holds what several share.

// clue fills fb.Clue for a wrong answer that was read.
func clue(k Kind, q Question, sol Solution, text string, choices []string, fb *Feedback) {
	if !fb.Readable || fb.Correct {
		return
	}
	if ans, err := k.Parse(q, text, choices); err == nil {
		fb.Clue = k.Clue(q, sol, ans)
	}
}

// countClue points a wrong count at the request where it most likely went
// astray, from the decisions of lane (the trace of a count or a stack).
func countClue(sol Solution, lane, given int) string {
	var steps []Step
	for _, st := range sol.Trace {
		if st.Lane == lane && !st.NoInstant {
			steps = append(steps, st)
		}
	}
	right := sol.Count
	if len(steps) == 0 || given == right {
		return ""
	}
	if given >= len(steps) {
		return "That counts every request sent, the refused ones too: count only the ones admitted."
	}
	firstRefused := -1
	for i, st := range steps {
		if !st.Decision.Allowed() {
			firstRefused = i
			break
		}
	}
	if given > right && firstRefused >= 0 {
		return fmt.Sprintf("Check the request at %s: there is no room for it when it arrives, so it is the first one not to count.", steps[firstRefused].When())
	}
	// Too few: the request most often missed is one let in after a
	// refusal, once something has left the window or refilled.
	for i := firstRefused + 1; firstRefused >= 0 && i < len(steps); i++ {
		if steps[i].Decision.Allowed() {
			return fmt.Sprintf("Check the request at %s: after the refusals before it, room has come back by then, so it gets in.", steps[i].When())
		}
	}
	if firstRefused >= 0 {
		return fmt.Sprintf("Count again the requests before %s, the first refusal: every one of them gets in.", steps[firstRefused].When())
	}
	return "Every request gets in: none of them finds the limit full."
}

// whatDecides says what to work out for lane i at the instant, by the
// policy's own arithmetic, without saying how it comes out.
func whatDecides(q Question, i int, at int64) string {
	spec := q.Lanes[i].Spec
	p := spec.Params(q.Scenario)
	w, when := scenario.FormatMs(p.WindowMs), scenario.FormatMs(at)
	switch spec.Name {
	case policies.FixedWindow:
		return fmt.Sprintf("count the requests in the fixed window that holds %s: when did that window start?", when)
	case policies.SlidingLog:
		return fmt.Sprintf("count the requests in the %s before %s; one exactly %s old no longer counts.", w, when, w)
	case policies.SlidingCounter:
		carried := "the previous window's count weighted by how much of it the last " + w + " still covers"
		if p.Arithmetic == policies.Floor {
			carried += ", rounded down"
		}
		return fmt.Sprintf("at %s, add %s to the current window's count.", when, carried)
	case policies.SlidingBuckets:
		return fmt.Sprintf("add up the sub-buckets still inside the %s window at %s, the oldest one weighted.", w, when)
	case policies.TokenBucket:
		return fmt.Sprintf("count the tokens left after the last request and those refilled by %s.", when)
	case policies.GCRA:
		return fmt.Sprintf("compare %s with the theoretical arrival time less the burst's allowance.", when)
	}
	return fmt.Sprintf("work through what the %s holds at %s.", Name(q.Lanes[i]), when)
}

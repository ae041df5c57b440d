package ask

import (
	"fmt"
	"strings"

	"github.com/windowlab/playground/explain"
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
		return fmt.Sprintf("Check %s: there is no room for it when it arrives, so it is the first one not to count.", whichAt(steps, firstRefused))
	}
	if given > right {
		return ""
	}
	// Too few: counted in order, the learner's count runs out at the
	// (given+1)th admitted request; it is often one let in after a refusal,
	// once something has left the window or refilled.
	admitted := 0
	for i, st := range steps {
		if !st.Decision.Allowed() {
			continue
		}
		if admitted++; admitted == given+1 {
			after := ""
			if firstRefused >= 0 && i > firstRefused {
				after = ", after the refusals before it: room has come back by then"
			}
			return fmt.Sprintf("Counted in order, your count runs out before %s, which the policy admits%s. Check it and the ones after it.", whichAt(steps, i), after)
		}
	}
	return ""
}

// whichAt names steps[i] so that the learner can find it: "the request at
// 5 s", or, when several arrive at that instant, which of them ("the 6th of
// the 8 requests at 0 s"), since "the request at 0 s" names none of them.
func whichAt(steps []Step, i int) string {
	nth, of := 0, 0
	for j, st := range steps {
		if st.At != steps[i].At {
			continue
		}
		of++
		if j <= i {
			nth++
		}
	}
	if of == 1 {
		return "the request at " + steps[i].When()
	}
	return fmt.Sprintf("the %s of the %d requests at %s", ordinal(nth), of, steps[i].When())
}

// ordinal writes n as "1st", "2nd", "3rd", "4th", "11th", "22nd".
func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return fmt.Sprintf("%d%s", n, suffix)
}

// windowed reports whether the policy counts in windows, so that an answer
// off by a whole window is a window miscounted: the buckets and GCRA
// refill instead (policies.Info.Refills).
func windowed(name string) bool {
	in, ok := policies.Lookup(name)
	return ok && !in.Refills
}

// joinAnd joins names as a sentence does: "a, b and c".
func joinAnd(names []string) string {
	if n := len(names); n > 1 {
		return strings.Join(names[:n-1], ", ") + " and " + names[n-1]
	}
	return strings.Join(names, "")
}

// whatDecides says what to work out for lane i at the instant, by the
// policy's own arithmetic (its wording's, in explain), without saying how
// it comes out.
func whatDecides(q Question, i int, at int64) string {
	spec := q.Lanes[i].Spec
	if s := explain.ToWorkOut(spec.Name, spec.Params(q.Scenario), at); s != "" {
		return s
	}
	return fmt.Sprintf("work through what the %s holds at %s.", Name(q.Lanes[i]), scenario.FormatMs(at))
}

package ask

import (
	"fmt"
	"strconv"

	"github.com/windowlab/playground/scenario"
)

// cacheLineK asks for the largest k of a ring of sub-buckets that divides
// the scenario's window and whose state for one key fits a 64-byte cache
// line (scenario.CacheLineBuckets, as the ring lesson's claim).
type cacheLineK struct{ whole }

func init() { register(cacheLineK{whole{more: "too large", fewer: "too small", what: "k"}}) }

func (cacheLineK) Name() string  { return "cache-line-k" }
func (cacheLineK) About() string { return "rings of sub-buckets on the scenario's window" }

func (cacheLineK) Validate(*Question) error { return nil }

func (cacheLineK) Solve(q Question) (Solution, error) {
	sol := Solution{Kind: q.Kind}
	w := q.Scenario.WindowMs
	k, err := scenario.CacheLineBuckets(w, func(k, bytes int64) {
		st := Step{Policy: RefName("sliding-buckets/" + strconv.FormatInt(k, 10)), NoInstant: true}
		st.Working = fmt.Sprintf("%d numbers × 8 B = %d B", bytes/8, bytes)
		if bytes > scenario.CacheLineBytes {
			st.Outcome = fmt.Sprintf("over one %d-byte line", scenario.CacheLineBytes)
		} else {
			st.Outcome = fmt.Sprintf("fits one %d-byte line", scenario.CacheLineBytes)
		}
		if w%k == 0 {
			st.Note = fmt.Sprintf("buckets of %s divide the %s window", scenario.FormatMs(w/k), scenario.FormatMs(w))
		} else {
			st.Note = fmt.Sprintf("does not divide the %s window into whole milliseconds", scenario.FormatMs(w))
		}
		sol.Trace = append(sol.Trace, st)
	})
	if err != nil {
		return Solution{}, err
	}
	sol.Count = int(k)
	sol.Truth = []int64{k}
	return sol, nil
}

func (k cacheLineK) Grade(q Question, sol Solution, text string, choices []string) Feedback {
	return k.grade(k, q, sol, text, choices)
}

// Clue works out the ring the learner named: whether it fits a line and
// divides the window, or, for a k too small, that a larger one still does.
func (cacheLineK) Clue(q Question, sol Solution, a Answer) string {
	k := int64(a.Count)
	if k < 1 {
		return "k is how many sub-buckets the ring has: at least 1."
	}
	if k < int64(sol.Count) {
		return fmt.Sprintf("A ring of %d sub-buckets fits, but it is not the largest: try larger rings that divide the window and still fit %d bytes.", k, scenario.CacheLineBytes)
	}
	name := RefName("sliding-buckets/" + strconv.FormatInt(k, 10))
	for _, st := range sol.Trace {
		if st.Policy == name {
			return fmt.Sprintf("For the %s: %s, %s; %s.", name, st.Working, st.Outcome, st.Note)
		}
	}
	if q.Scenario.WindowMs%k != 0 {
		return fmt.Sprintf("%d sub-buckets do not divide the %s window into whole milliseconds.", k, scenario.FormatMs(q.Scenario.WindowMs))
	}
	return fmt.Sprintf("Count the numbers a ring of %d sub-buckets keeps for one key, 8 bytes each: do they fit %d bytes?", k, scenario.CacheLineBytes)
}

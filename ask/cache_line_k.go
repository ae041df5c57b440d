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

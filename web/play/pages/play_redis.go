package pages

import (
	"fmt"

	"github.com/windowlab/playground/explain"
	"github.com/windowlab/playground/lane"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// RedisRow is what lane l's Redis row shows (serve -redis): each of the
// lane's drawn requests that Redis decided, as it decided it, and the
// row's line; nil when the page has no Redis mirror. A request Redis
// decided as Go did is drawn from Go's mark, which it equals in every
// field of the decision (onredis compares them all).
func RedisRow(pp PlayPage, l play.Lane) *lane.Redis {
	if pp.Redis == nil {
		return nil
	}
	r := pp.Redis.Lane(l.Index)
	out := &lane.Redis{Status: r.Status(), Undecided: r.Unavailable != "" || r.Skipped != ""}
	for _, m := range l.Marks {
		if !r.Replayed(m.Index) {
			continue
		}
		rm := lane.RedisMark{Index: m.Index, At: m.At, Allowed: m.Allowed, Future: m.Future, Level: m.Level, Stack: m.Stack}
		d := policies.Decision{Allowed: m.Allowed, Never: m.Never, RetryAfterMs: m.Retry, DelayMs: m.Delay}
		rm.Text = fmt.Sprintf("request %d at %s %s on Redis, as in Go", m.Index+1, scenario.FormatMs(m.At), explain.Outcome(d))
		if diff, ok := r.Differs(m.Index); ok {
			rm.Allowed, rm.Differs = diff.Redis.Allowed, true
			rm.Level, rm.Stack = diff.Redis.Estimate.Float()+float64(m.Cost), 0
			rm.Text = "Redis and Go differ on " + diff.Describe()
		}
		out.Marks = append(out.Marks, rm)
	}
	return out
}

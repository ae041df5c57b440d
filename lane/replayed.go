package lane

import (
	"fmt"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
)

// Replayed is sc's lanes with the clock at now, each decided by the
// policies as a new playground holding sc draws them (its span fitted to
// the activity): the picture under an exercise's answer, each frame of the
// home page's. Their ids are prefix-0, prefix-1, … so that several sets
// drawn on one page stay apart.
func Replayed(prefix string, sc scenario.Scenario, now int64) ([]Input, error) {
	sess, err := play.NewSession(prefix, sc)
	if err != nil {
		return nil, err
	}
	if err := sess.Jump(now); err != nil {
		return nil, err
	}
	v := sess.View()
	out := make([]Input, 0, len(v.Lanes))
	for i, l := range v.Lanes {
		l.ID = fmt.Sprintf("%s-%d", prefix, i)
		out = append(out, FromView(v, l))
	}
	return out, nil
}

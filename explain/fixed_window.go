package explain

import (
	"fmt"
	"strconv"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// fixedWindow words fixed-window: a count per epoch-aligned window.
type fixedWindow struct{}

func init() { register(policies.FixedWindow, fixedWindow{}) }

func (fixedWindow) name(human string, _ scenario.PolicySpec) string { return human }
func (fixedWindow) estimateWord() string                            { return "count" }

func (fixedWindow) working(_ Policy, d scenario.Decision) string {
	t := d.Detail.Terms.FixedWindow()
	return fmt.Sprintf("window from %s holds %d; %d + %d against %d", scenario.FormatMs(t.WindowStart), t.Count, t.Count, d.Cost, d.Detail.Capacity)
}

func (fixedWindow) state(s policies.State) string {
	h, _ := s.Held.(policies.FixedWindowHeld)
	return fmt.Sprintf("window from %s, count %d", scenario.FormatMs(h.WindowStart), h.Count)
}

func (fixedWindow) status(policies.State) string { return "" }

func (fixedWindow) legend() string {
	return "Blocks: the fixed windows, labelled with the permits each admitted (every few windows when they are too narrow for a label each; every block's title has its count). Line: the count."
}

func (fixedWindow) legendWhileAsked() string { return windowsWhileAsked }

// windowsWhileAsked is the legend, while a question is open, of a lane
// that draws its windows and nothing else.
const windowsWhileAsked = "Blocks: the windows, those that ended before the question labelled with the permits each admitted (every few when they are too narrow for a label each), ? on one still open."

func (fixedWindow) stepsInSeconds() bool { return false }

func (fixedWindow) steps(st *stepper, pol Policy, det policies.Decision, _ policies.State) {
	p, ms := det.Terms.FixedWindow(), st.ms
	st.add("Window [%s, %s): %d already counted in it.", ms(p.WindowStart), ms(p.WindowStart+pol.Params.WindowMs), p.Count)
	st.add("count + cost = %d + %d = %s", p.Count, det.Cost, st.verdict(strconv.FormatInt(p.Count+det.Cost, 10), p.Count+det.Cost <= st.capacity))
}

func (fixedWindow) toWorkOut(p policies.Params, window, when string) string {
	return fmt.Sprintf("count the requests in the fixed window that holds %s: when did that window start?", when)
}

package templates

import (
	"math"

	"github.com/windowlab/playground/explain"
	"github.com/windowlab/playground/lane"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
)

// PresentLaneHeight is a presentation lane's height in viewBox units: low
// enough that its labels, scaled up to the lane's share of the screen,
// stay large, with room above the axis for the marks of a few permits.
const PresentLaneHeight = 110

// PresentLaneOptions sizes a lane for the presentation view, where lanes
// lanes share the height of a 16:9 screen beside the explanation: the
// more lanes, the lower each one's slot, so the wider its drawing (about
// 1.1 × lanes : 1, never narrower than a normal lane). A lane whose slot
// is another shape is letterboxed, not distorted, so it still fits.
func PresentLaneOptions(lanes int, o lane.Options) lane.Options {
	aspect := max(float64(lane.DefaultWidth)/lane.DefaultHeight, 1.1*float64(lanes))
	o.Height = PresentLaneHeight
	o.Width = int(math.Round(aspect * PresentLaneHeight))
	return o
}

// PresentOutcome words one lane's decision on the selected request:
// "admitted", "refused, retry after 5 s".
func PresentOutcome(e play.Explained) string { return explain.Outcome(e.Decision) }

// PresentWorking is lane i's arithmetic for the selected request on one
// line, as the lessons' tables write it.
func PresentWorking(v play.View, i int) string {
	if v.Selected == nil || i >= len(v.Selected.Lanes) || i >= len(v.Lanes) {
		return ""
	}
	e, l := v.Selected.Lanes[i], v.Lanes[i]
	d := scenario.Decision{At: v.Selected.At, Cost: e.Decision.Cost, Estimate: e.Decision.Estimate, Detail: e.Decision}
	return explain.Working(explain.Policy{Name: e.Policy, Params: l.Params}, d)
}

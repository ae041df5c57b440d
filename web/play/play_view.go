package play

import (
	"net/url"
	"strconv"

	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/scenario"
)

// view changes the span the lanes show (view state, not the scenario):
//
//	?zoom=<factor>[&at=<ms>]  zoom by factor (0.5 in, 2 out) around at
//	?pan=<ms>                 move the span by ms (negative: earlier)
//	?fit=activity|all         fit the activity again, or show everything
//
// The buttons above the lanes, their keys and the lane script's wheel and
// drag gestures (lane.js) all post here.
func view(sess *play.Session, _ Signals, q url.Values) error {
	switch {
	case q.Has("fit"):
		switch q.Get("fit") {
		case "activity":
			return sess.Fit(play.FitActivity)
		case "all":
			return sess.Fit(play.FitAll)
		}
		return scenario.Errors{{Field: "fit", Reason: "want ?fit=activity or ?fit=all"}}
	case q.Has("zoom"):
		factor, err := strconv.ParseFloat(q.Get("zoom"), 64)
		if err != nil {
			return scenario.Errors{{Field: "zoom", Reason: "want ?zoom=<factor>, such as 0.5 to zoom in or 2 to zoom out"}}
		}
		at := int64(-1) // the span's middle
		if q.Has("at") {
			if at, err = strconv.ParseInt(q.Get("at"), 10, 64); err != nil {
				return scenario.Errors{{Field: "at", Reason: "want &at=<ms>, the instant to zoom around"}}
			}
		}
		return sess.ZoomBy(factor, at)
	case q.Has("pan"):
		ms, err := strconv.ParseInt(q.Get("pan"), 10, 64)
		if err != nil {
			return scenario.Errors{{Field: "pan", Reason: "want ?pan=<ms>, negative to go earlier"}}
		}
		return sess.Pan(ms)
	}
	return scenario.Errors{{Field: "view", Reason: "want ?zoom=, ?pan= or ?fit="}}
}

package traffic

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/windowlab/playground/scenario"
)

// Target is what a fitted limit must meet: at most Share (0 to 1) of the
// clients (Clients true) or of the requests refused.
type Target struct {
	Clients bool
	Share   float64
}

// ParseTarget reads "clients:1%" or "requests:0.5%" (a share as a percent
// or a fraction: "clients:0.01").
func ParseTarget(s string) (Target, error) {
	what, share, ok := strings.Cut(s, ":")
	bad := fmt.Errorf("fit %q: want clients:SHARE or requests:SHARE, a share such as 1%% or 0.01", s)
	if !ok || (what != "clients" && what != "requests") {
		return Target{}, bad
	}
	pct := strings.HasSuffix(share, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(share, "%"), 64)
	if err != nil {
		return Target{}, bad
	}
	if pct {
		v /= 100
	}
	if v < 0 || v >= 1 {
		return Target{}, fmt.Errorf("fit %q: the share must be at least 0 and below 100%%", s)
	}
	return Target{Clients: what == "clients", Share: v}, nil
}

func (t Target) String() string {
	what := "requests"
	if t.Clients {
		what = "clients"
	}
	return fmt.Sprintf("at most %s of %s refused", strconv.FormatFloat(t.Share*100, 'g', -1, 64)+"%", what)
}

// met reports whether a point meets the target.
func (t Target) met(p Point) bool {
	if t.Clients {
		return p.ClientsShare <= t.Share
	}
	return p.RefusedShare <= t.Share
}

// Fit is the smallest limit meeting a target under one policy.
type Fit struct {
	Name  string `json:"name"`
	Label string `json:"label"` // at the fitted limit
	// Limit is the smallest limit meeting the target; 0 when no limit up
	// to scenario.MaxLimit does.
	Limit int64 `json:"limit"`
	Point Point `json:"point"` // at Limit (at scenario.MaxLimit when none)
	// Tried is how many limits were replayed to find it.
	Tried int `json:"tried"`
}

// FitReport is --fit's answer.
type FitReport struct {
	Log      Summary `json:"log"`
	Target   string  `json:"target"`
	WindowMs int64   `json:"windowMs"`
	Policies []Fit   `json:"policies"`
}

// FitTrace finds, for each policy of set, the smallest limit from 1 to
// scenario.MaxLimit whose refusals meet the target. It doubles the limit
// until the target is met, then halves the gap between the largest limit
// known to miss and the smallest known to meet it, so it replays about
// 2·log2(limit) limits; every round is one pass over the trace with a lane
// per policy still searching. It assumes that a larger limit refuses no
// more, which the tests check against trying every limit.
func FitTrace(ctx context.Context, t *Trace, set Settings, target Target) (FitReport, error) {
	if err := set.Validate(); err != nil {
		return FitReport{}, err
	}
	specs := set.Specs()
	type search struct {
		bad, good int64 // largest limit known to miss (0: none); smallest known to meet (0: none yet)
		goodPoint Point
		maxPoint  Point
		tried     int
		done      bool
	}
	ss := make([]search, len(specs))
	for {
		var lanes []*lane
		var which []int
		var limits []int64
		for i := range ss {
			s := &ss[i]
			if s.done {
				continue
			}
			var next int64
			switch {
			case s.good == 0 && s.bad >= scenario.MaxLimit:
				s.done = true
				continue
			case s.good == 0:
				next = min(max(1, 2*s.bad), scenario.MaxLimit)
			case s.good-s.bad <= 1:
				s.done = true
				continue
			default:
				next = (s.bad + s.good) / 2
			}
			l, err := newLane(set, specs[i], next)
			if err != nil {
				return FitReport{}, err
			}
			l.verdicts = true // a point reports shares only
			lanes, which, limits = append(lanes, l), append(which, i), append(limits, next)
		}
		if len(lanes) == 0 {
			break
		}
		if err := replayTrace(ctx, t, lanes); err != nil {
			return FitReport{}, err
		}
		for k, l := range lanes {
			s := &ss[which[k]]
			s.tried++
			p := l.point(limits[k])
			if limits[k] == scenario.MaxLimit {
				s.maxPoint = p
			}
			if target.met(p) {
				s.good, s.goodPoint = limits[k], p
			} else {
				s.bad = limits[k]
			}
		}
	}
	rep := FitReport{Log: t.Summary, Target: target.String(), WindowMs: set.WindowMs}
	for i, spec := range specs {
		s := ss[i]
		f := Fit{Name: spec.Name, Limit: s.good, Point: s.goodPoint, Tried: s.tried}
		if s.good == 0 {
			f.Point = s.maxPoint
		}
		lim := s.good
		if lim == 0 {
			lim = scenario.MaxLimit
		}
		at := set
		at.Limit = lim
		f.Label = spec.Label(at.scenario())
		rep.Policies = append(rep.Policies, f)
	}
	return rep, nil
}

package traffic

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/windowlab/playground/scenario"
)

// MaxSweepLimits bounds the limits one sweep runs (each is a lane per
// policy, all decided in one pass over the log).
const MaxSweepLimits = 100

// ParseLimits reads a sweep's limits: FROM:TO:STEP ("10:200:10") or a list
// ("10,20,50"), each from 1 to scenario.MaxLimit.
func ParseLimits(s string) ([]int64, error) {
	var out []int64
	if from, rest, ok := strings.Cut(s, ":"); ok {
		to, stepText, _ := strings.Cut(rest, ":")
		if stepText == "" {
			stepText = "1"
		}
		a, err1 := strconv.ParseInt(from, 10, 64)
		b, err2 := strconv.ParseInt(to, 10, 64)
		step, err3 := strconv.ParseInt(stepText, 10, 64)
		if err1 != nil || err2 != nil || err3 != nil || step < 1 || a > b {
			return nil, fmt.Errorf("sweep %q: want FROM:TO:STEP with FROM ≤ TO and STEP ≥ 1, or a list such as 10,20,50", s)
		}
		for l := a; l <= b && len(out) <= MaxSweepLimits; l += step {
			out = append(out, l)
		}
	} else {
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("sweep %q: %q is not a whole number", s, f)
			}
			out = append(out, n)
		}
	}
	if len(out) > MaxSweepLimits {
		return nil, fmt.Errorf("sweep %q: more than %d limits", s, MaxSweepLimits)
	}
	for _, l := range out {
		if l < 1 || l > scenario.MaxLimit {
			return nil, fmt.Errorf("sweep %q: limit %d is out of range (1 to %d)", s, l, scenario.MaxLimit)
		}
	}
	return out, nil
}

// Point is one policy at one limit: what share of the requests and of
// the clients it refused.
type Point struct {
	Limit          int64   `json:"limit"`
	Requests       int64   `json:"requests"`
	Refused        int64   `json:"refused"`
	RefusedShare   float64 `json:"refusedShare"` // of requests, 0 to 1
	Clients        int     `json:"clients"`
	ClientsRefused int     `json:"clientsRefused"`
	ClientsShare   float64 `json:"clientsRefusedShare"` // of clients ever refused, 0 to 1
}

// Curve is one policy over the limits swept.
type Curve struct {
	Name   string  `json:"name"`
	Label  string  `json:"label"` // at the first limit
	Points []Point `json:"points"`
}

// SweepReport is a sweep's answer.
type SweepReport struct {
	Log      Summary `json:"log"`
	WindowMs int64   `json:"windowMs"`
	Policies []Curve `json:"policies"`
}

// sweepLanes is a lane per policy and limit, policy by policy, each
// deciding verdicts only: a sweep makes 20 times a replay's decisions at 20
// limits, and the verdict path is what makes that cost a few replays
// (docs/performance.md).
func sweepLanes(set Settings, limits []int64) ([]*lane, error) {
	if err := set.Validate(); err != nil {
		return nil, err
	}
	var lanes []*lane
	for _, spec := range set.Specs() {
		for _, limit := range limits {
			l, err := newLane(set, spec, limit)
			if err != nil {
				return nil, err
			}
			l.verdicts = true // a point reports shares only
			lanes = append(lanes, l)
		}
	}
	return lanes, nil
}

func sweepReport(sum Summary, set Settings, limits []int64, lanes []*lane) SweepReport {
	rep := SweepReport{Log: sum, WindowMs: set.WindowMs}
	for i, spec := range set.Specs() {
		c := Curve{Name: spec.Name}
		for j, limit := range limits {
			l := lanes[i*len(limits)+j]
			if j == 0 {
				c.Label = spec.Label(l.s)
			}
			c.Points = append(c.Points, l.point(limit))
		}
		rep.Policies = append(rep.Policies, c)
	}
	return rep
}

// point sums a lane up as a point of a sweep.
func (l *lane) point(limit int64) Point {
	p := Point{Limit: limit, Clients: len(l.refused)}
	for id := range l.refused {
		p.Requests += int64(l.admitted[id]) + int64(l.refused[id])
		p.Refused += int64(l.refused[id])
		if l.refused[id] > 0 {
			p.ClientsRefused++
		}
	}
	if p.Requests > 0 {
		p.RefusedShare = float64(p.Refused) / float64(p.Requests)
	}
	if p.Clients > 0 {
		p.ClientsShare = float64(p.ClientsRefused) / float64(p.Clients)
	}
	return p
}

// Sweep streams the log once through every policy at every limit (one lane
// each, side by side).
func Sweep(ctx context.Context, src Source, opts Options, set Settings, limits []int64) (SweepReport, error) {
	lanes, err := sweepLanes(set, limits)
	if err != nil {
		return SweepReport{}, err
	}
	opts.WindowMs = set.WindowMs
	sum, _, err := stream(ctx, src, opts, lanes)
	if err != nil {
		return SweepReport{Log: sum}, err
	}
	return sweepReport(sum, set, limits, lanes), nil
}

// SweepTrace is Sweep over a trace already read.
func SweepTrace(ctx context.Context, t *Trace, set Settings, limits []int64) (SweepReport, error) {
	lanes, err := sweepLanes(set, limits)
	if err != nil {
		return SweepReport{}, err
	}
	if err := replayTrace(ctx, t, lanes); err != nil {
		return SweepReport{}, err
	}
	return sweepReport(t.Summary, set, limits, lanes), nil
}

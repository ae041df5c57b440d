package play

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/windowlab/playground/scenario"
)

// PatternKind is the shape of traffic a pattern fires (see scenario.Shape:
// the playground and the lessons generate traffic the same way).
type PatternKind = scenario.Shape

// The shapes the playground offers.
const (
	Steady      = scenario.Steady
	Poisson     = scenario.Poisson
	FrontLoaded = scenario.FrontLoaded
	EndLoaded   = scenario.EndLoaded
	Straddle    = scenario.Straddle
)

// PatternKinds lists the patterns in the order the page offers them.
var PatternKinds = []PatternKind{Steady, Poisson, FrontLoaded, EndLoaded, Straddle}

// Pattern is one traffic pattern: Count requests over SpanMs starting at the
// clock (Straddle ignores the span: it goes to the next boundary). Cost,
// when not 0, becomes the session's cost before the pattern fires, in the
// same change (see FireCost).
type Pattern struct {
	Kind   PatternKind
	Count  int64
	SpanMs int64
	Cost   int64
}

// MaxPatternCount caps the requests one pattern fires.
const MaxPatternCount = 1000

// times returns the request instants of the pattern starting at from, for a
// window of windowMs, drawing randomness from seed. Instants are sorted.
func (p Pattern) times(from, windowMs int64, seed uint64) ([]int64, error) {
	if p.Count < 1 || p.Count > MaxPatternCount {
		return nil, scenario.Errors{{Field: "count", Reason: fmt.Sprintf("%d is out of range (a pattern fires 1 to %d requests)", p.Count, MaxPatternCount)}}
	}
	if !slices.Contains(PatternKinds, p.Kind) {
		return nil, scenario.Errors{{Field: "pattern", Reason: fmt.Sprintf("unknown pattern %q", p.Kind)}}
	}
	span := p.SpanMs
	if p.Kind == Straddle {
		span = windowMs // it goes to the next boundary, whatever the span
	} else if span < 1 || span > scenario.MaxWindowMs {
		return nil, scenario.Errors{{Field: "span", Reason: fmt.Sprintf("%d ms is out of range (1 ms to %d ms)", p.SpanMs, int64(scenario.MaxWindowMs))}}
	}
	t := scenario.Traffic{Shape: p.Kind, From: from, SpanMs: span, WindowMs: windowMs, Count: p.Count, Seed: seed}
	return t.Times()
}

// FirePattern runs a pattern from the clock's time for the selected client and
// moves the clock to the last request it made, so its effect shows at once.
// Requests at the same instant are merged into one entry with a count.
func (s *Session) FirePattern(p Pattern) error {
	if err := checkCost(p.Cost, true); err != nil {
		return err
	}
	return s.do(func() error {
		now := s.Now()
		times, err := p.times(now, s.sc.WindowMs, uint64(s.patterns)+1)
		if err != nil {
			return err
		}
		if times[len(times)-1] > MaxClock {
			return scenario.Errors{{Field: "span", Reason: "the pattern would run past the end of the clock"}}
		}
		cost := cmp.Or(p.Cost, s.cost)
		if err := s.insert(scenario.Requests(times, s.keyField(), cost)...); err != nil {
			return err
		}
		s.cost = cost
		s.patterns++
		s.clock.Jump(max(now, times[len(times)-1]), s.at)
		return nil
	})
}

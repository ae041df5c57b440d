package play

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/windowlab/playground/scenario"
)

// PatternKind names a traffic shape the playground can fire over a span.
type PatternKind string

// The traffic patterns.
const (
	// Steady spreads Count requests evenly over the span.
	Steady PatternKind = "steady"
	// Poisson draws Count arrivals with exponential gaps (a Poisson process)
	// whose mean rate fills the span; seeded, so the same actions give the
	// same requests.
	Poisson PatternKind = "poisson"
	// FrontLoaded puts Count requests in the first tenth of each window the
	// span covers.
	FrontLoaded PatternKind = "front"
	// EndLoaded puts Count requests in the last tenth of each window.
	EndLoaded PatternKind = "end"
	// Straddle fires half of Count just before the next window boundary and
	// half just after it: the fixed window's boundary burst.
	Straddle PatternKind = "straddle"
)

// PatternKinds lists the patterns in the order the page offers them.
var PatternKinds = []PatternKind{Steady, Poisson, FrontLoaded, EndLoaded, Straddle}

// Label is a short description for the page.
func (k PatternKind) Label() string {
	switch k {
	case Steady:
		return "steady rate"
	case Poisson:
		return "Poisson (random, seeded)"
	case FrontLoaded:
		return "front-loaded windows"
	case EndLoaded:
		return "end-loaded windows"
	case Straddle:
		return "burst straddling a window boundary"
	}
	return string(k)
}

// Pattern is one traffic pattern: Count requests over SpanMs starting at the
// clock (Straddle ignores the span: it goes to the next boundary).
type Pattern struct {
	Kind   PatternKind
	Count  int64
	SpanMs int64
}

// MaxPatternCount caps the requests one pattern fires.
const MaxPatternCount = 1000

// times returns the request instants of the pattern starting at from, for a
// window of windowMs, drawing randomness from seed. Instants are sorted.
func (p Pattern) times(from, windowMs int64, seed uint64) ([]int64, error) {
	if p.Count < 1 || p.Count > MaxPatternCount {
		return nil, scenario.Errors{{Field: "count", Reason: fmt.Sprintf("%d is out of range (a pattern fires 1 to %d requests)", p.Count, MaxPatternCount)}}
	}
	if p.Kind != Straddle && (p.SpanMs < 1 || p.SpanMs > scenario.MaxWindowMs) {
		return nil, scenario.Errors{{Field: "span", Reason: fmt.Sprintf("%d ms is out of range (1 ms to %d ms)", p.SpanMs, int64(scenario.MaxWindowMs))}}
	}
	n, span := p.Count, p.SpanMs
	out := make([]int64, 0, n)
	switch p.Kind {
	case Steady:
		for i := range n {
			out = append(out, from+i*span/n)
		}
	case Poisson:
		rng := rand.New(rand.NewPCG(seed, 0x706c6179)) // "play"
		mean := float64(span) / float64(n)
		t := float64(from)
		for range n {
			t += rng.ExpFloat64() * mean
			out = append(out, int64(math.Round(t)))
		}
	case FrontLoaded, EndLoaded:
		// The windows the span touches, aligned to the epoch as the
		// policies align them; Count is shared out among them.
		first := from - from%windowMs
		windows := (from+span-1)/windowMs - first/windowMs + 1
		tenth := max(windowMs/10, 1)
		for i := range n {
			w := first + (i%windows)*windowMs
			off := (i / windows) * tenth / max((n+windows-1)/windows, 1)
			if p.Kind == EndLoaded {
				off = windowMs - tenth + off
			}
			out = append(out, max(w+off, from))
		}
	case Straddle:
		edge := from - from%windowMs + windowMs
		gap := max(windowMs/100, 1) // a hundredth of the window either side
		half := n / 2
		for i := range n {
			if i < n-half {
				out = append(out, max(edge-gap, from))
			} else {
				out = append(out, edge+gap)
			}
		}
	default:
		return nil, scenario.Errors{{Field: "pattern", Reason: fmt.Sprintf("unknown pattern %q", p.Kind)}}
	}
	slices.Sort(out)
	return out, nil
}

// FirePattern runs a pattern from the clock's time for the selected client and
// moves the clock to the last request it made, so its effect shows at once.
// Requests at the same instant are merged into one entry with a count.
func (s *Session) FirePattern(p Pattern) error {
	return s.do(func() error {
		times, err := p.times(s.clock.Now, s.sc.WindowMs, uint64(s.patterns)+1)
		if err != nil {
			return err
		}
		if times[len(times)-1] > MaxClock {
			return scenario.Errors{{Field: "span", Reason: "the pattern would run past the end of the clock"}}
		}
		var reqs []scenario.Request
		for _, t := range times {
			if n := len(reqs); n > 0 && reqs[n-1].At == t {
				reqs[n-1].Count++
				continue
			}
			reqs = append(reqs, scenario.Request{At: t, Key: s.keyField(), Cost: s.cost, Count: 1})
		}
		if err := s.insert(reqs...); err != nil {
			return err
		}
		s.patterns++
		s.clock.Jump(max(s.clock.Now, times[len(times)-1]))
		return nil
	})
}

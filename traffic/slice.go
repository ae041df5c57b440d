package traffic

import (
	"fmt"
	"slices"

	"github.com/windowlab/playground/scenario"
)

// Capture collects one client's requests while a log streams past, for a
// scenario of its own (ClientScenario): at most scenario.MaxRequests.
type Capture struct {
	Key       string
	Requests  []Request
	Truncated bool // the client sent more than were kept
	id        uint32
	found     bool
}

func (c *Capture) take(chunk []Request, clients *Clients) {
	if !c.found {
		if c.id, c.found = clients.ID(c.Key); !c.found {
			return
		}
	}
	for _, r := range chunk {
		if r.Client != c.id {
			continue
		}
		if len(c.Requests) >= scenario.MaxRequests {
			c.Truncated = true
			return
		}
		c.Requests = append(c.Requests, r)
	}
}

// CaptureClient reads a log for one client's requests alone (the first
// scenario.MaxRequests), deciding nothing.
func CaptureClient(src Source, opts Options, key string) (*Capture, Summary, error) {
	c := &Capture{Key: key}
	sum, _, err := Read(src, opts, func(chunk []Request, clients *Clients) error {
		c.take(chunk, clients)
		return nil
	})
	return c, sum, err
}

// ClientScenario writes one client's requests as a scenario that simulate
// and the playground load, run through set's policies: at most
// scenario.MaxRequests of them, sorted by time (a scenario's requests
// never go backwards), requests at one instant as one entry with a count.
// Times are moved back by a whole number of every policy's windows, so
// that windows aligned to the epoch fall where they fell in the log and
// every decision is the one the log's replay made, while the first request
// lands within a window of 0.
func ClientScenario(set Settings, key string, reqs []Request) (scenario.Scenario, error) {
	if len(reqs) == 0 {
		return scenario.Scenario{}, fmt.Errorf("%w: no request of client %q in the log", ErrBadLog, key)
	}
	if len(reqs) > scenario.MaxRequests {
		reqs = reqs[:scenario.MaxRequests]
	}
	sorted := slices.Clone(reqs)
	slices.SortStableFunc(sorted, func(a, b Request) int { return int(a.At - b.At) })
	s := set.scenario()
	shift := sorted[0].At
	if period := windowsPeriod(s); period > 0 {
		shift -= shift % period
	} else {
		shift = 0
	}
	for _, r := range sorted {
		at := r.At - shift
		if n := len(s.Requests); n > 0 && s.Requests[n-1].At == at && s.Requests[n-1].Cost == int64(r.Cost) {
			s.Requests[n-1].Count++
			continue
		}
		s.Requests = append(s.Requests, scenario.Request{At: at, Key: key, Cost: int64(r.Cost), Count: 1})
	}
	if len(key) > scenario.MaxKeyLen {
		for i := range s.Requests {
			s.Requests[i].Key = key[:scenario.MaxKeyLen]
		}
	}
	return s, s.Validate()
}

// windowsPeriod is the least common multiple of the windows of s's
// policies, or 0 if it passes a day's worth of years (then times stay).
func windowsPeriod(s scenario.Scenario) int64 {
	period := int64(1)
	for _, spec := range s.Specs() {
		w := spec.Params(s).WindowMs
		period = period / gcd(period, w) * w
		if period > 1<<41 {
			return 0
		}
	}
	return period
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

package traffic

import (
	"cmp"
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// Settings are what the policies run with, in a scenario's words: the
// shared limit and window and the policies (scenario.ParsePolicyRef's short
// names, or specs with their options).
type Settings struct {
	Limit    int64
	WindowMs int64
	Policies []scenario.PolicySpec // none: scenario.DefaultPolicies
}

// scenario is the settings as a scenario with no requests, which checks
// them as any scenario's are checked.
func (s Settings) scenario() scenario.Scenario {
	return scenario.Scenario{Limit: s.Limit, WindowMs: s.WindowMs, Policies: s.Policies}
}

// Validate checks the settings with the scenario's rules and messages.
func (s Settings) Validate() error {
	if err := s.scenario().Validate(); err != nil {
		return fmt.Errorf("%w: %v", ErrBadLog, err)
	}
	return nil
}

// Specs are the policies run, the defaults when none are named.
func (s Settings) Specs() []scenario.PolicySpec { return s.scenario().Specs() }

// lane is one policy at one limit, replayed over the whole log, with what
// it decided for each client.
type lane struct {
	spec     scenario.PolicySpec
	s        scenario.Scenario // the lane's settings, for labels and params
	replay   *scenario.LaneReplay
	hooks    scenario.Hooks
	chunk    []Request // the chunk being fed
	admitted []uint32  // by client
	refused  []uint32
	late     int64
	// outcomes, when not nil, gets bit i set when the i-th request of the
	// trace is admitted (Outcomes); fed is how many were fed before.
	outcomes []uint64
	fed      int
	// verdicts, for a sweep's lanes and Outcomes', decides through the
	// policy's fast path (scenario.LaneReplay.FeedVerdicts): admitted or
	// refused only, so late requests are not counted.
	verdicts bool
	allowed  []bool // the chunk's verdicts
}

func newLane(set Settings, spec scenario.PolicySpec, limit int64) (*lane, error) {
	s := scenario.Scenario{Limit: set.Limit, WindowMs: set.WindowMs, Policies: []scenario.PolicySpec{spec}}
	if limit > 0 {
		s.Limit = limit
		s.Policies[0].Limit = 0
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadLog, err)
	}
	r, err := scenario.StartLane(s, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadLog, err)
	}
	l := &lane{spec: s.Policies[0], s: s, replay: r}
	l.hooks.After = func(_ policies.Policy, d scenario.Decision) error {
		c := l.chunk[d.Entry].Client
		if d.Detail.Allowed {
			l.admitted[c]++
		} else {
			l.refused[c]++
		}
		if d.Detail.Late {
			l.late++
		}
		return nil
	}
	return l, nil
}

func (l *lane) feed(ctx context.Context, keyed []scenario.KeyedRequest, chunk []Request, clients int) error {
	if n := clients - len(l.admitted); n > 0 {
		l.admitted = append(l.admitted, make([]uint32, n)...)
		l.refused = append(l.refused, make([]uint32, n)...)
	}
	l.chunk = chunk
	var err error
	if l.verdicts {
		l.allowed = slices.Grow(l.allowed[:0], len(chunk))[:len(chunk)]
		if err = l.replay.FeedVerdicts(ctx, keyed, l.allowed); err == nil {
			for i, ok := range l.allowed {
				if c := chunk[i].Client; ok {
					l.admitted[c]++
					if l.outcomes != nil {
						j := l.fed + i
						l.outcomes[j/64] |= 1 << (j % 64)
					}
				} else {
					l.refused[c]++
				}
			}
		}
	} else {
		err = l.replay.Feed(ctx, keyed, l.hooks)
	}
	l.fed += len(chunk)
	return err
}

// decider feeds chunks to every lane, the lanes side by side on all cores:
// each chunk is decided by every lane before the next, so memory holds one
// or two chunks, never the log.
type decider struct {
	lanes   []*lane
	keyed   []scenario.KeyedRequest
	clients int
}

func (d *decider) decide(ctx context.Context, chunk []Request) error {
	d.keyed = d.keyed[:0]
	for _, r := range chunk {
		d.keyed = append(d.keyed, scenario.KeyedRequest{At: r.At, Key: policies.Key(r.Client), Cost: int64(r.Cost)})
		d.clients = max(d.clients, int(r.Client)+1)
	}
	workers := min(runtime.GOMAXPROCS(0), len(d.lanes))
	var next atomic.Int64
	errs := make([]error, len(d.lanes))
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(d.lanes); i = int(next.Add(1) - 1) {
				errs[i] = d.lanes[i].feed(ctx, d.keyed, chunk, d.clients)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// stream reads src and has every lane decide it, reading the next chunk
// while the lanes decide the one before.
func stream(ctx context.Context, src Source, opts Options, lanes []*lane) (Summary, *Clients, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	full := make(chan []Request, 1)
	free := make(chan []Request, 2)
	for range 2 {
		free <- make([]Request, 0, ChunkRequests)
	}
	type done struct {
		sum     Summary
		clients *Clients
		err     error
	}
	result := make(chan done, 1)
	go func() {
		sum, clients, err := Read(src, opts, func(chunk []Request, _ *Clients) error {
			select {
			case buf := <-free:
				full <- append(buf[:0], chunk...)
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
		close(full)
		result <- done{sum, clients, err}
	}()
	d := &decider{lanes: lanes}
	var decideErr error
	for chunk := range full {
		if decideErr == nil {
			if decideErr = d.decide(ctx, chunk); decideErr != nil {
				cancel()
			}
		}
		free <- chunk
	}
	res := <-result
	if decideErr != nil {
		return res.sum, nil, decideErr
	}
	return res.sum, res.clients, res.err
}

// replayTrace has every lane decide a trace held in memory.
func replayTrace(ctx context.Context, t *Trace, lanes []*lane) error {
	d := &decider{lanes: lanes}
	for _, c := range t.Chunks {
		if err := d.decide(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

// Outcomes replays a trace through every policy of set and returns, per
// policy, a bit per request in trace order, set when it was admitted: 1 bit
// a request, for drawing a log's lanes at any zoom without replaying it.
func Outcomes(ctx context.Context, t *Trace, set Settings) ([][]uint64, error) {
	if err := set.Validate(); err != nil {
		return nil, err
	}
	n := t.Len()
	var lanes []*lane
	for _, spec := range set.Specs() {
		l, err := newLane(set, spec, 0)
		if err != nil {
			return nil, err
		}
		l.outcomes = make([]uint64, (n+63)/64)
		l.verdicts = true
		lanes = append(lanes, l)
	}
	if err := replayTrace(ctx, t, lanes); err != nil {
		return nil, err
	}
	out := make([][]uint64, len(lanes))
	for i, l := range lanes {
		out[i] = l.outcomes
	}
	return out, nil
}

// Admitted reads request i's bit from one policy's Outcomes.
func Admitted(bits []uint64, i int) bool { return bits[i/64]&(1<<(i%64)) != 0 }

// PolicyReport is what one policy decided over the whole log.
type PolicyReport struct {
	Name     string             `json:"name"`
	Label    string             `json:"label"`
	Params   scenario.ParamsOut `json:"params"`
	Requests int64              `json:"requests"`
	Admitted int64              `json:"admitted"`
	Refused  int64              `json:"refused"`
	// Late counts requests earlier than their client's latest, decided by
	// the policy's late rule.
	Late int64 `json:"late"`
	// ClientsRefused is how many clients had at least one request refused.
	ClientsRefused int `json:"clientsRefused"`
	// Clients are the clients refused most first (then those sending most),
	// all of them or the first Options' top.
	Clients []ClientReport `json:"clients"`
}

// ClientReport is one client's requests under one policy.
type ClientReport struct {
	Key      string `json:"key"`
	Requests int64  `json:"requests"`
	Admitted int64  `json:"admitted"`
	Refused  int64  `json:"refused"`
	// Peak is the most requests the client sent in one window (aligned to
	// the epoch, as fixed-window's windows are).
	Peak int64 `json:"peak"`
}

// Report is the answer for one log: what was read, and per policy what it
// decided.
type Report struct {
	Log      Summary        `json:"log"`
	Limit    int64          `json:"limit"`
	WindowMs int64          `json:"windowMs"`
	Policies []PolicyReport `json:"policies"`
}

// report sums a lane up, listing its top clients most refused first (all
// of them when top is 0).
func (l *lane) report(clients *Clients, top int) PolicyReport {
	p := PolicyReport{Name: l.spec.Name, Label: l.spec.Label(l.s), Params: l.spec.Out(l.s), Late: l.late}
	ids := make([]uint32, 0, len(l.admitted))
	for id := range l.admitted {
		p.Admitted += int64(l.admitted[id])
		p.Refused += int64(l.refused[id])
		if l.refused[id] > 0 {
			p.ClientsRefused++
		}
		ids = append(ids, uint32(id))
	}
	p.Requests = p.Admitted + p.Refused
	slices.SortFunc(ids, func(a, b uint32) int {
		if c := cmp.Compare(l.refused[b], l.refused[a]); c != 0 {
			return c
		}
		if c := cmp.Compare(clients.Requests(b), clients.Requests(a)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	if top > 0 && len(ids) > top {
		ids = ids[:top]
	}
	p.Clients = make([]ClientReport, 0, len(ids))
	for _, id := range ids {
		p.Clients = append(p.Clients, ClientReport{Key: clients.Name(id), Requests: clients.Requests(id),
			Admitted: int64(l.admitted[id]), Refused: int64(l.refused[id]), Peak: clients.Peak(id)})
	}
	return p
}

// ReplayOptions add to Settings what a replay reports.
type ReplayOptions struct {
	// Top is how many clients each policy lists, most refused first; 0 all.
	Top int
}

// Replay streams the log through every policy of set, per client.
func Replay(ctx context.Context, src Source, opts Options, set Settings, ro ReplayOptions) (Report, error) {
	if err := set.Validate(); err != nil {
		return Report{}, err
	}
	opts.WindowMs = set.WindowMs
	var lanes []*lane
	for _, spec := range set.Specs() {
		l, err := newLane(set, spec, 0)
		if err != nil {
			return Report{}, err
		}
		lanes = append(lanes, l)
	}
	sum, clients, err := stream(ctx, src, opts, lanes)
	if err != nil {
		return Report{Log: sum}, err
	}
	return buildReport(sum, clients, set, lanes, ro.Top), nil
}

// ReplayTrace is Replay on a trace already read.
func ReplayTrace(ctx context.Context, t *Trace, set Settings, top int) (Report, error) {
	if err := set.Validate(); err != nil {
		return Report{}, err
	}
	var lanes []*lane
	for _, spec := range set.Specs() {
		l, err := newLane(set, spec, 0)
		if err != nil {
			return Report{}, err
		}
		lanes = append(lanes, l)
	}
	if err := replayTrace(ctx, t, lanes); err != nil {
		return Report{}, err
	}
	return buildReport(t.Summary, t.Clients, set, lanes, top), nil
}

func buildReport(sum Summary, clients *Clients, set Settings, lanes []*lane, top int) Report {
	rep := Report{Log: sum, Limit: set.Limit, WindowMs: set.WindowMs}
	for _, l := range lanes {
		rep.Policies = append(rep.Policies, l.report(clients, top))
	}
	return rep
}

package web

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/windowlab/playground/explain"
	"github.com/windowlab/playground/scenario"
)

// Bounds on running scenarios for visitors (POST /api/simulate and the
// decisions downloads). One worst-case run (10,000 requests through 8
// sliding-log lanes of limit 10,000 over 100 keys) takes about 0.6 s of one
// core and some 100 MB while its answer is encoded, so without these ten
// such requests a second grew the server past 11 GB.
const (
	// MaxRunWork is the work budget of one call, in decisions × lanes:
	// what the largest valid scenario asks for (scenario.MaxRequests
	// decisions in each of scenario.MaxPolicies lanes). A call's share of
	// the server's run capacity is its work over this budget.
	MaxRunWork = scenario.MaxRequests * scenario.MaxPolicies
	// RunTimeout bounds one call from its admission, once its body has
	// arrived (within BodyReadTimeout, before admission), to the end of its
	// replay (decoding included), leaving time to write the answer within
	// 2 s. A run cut short answers 503: it is the server being busy, not
	// the scenario being wrong.
	RunTimeout = time.Second
	// runShares is how many small calls fit in one worst-case call's room:
	// the least share a call takes is 1/runShares of a slot.
	runShares = 100
	// RetryAfterSeconds is what a refused caller is told to wait.
	RetryAfterSeconds = 2
	// smallRunWork is the most work a run whose size is known before it is
	// admitted (a download) may have and still take no share of the run
	// slots: the least share's worth, 800 decisions × lanes, such as a
	// 200-request session in the playground's four lanes. Such a run takes
	// a few milliseconds, so a download of a small session is never refused
	// because a larger run holds the slots.
	smallRunWork = MaxRunWork / runShares
	// smallRuns bounds the small runs at once, apart from the slots: 16
	// worst-case small runs are about 0.1 s of one core.
	smallRuns = 16
)

// runLimiter admits scenario runs while their summed work fits in slots
// worst-case runs at once (one per core but one by default), and refuses the rest at
// once rather than queueing them: a queue would hold their memory and answer
// late.
type runLimiter struct {
	now   func() time.Time // the server's clock (Config.Now)
	sem   *semaphore.Weighted
	small *semaphore.Weighted // runs of at most smallRunWork, admitted by size
	slots int
}

func newRunLimiter(slots int, now func() time.Time) *runLimiter {
	if slots < 1 {
		slots = defaultRunSlots(runtime.GOMAXPROCS(0))
	}
	return &runLimiter{now: now, sem: semaphore.NewWeighted(int64(slots) * runShares), small: semaphore.NewWeighted(smallRuns), slots: slots}
}

// defaultRunSlots leaves one core of several to pages and streams: with
// every core replaying scenarios, /lessons waited behind them (p99 190 ms
// against 15 ms with one core free, on two cores).
func defaultRunSlots(procs int) int { return max(1, procs-1) }

// RunWork is the work of running s: decisions × lanes.
func RunWork(s scenario.Scenario) int64 {
	var decisions int64
	for _, r := range s.Requests {
		decisions += r.Count
	}
	return decisions * int64(len(s.Specs()))
}

// tryAcquire reserves room for a run of the given work and returns the
// function that frees it, or false when the server is at capacity.
func (l *runLimiter) tryAcquire(work int64) (release func(), ok bool) {
	weight := max(1, min(runShares, work*runShares/MaxRunWork))
	if !l.sem.TryAcquire(weight) {
		return nil, false
	}
	return func() { l.sem.Release(weight) }, true
}

// RunTicket is room reserved in a runLimiter. admit reserves a worst-case
// call's room before the body is even read, so that reading, decoding, the
// run and the encoding of its answer all happen within the capacity; once
// the scenario is known, fit gives back what it does not need.
type RunTicket struct {
	l        *runLimiter
	weight   int64
	small    bool // holds one of l.small, not a share of the slots
	admitted time.Time
}

// admitWork is admit for a run whose work is known before anything is
// read (a download): it reserves only that work's share, and a small run
// none of the slots at all. A download used to reserve a worst-case slot
// first, so while any other run held even one share it was refused.
func (l *runLimiter) admitWork(work int64) (*RunTicket, bool) {
	if work <= smallRunWork {
		if !l.small.TryAcquire(1) {
			return nil, false
		}
		return &RunTicket{l: l, small: true, admitted: l.now()}, true
	}
	w := max(1, min(runShares, work*runShares/MaxRunWork))
	if !l.sem.TryAcquire(w) {
		return nil, false
	}
	return &RunTicket{l: l, weight: w, admitted: l.now()}, true
}

func (l *runLimiter) admit() (*RunTicket, bool) {
	if !l.sem.TryAcquire(runShares) {
		return nil, false
	}
	return &RunTicket{l: l, weight: runShares, admitted: l.now()}, true
}

// AdmitRun reserves a worst-case run's share of the run capacity, before
// the scenario is known (a body still to read); RunScenario gives back what
// the scenario does not need. False: the server is at capacity.
func (s *Server) AdmitRun() (*RunTicket, bool) { return s.runs.admit() }

// AdmitRunWork reserves the share of a run whose work (RunWork) is known
// before anything is read, such as a download.
func (s *Server) AdmitRunWork(work int64) (*RunTicket, bool) { return s.runs.admitWork(work) }

func (t *RunTicket) fit(work int64) {
	if t.small {
		return
	}
	if w := max(1, min(runShares, work*runShares/MaxRunWork)); w < t.weight {
		t.l.sem.Release(t.weight - w)
		t.weight = w
	}
}

// Release gives the ticket's share back.
func (t *RunTicket) Release() {
	if t.small {
		t.l.small.Release(1)
		t.small = false
		return
	}
	t.l.sem.Release(t.weight)
	t.weight = 0
}

// ErrBusy is returned by RunScenario when the run outlived RunTimeout, and
// said to callers the limiter refuses.
var ErrBusy = errors.New("the server is busy running other scenarios; try again in a few seconds")

// RunScenario runs sc for a request holding ticket t: within RunTimeout, and
// stopping soon after the request is cancelled (the client left, or the
// server is shutting down). It returns ErrBusy when the run took too long,
// the request's context error when it was cancelled, and sc's validation
// errors (scenario.Errors) otherwise.
func (s *Server) RunScenario(r *http.Request, t *RunTicket, sc scenario.Scenario) (scenario.Result, error) {
	return s.RunScenarioWith(r, t, sc, scenario.RunContext, 1)
}

// RunScenarioWith is RunScenario by run, whose decisions cost times what
// scenario.RunContext's do (explain.Run's, which word every decision's
// headers, cost several).
func (s *Server) RunScenarioWith(r *http.Request, t *RunTicket, sc scenario.Scenario,
	run func(context.Context, scenario.Scenario) (scenario.Result, error), times int64) (scenario.Result, error) {
	if err := sc.Validate(); err != nil {
		return scenario.Result{}, err
	}
	t.fit(RunWork(sc) * times)
	// What is left of the budget counts on the server's clock; the run's
	// own deadline, on the timers that clock moves with.
	ctx, cancel := context.WithTimeout(r.Context(), t.admitted.Add(s.runTimeout).Sub(s.now()))
	defer cancel()
	if s.runStarting != nil {
		s.runStarting()
	}
	res, err := run(ctx, sc)
	if errors.Is(err, context.DeadlineExceeded) && r.Context().Err() == nil {
		return res, ErrBusy
	}
	return res, err
}

// RefuseBusy answers 503 with Retry-After and notes the refusal in the
// sampled log.
func (s *Server) RefuseBusy(w http.ResponseWriter, r *http.Request, write func(status int, msg string)) {
	s.refusals.note(s.log, r)
	w.Header().Set("Retry-After", explain.RetryAfter(RetryAfterSeconds*1000))
	write(http.StatusServiceUnavailable, ErrBusy.Error())
}

// refusalLog logs refusals for capacity at WARN, at most one line per
// interval with the count since the last line: a flood of 503s is one
// fact, not thousands of log lines.
type refusalLog struct {
	now      func() time.Time // the server's clock (Config.Now)
	interval time.Duration
	what     string // the line's message; "" is "refused for capacity"

	mu      sync.Mutex
	last    time.Time
	pending int
}

func (l *refusalLog) note(log *slog.Logger, r *http.Request) {
	l.mu.Lock()
	l.pending++
	now := l.now()
	if !l.last.IsZero() && now.Sub(l.last) < l.interval {
		l.mu.Unlock()
		return
	}
	n := l.pending
	l.pending, l.last = 0, now
	l.mu.Unlock()
	log.Warn(cmp.Or(l.what, "refused for capacity"), "refusals", n, "since", l.interval, "last_path", r.URL.Path)
}

// CrossSiteSubresource reports whether another site's page made the browser
// send r without the visitor asking for it (an image, a script, a fetch):
// such requests may not make the server run scenarios. A link followed from
// another site (a navigation) is a visitor's own choice and is served.
// Clients that send no Fetch Metadata (curl, older browsers) are served too;
// the run limiter bounds them.
func CrossSiteSubresource(r *http.Request) bool {
	return r.Header.Get("Sec-Fetch-Site") == "cross-site" && r.Header.Get("Sec-Fetch-Mode") != "navigate"
}

package lessons

import (
	"crypto/sha256"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// Accuracy is how a policy's decisions compare with the exact sliding log,
// in the spirit of Cloudflare's check of its sliding counter (requests
// wrongly allowed or wrongly refused against an exact count): each decision
// is judged against the requests the policy itself had admitted, counted
// exactly over the window before it. Running a separate log beside the
// policy would not do: once the two disagree their histories differ, and
// every later disagreement is counted too, so a policy that admits the
// right number per window can still "differ" on a third of its decisions.
type Accuracy struct {
	Decisions int // requests decided (probes are not)
	// WronglyAllowed counts requests admitted although the requests already
	// admitted in the window before them left no room for their cost.
	WronglyAllowed int
	// WronglyRefused counts requests refused although there was room
	// (a request costing more than the limit is never wrongly refused).
	WronglyRefused int
	// MostInWindow is the largest total cost admitted in any one window
	// (W ms ending at an admitted request): above the limit, the promise
	// "at most N in any window" was broken by that much.
	MostInWindow int64
	Limit        int64
}

// Wrong is the share of decisions that were wrongly allowed or wrongly
// refused, as text: "0.4 %".
func (a Accuracy) Wrong() string {
	return percent(a.WronglyAllowed+a.WronglyRefused, a.Decisions)
}

// OverAdmission is how far the most admitted in a window went past the
// limit, 0 when it never did.
func (a Accuracy) OverAdmission() int64 { return max(0, a.MostInWindow-a.Limit) }

// AgainstExactLog measures r, one policy's run over s, against the exact
// count. The exact count comes from the sliding log itself: a log with no
// effective limit is fed the requests r admitted, and probed before each
// decision for the count in the window ending there.
func AgainstExactLog(s scenario.Scenario, r scenario.PolicyResult) (Accuracy, error) {
	limit, window := r.Params.Limit, r.Params.WindowMs
	log := scenario.Scenario{Limit: scenario.MaxLimit, WindowMs: window,
		Policies: []scenario.PolicySpec{{Name: policies.SlidingLog}}}
	for _, d := range r.Decisions {
		if d.Probe {
			continue
		}
		log.Requests = append(log.Requests, scenario.Request{At: d.At, Key: d.Key, Cost: 1, Count: 1, Probe: true})
		if d.Allowed() {
			log.Requests = append(log.Requests, scenario.Request{At: d.At, Key: d.Key, Cost: d.Cost, Count: 1})
		}
	}
	a := Accuracy{Limit: limit}
	if len(log.Requests) == 0 {
		return a, nil
	}
	res, err := scenario.Run(log)
	if err != nil {
		return a, err
	}
	exact := res.Results[0].Decisions
	i := 0
	for _, d := range r.Decisions {
		if d.Probe {
			continue
		}
		count := exact[i].Estimate.Num / max(exact[i].Estimate.Den, 1) // the log counts whole requests
		i++
		if d.Allowed() {
			i++ // the admitted request fed to the log
		}
		a.Decisions++
		fits := count+d.Cost <= limit
		switch {
		case d.Allowed() && !fits:
			a.WronglyAllowed++
		case !d.Allowed() && fits:
			a.WronglyRefused++
		}
		if d.Allowed() {
			a.MostInWindow = max(a.MostInWindow, count+d.Cost)
		}
	}
	return a, nil
}

func percent(n, total int) string {
	if total == 0 {
		return "0 %"
	}
	return strconv.FormatFloat(100*float64(n)/float64(total), 'f', 1, 64) + " %"
}

// EstimateError is how far a policy's own count or estimate strays from
// the exact count of the look-back, over traffic it is not allowed to
// shape: every request is counted (the limit is lifted to
// scenario.MaxLimit), so each policy in a comparison sees the same
// requests and only its way of counting them differs. Both are in
// permits; each decision's error is |estimate − exact count| just before
// it.
type EstimateError struct {
	Worst, Mean float64
	Limit       int64 // the scenario's own limit, which Share divides by
}

// Share writes e (Worst or Mean) as a share of the limit: "4.5 %".
func (e EstimateError) Share(v float64) string {
	return strconv.FormatFloat(100*v/float64(e.Limit), 'f', 1, 64) + " %"
}

// estimates keeps EstimateErrors' results by the scenario and specs they
// were measured on (a digest of their JSON, the form simulate replays, so
// equal digests are equal inputs): the ring lesson draws the same charts
// and quotes the same figures on every render and every step of its lanes,
// each a replay of thousands of requests through a dozen policies, which
// made that page take half a second to render. The inputs come from the
// lesson files, so the entries are few; maxEstimates bounds them anyway,
// and past it a result is computed and not kept.
var estimates = struct {
	sync.Mutex
	m map[[sha256.Size]byte][]EstimateError
}{m: map[[sha256.Size]byte][]EstimateError{}}

const maxEstimates = 256

// EstimateErrors measures each spec's EstimateError over s's requests,
// against the sliding log's exact count, in the order of specs.
func EstimateErrors(s scenario.Scenario, specs []scenario.PolicySpec) ([]EstimateError, error) {
	in, err := json.Marshal(struct {
		S     scenario.Scenario
		Specs []scenario.PolicySpec
	}{s, specs})
	if err != nil {
		return nil, err
	}
	key := sha256.Sum256(in)
	estimates.Lock()
	got, ok := estimates.m[key]
	estimates.Unlock()
	if ok {
		return slices.Clone(got), nil
	}
	out, err := estimateErrors(s, specs)
	if err != nil {
		return nil, err
	}
	estimates.Lock()
	if len(estimates.m) < maxEstimates {
		estimates.m[key] = slices.Clone(out)
	}
	estimates.Unlock()
	return out, nil
}

func estimateErrors(s scenario.Scenario, specs []scenario.PolicySpec) ([]EstimateError, error) {
	open := s
	open.Limit = scenario.MaxLimit
	res, err := runEach(open, append(slices.Clone(specs), scenario.PolicySpec{Name: policies.SlidingLog}))
	if err != nil {
		return nil, err
	}
	exact := res.Results[len(specs)].Decisions
	out := make([]EstimateError, len(specs))
	for i := range specs {
		e := EstimateError{Limit: s.Limit}
		n := 0
		for j, d := range res.Results[i].Decisions {
			if d.Probe {
				continue
			}
			off := math.Abs(d.Estimate.Float() - exact[j].Estimate.Float())
			e.Worst = math.Max(e.Worst, off)
			e.Mean += off
			n++
		}
		if n > 0 {
			e.Mean /= float64(n)
		}
		out[i] = e
	}
	return out, nil
}

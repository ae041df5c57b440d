package scenario

import (
	"context"
	"encoding/json"

	"github.com/windowlab/playground/cluster"
	"github.com/windowlab/playground/policies"
)

// Result is what running a scenario gives: one entry per policy, each with
// one decision per request after expanding count, in input order.
type Result struct {
	Results []PolicyResult `json:"results"`
}

// PolicyResult is one policy's decisions.
type PolicyResult struct {
	Policy   string    `json:"policy"`
	Label    string    `json:"label"`
	Params   ParamsOut `json:"params"`
	Admitted int       `json:"admitted"`
	Refused  int       `json:"refused"`
	// OneServer is, on several servers, how many of the requests one
	// server seeing them all would have admitted: Admitted beyond it is
	// the over-admission. Nil on one server.
	OneServer *int           `json:"oneServer,omitempty"`
	Decisions []Decision     `json:"decisions"`
	Stats     policies.Stats `json:"-"`
}

// ParamsOut is the resolved configuration a policy ran with.
type ParamsOut struct {
	Limit      int64               `json:"limit"`
	WindowMs   int64               `json:"windowMs"`
	Arithmetic policies.Arithmetic `json:"arithmetic,omitempty"`
	Buckets    int64               `json:"buckets,omitempty"`
	Burst      Burst               `json:"burst,omitempty"`
	Delay      *int64              `json:"delay,omitempty"` // leaky-bucket's, nodelay as the burst
	// The deployment, on several servers only, defaults filled in.
	Nodes   int    `json:"nodes,omitempty"`
	Route   string `json:"route,omitempty"`
	Seed    uint64 `json:"seed,omitempty"`
	SyncMs  int64  `json:"syncMs,omitempty"`
	Central bool   `json:"central,omitempty"`
	SkewMs  Skews  `json:"skewMs,omitzero"`
}

// setOptions fills the fields of the options taken (a policy's, in the
// registry) with their values in run, leaving the others out.
func (out *ParamsOut) setOptions(taken []policies.Option, run policies.Params) {
	// held marks the fields the taken options hold, each set to 1, so
	// that an option held at 0 (a delay: every excess waits) is still
	// shown.
	var values, held policies.Params
	for _, o := range taken {
		if v := o.Of(run); o.Kind != policies.Choice || v >= 0 { // -1: a word no choice has
			o.Set(&values, v)
		}
		if o.Kind == policies.Number {
			o.Set(&held, 1)
		}
	}
	out.Arithmetic, out.Buckets, out.Burst = values.Arithmetic, values.Buckets, Burst(values.Burst)
	if held.Delay != 0 {
		out.Delay = &values.Delay
	}
}

// Decision is one request's outcome under one policy, or one probe.
type Decision struct {
	Index int    // position in the expanded request list
	Entry int    // index of the scenario entry it came from
	At    int64  // ms
	Key   string // the request's key name
	Cost  int64
	Probe bool
	// Estimate is the policy's count or estimate before the request (for a
	// probe, at that instant).
	Estimate policies.Fraction
	// Detail is the policy's full decision; zero for a probe. On several
	// servers it is the deciding node's, made at that node's instant.
	Detail policies.Decision
	// Nodes is what a lane on several servers adds: the node that decided
	// (from 0), what it had not heard of, the reference server's outcome
	// and the running totals. Nil on one server, and for probes.
	Nodes *cluster.Decision
	// Headers are the response's header fields, the status line first, as
	// package explain words them (see RunAnnotated); nil unless a caller
	// asked for them, and for probes.
	Headers []Header
}

// Header is one HTTP response header field; the first of a response is its
// status line, named "Status".
type Header struct{ Name, Value string }

// Allowed reports whether a (non-probe) request was admitted.
func (d Decision) Allowed() bool { return !d.Probe && d.Detail.Allowed }

// RetryAfter returns the wait in ms and whether there is one: false for a
// request that can never be admitted (and for admitted ones and probes).
func (d Decision) RetryAfter() (int64, bool) {
	if d.Probe || d.Detail.Allowed || d.Detail.Never {
		return 0, false
	}
	return d.Detail.RetryAfterMs, true
}

// MarshalJSON writes the public contract: estimateExact in lowest terms,
// as the lanes write it; probes carry no allowed, retryAfterMs or delayMs;
// retryAfterMs is null when the request can never pass; delayMs is how
// long an admitted request waits in a queue (leaky-bucket), else 0.
func (d Decision) MarshalJSON() ([]byte, error) {
	if d.Probe {
		return json.Marshal(struct {
			At            int64   `json:"at"`
			Key           string  `json:"key"`
			Probe         bool    `json:"probe"`
			Estimate      float64 `json:"estimate"`
			EstimateExact string  `json:"estimateExact"`
		}{d.At, d.Key, true, d.Estimate.Float(), d.Estimate.Reduced().String()})
	}
	var retry *int64
	if !d.Detail.Never {
		retry = &d.Detail.RetryAfterMs
	}
	out := struct {
		At            int64   `json:"at"`
		Key           string  `json:"key"`
		Cost          int64   `json:"cost"`
		Allowed       bool    `json:"allowed"`
		RetryAfterMs  *int64  `json:"retryAfterMs"`
		DelayMs       int64   `json:"delayMs"`
		Estimate      float64 `json:"estimate"`
		EstimateExact string  `json:"estimateExact"`
		Capacity      int64   `json:"capacity"`
		// Only on several servers, so that one server's answer is the
		// same bytes as before lanes could have nodes.
		Node        int   `json:"node,omitempty"` // from 1, as pages number them
		Unheard     *int  `json:"unheard,omitempty"`
		UnheardFrom []int `json:"unheardFrom,omitempty"`
		OneServer   *bool `json:"oneServer,omitempty"`
		// The fields a server would send, in the order it sends them;
		// the status line is allowed already.
		Headers *headerObject `json:"headers,omitempty"`
	}{At: d.At, Key: d.Key, Cost: d.Cost, Allowed: d.Detail.Allowed, RetryAfterMs: retry, DelayMs: d.Detail.DelayMs,
		Estimate: d.Estimate.Float(), EstimateExact: d.Estimate.Reduced().String(), Capacity: d.Detail.Capacity}
	if n := d.Nodes; n != nil {
		out.Node, out.Unheard, out.OneServer = n.Node+1, &n.Unheard, &n.Single
		for _, from := range n.UnheardFrom {
			out.UnheardFrom = append(out.UnheardFrom, from+1)
		}
	}
	if len(d.Headers) > 1 {
		out.Headers = &headerObject{d.Headers[1:]}
	}
	return json.Marshal(out)
}

// headerObject writes header fields as one JSON object, name to value, in
// the order a server sends them (a map would sort them).
type headerObject struct{ fields []Header }

func (h *headerObject) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, f := range h.fields {
		if i > 0 {
			b = append(b, ',')
		}
		name, err := json.Marshal(f.Name)
		if err != nil {
			return nil, err
		}
		value, err := json.Marshal(f.Value)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, name...), ':'), value...)
	}
	return append(b, '}'), nil
}

// KeyOf maps a key name to the integer key the policies use.
func KeyOf(name string) policies.Key { return policies.Key(policies.Mix32(name)) }

// Run validates the scenario and replays its requests through every policy.
func Run(s Scenario) (Result, error) {
	return RunContext(context.Background(), s)
}

// RunContext is Run that stops, returning ctx.Err(), soon after ctx is done:
// a server runs scenarios for requests that may be cancelled or time out.
func RunContext(ctx context.Context, s Scenario) (Result, error) {
	return RunAnnotated(ctx, s, nil)
}

// Annotate adds to one decision of a run before it is kept (its Headers):
// lane is the index into s.Specs(), and deciding the policy that made d,
// as Hooks.Annotate gives it.
type Annotate func(lane int, deciding policies.Policy, d *Decision)

// RunAnnotated is RunContext with note, when not nil, called on every
// decision before the result keeps it.
func RunAnnotated(ctx context.Context, s Scenario, note Annotate) (Result, error) {
	if err := s.Validate(); err != nil {
		return Result{}, err
	}
	specs := s.Specs()
	res := Result{Results: make([]PolicyResult, 0, len(specs))}
	for i, spec := range specs {
		out := PolicyResult{
			Policy: spec.Name,
			Label:  spec.Label(s),
			Params: spec.Out(s),
			// Never nil: the contract answers an empty request list with
			// "decisions": [], not null.
			Decisions: make([]Decision, 0, s.total()),
		}
		h := Hooks{After: func(_ policies.Policy, d Decision) error {
			out.add(d)
			return nil
		}}
		if note != nil {
			h.Annotate = func(deciding policies.Policy, d *Decision) { note(i, deciding, d) }
		}
		pol, err := ReplayLane(ctx, s, i, h)
		if err != nil {
			return Result{}, err
		}
		out.Stats = pol.Stats()
		res.Results = append(res.Results, out)
	}
	return res, nil
}

// add counts one decision into the result.
func (p *PolicyResult) add(d Decision) {
	if !d.Probe {
		if d.Detail.Allowed {
			p.Admitted++
		} else {
			p.Refused++
		}
	}
	if d.Nodes != nil {
		if p.OneServer == nil {
			p.OneServer = new(int)
		}
		if d.Nodes.Single {
			*p.OneServer++
		}
	}
	p.Decisions = append(p.Decisions, d)
}

// Out reports the configuration the spec runs with in the scenario, as the
// result JSON shows it: only the options its policy takes, defaults filled in.
func (p PolicySpec) Out(s Scenario) ParamsOut {
	params := p.Params(s)
	out := ParamsOut{Limit: params.Limit, WindowMs: params.WindowMs}
	// As the policy runs them: a burst of 0 is the limit, nodelay a
	// delay of the whole burst.
	run, err := policies.Normalised(p.Name, params)
	if err != nil {
		run = params
	}
	out.setOptions(optionsOf(p.Name), run)
	if d := p.Deployment; d.Several() {
		out.Nodes, out.Route, out.Seed, out.SyncMs, out.Central, out.SkewMs = max(d.Nodes, 1), d.Route, d.Seed, d.SyncMs, d.Central, d.SkewMs
		if out.Route == "" {
			out.Route = string(cluster.RoundRobin)
		}
	}
	return out
}

// total is the number of decisions after expanding count.
func (s Scenario) total() int {
	n := 0
	for _, r := range s.Requests {
		n += int(r.Count)
	}
	return n
}

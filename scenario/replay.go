package scenario

import (
	"context"
	"fmt"

	"github.com/windowlab/playground/cluster"
	"github.com/windowlab/playground/policies"
)

// checkEvery is how many decisions a replay makes between looks at its
// context. A decision usually takes tens of nanoseconds, but one that meets a
// new key may allocate its state (80 KB for a sliding log of limit 10,000),
// so a look every 64 keeps a cancelled run's tail to milliseconds, and a
// look (an atomic load) every 64 decisions costs nothing measurable.
const checkEvery = 64

// Hooks are what a caller sees of one lane's replay. Each is optional.
// Both get the lane's policy so that they can Peek or Snapshot it; they
// must not call Decide on it, which would change what the replay decides.
type Hooks struct {
	// Before is called just before the policy decides a request (or
	// peeks, for a probe): d holds the request, with no outcome yet.
	Before func(pol policies.Policy, d Decision)
	// After is called with the decision once it is made.
	After func(pol policies.Policy, d Decision) error
	// Annotate, called just before After, may add to the decision (its
	// Headers). deciding is the policy that made it, as the decision left
	// it: pol on one server; on several the deciding node's own (the
	// store's, with Central), whose clock reads d.Detail.At, since what a
	// server answers is what that server knew. It may be peeked at later
	// instants ("if nothing else arrives"), never decided on.
	Annotate func(deciding policies.Policy, d *Decision)
}

// ReplayLane replays the scenario through its policy at index lane, calling
// the hooks around every decision, and returns the policy as the replay
// leaves it (for its state at the end, or its Stats). This loop is the only
// one that turns a scenario into decisions: Run, the playground's lanes and
// everything built on them go through it.
func ReplayLane(ctx context.Context, s Scenario, lane int, h Hooks) (policies.Policy, error) {
	r, err := StartLane(s, lane)
	if err != nil {
		return nil, err
	}
	if err := r.Continue(ctx, s, h); err != nil {
		return nil, err
	}
	return r.Policy(), nil
}

// LaneReplay is one lane's replay that can be taken up again: it holds the
// policy as the requests decided so far left it. A caller that keeps one
// (the playground does, per lane) decides only the entries appended since,
// instead of every request from the first.
type LaneReplay struct {
	pol    policies.Local
	lane   int
	params policies.Params
	deploy Deployment
	// On several servers (Deployment.Several) the cluster decides, and pol
	// is the combined lane: one instance of the policy that takes in every
	// request any node admitted, at its real instant, so that its count
	// shows what passed across the nodes against the one limit.
	cl      *cluster.Cluster
	entries int  // scenario entries decided; -1 once spoiled
	fed     bool // decided requests given to Feed, not a scenario's
	index   int  // decisions made, after expanding count
	last    Request
}

// StartLane returns the replay of lane (an index into s.Specs()) before its
// first request.
func StartLane(s Scenario, lane int) (*LaneReplay, error) {
	specs := s.Specs()
	if lane < 0 || lane >= len(specs) {
		return nil, fmt.Errorf("scenario: lane %d is out of range (the scenario has %d)", lane, len(specs))
	}
	spec := specs[lane]
	params := spec.Params(s)
	pol, err := policies.NewLocal(spec.Name, params)
	if err != nil {
		return nil, err
	}
	r := &LaneReplay{pol: pol, lane: lane, params: params, deploy: spec.Deployment}
	if spec.Several() {
		if r.cl, err = cluster.New(spec.config(s)); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Policy is the lane's policy as the decided requests left it. It belongs
// to the replay: a caller that wants to Decide something of its own (a
// what-if) must do it on a policies.Clone.
func (r *LaneReplay) Policy() policies.Policy { return r.pol }

// Entries is how many of the scenario's entries have been decided.
func (r *LaneReplay) Entries() int { return r.entries }

// Continue decides s's entries after those already decided, calling the
// hooks around each decision. s must be the scenario the replay started
// with, with entries only appended since (at or after its last one, as in
// any valid scenario): a decision cannot be taken back, so Continue refuses
// a scenario that is shorter, whose last decided entry differs, or whose
// lane runs other settings. A replay that returns an error (its context
// ended, or a hook failed) cannot be continued.
func (r *LaneReplay) Continue(ctx context.Context, s Scenario, h Hooks) error {
	switch {
	case r.entries < 0:
		return fmt.Errorf("scenario: the replay stopped with an error and cannot be continued")
	case r.fed:
		return fmt.Errorf("scenario: the replay was fed requests of its own and cannot continue a scenario")
	case len(s.Requests) < r.entries || r.entries > 0 && s.Requests[r.entries-1] != r.last:
		return fmt.Errorf("scenario: the replay has decided %d entries and the scenario does not begin with them", r.entries)
	}
	if specs := s.Specs(); r.lane >= len(specs) || specs[r.lane].Name != r.pol.Name() || specs[r.lane].Params(s) != r.params || specs[r.lane].Deployment != r.deploy {
		return fmt.Errorf("scenario: lane %d's policy or settings changed since its replay started", r.lane)
	}
	for entry := r.entries; entry < len(s.Requests); entry++ {
		req := s.Requests[entry]
		name := req.KeyName()
		key := KeyOf(name)
		for range req.Count {
			d := Decision{Index: r.index, Entry: entry, At: req.At, Key: name, Cost: req.Cost, Probe: req.Probe}
			if err := r.decide(ctx, key, d, h); err != nil {
				return err
			}
		}
		r.entries, r.last = entry+1, req
	}
	return nil
}

// KeyedRequest is a request whose policy key the caller has chosen
// already: package traffic interns a log's clients to small numbers, so
// that thousands of clients never share a hashed key as names might.
type KeyedRequest struct {
	At   int64
	Key  policies.Key
	Cost int64
}

// Feed decides reqs, in their order, after the requests decided so far,
// through the loop Continue uses: for a stream of requests too long to hold
// as one scenario (an access log, decided chunk by chunk). Times may go
// backwards; each policy's late rule decides such a request. A decision's
// Entry is its index in reqs and its Key name is empty. A replay that has
// been fed cannot Continue a scenario, whose entries it no longer matches.
func (r *LaneReplay) Feed(ctx context.Context, reqs []KeyedRequest, h Hooks) error {
	if r.entries < 0 {
		return fmt.Errorf("scenario: the replay stopped with an error and cannot be continued")
	}
	for i, req := range reqs {
		if err := r.decide(ctx, req.Key, Decision{Index: r.index, Entry: i, At: req.At, Cost: req.Cost}, h); err != nil {
			return err
		}
	}
	r.fed = true
	return nil
}

// FeedVerdicts is Feed for a caller that needs only each request's verdict
// (a sweep of an access log at many limits): admitted[i] is set to whether
// reqs[i] was admitted (admitted is at least as long as reqs). On one
// server it asks the policy's Allow, the same decision and change of state
// as Decide without building the explanation (several times cheaper); on
// several servers the cluster decides as in Feed. There are no hooks:
// nothing may look at the policy between decisions.
func (r *LaneReplay) FeedVerdicts(ctx context.Context, reqs []KeyedRequest, admitted []bool) error {
	admitted = admitted[:len(reqs)]
	if r.cl != nil {
		return r.Feed(ctx, reqs, Hooks{After: func(_ policies.Policy, d Decision) error {
			admitted[d.Entry] = d.Detail.Allowed
			return nil
		}})
	}
	if r.entries < 0 {
		return fmt.Errorf("scenario: the replay stopped with an error and cannot be continued")
	}
	r.fed = true
	pol := r.pol
	for i, req := range reqs {
		if r.index%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				r.entries = -1
				return err
			}
		}
		r.index++
		admitted[i] = pol.Allow(req.Key, req.At, req.Cost).Allowed
	}
	return nil
}

// decide makes one decision d (its outcome not yet filled in) for key,
// calling the hooks around it: the body of the one replay loop.
func (r *LaneReplay) decide(ctx context.Context, key policies.Key, d Decision, h Hooks) error {
	if r.index%checkEvery == 0 {
		if err := ctx.Err(); err != nil {
			r.entries = -1
			return err
		}
	}
	pol := r.pol
	if d.Probe {
		d.Cost = 0
	}
	if h.Before != nil {
		h.Before(pol, d)
	}
	var deciding policies.Policy = pol
	switch {
	case d.Probe:
		d.Estimate = pol.Peek(key, d.At)
	case r.cl != nil:
		c := r.cl.Decide(key, d.At, d.Cost)
		d.Detail, d.Estimate, d.Nodes = c.Policy, c.Policy.Estimate, &c
		if c.Policy.Allowed {
			pol.Absorb(key, d.At, d.Cost)
		}
		deciding = r.cl.Decider(c.Node)
	default:
		d.Detail = pol.Decide(key, d.At, d.Cost)
		d.Estimate = d.Detail.Estimate
	}
	r.index++
	if h.Annotate != nil {
		// A copy on the heap for the hook, so that d itself stays on the
		// stack: taking d's address would allocate every decision.
		note := new(Decision)
		*note = d
		h.Annotate(deciding, note)
		d = *note
	}
	if h.After != nil {
		if err := h.After(pol, d); err != nil {
			r.entries = -1
			return err
		}
	}
	return nil
}

// Next is what a request of key and cost at would get after the decided
// requests, decided on copies so that the replay is left as it was: on one
// server the policy's answer, node nil; on several the cluster's, routing
// included (cluster.Cluster.Next), node its whole decision.
func (r *LaneReplay) Next(key policies.Key, at, cost int64) (d policies.Decision, node *cluster.Decision) {
	if r.cl != nil {
		c := r.cl.Next(key, at, cost)
		return c.Policy, &c
	}
	return r.pol.Clone().Decide(key, at, cost), nil
}

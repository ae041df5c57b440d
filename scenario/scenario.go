package scenario

import (
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/windowlab/playground/cluster"
	"github.com/windowlab/playground/policies"
)

// Bounds on what one scenario may ask for, so that a single call (a file, a
// POST, a shared link) cannot exhaust memory or time. The largest state of
// one key is exp-histogram's at MaxLimit and k = policies.MaxBuckets (15
// levels of up to 1,024 buckets, 246 KB; sliding log's MaxLimit timestamps
// are 80 KB), so MaxKeys × MaxPolicies of it, under 296 MB
// (TestWorstLaneMemory), is the most a scenario's one-server lanes hold.
// MaxPolicies leaves room for a lane of every registered policy, with each
// of a choice option's choices (the lessons' comparison), and a few more.
const (
	MaxBodyBytes = 1 << 20 // bytes of scenario JSON
	MaxPolicies  = 12
	MaxRequests  = 10_000 // decisions per policy, after expanding count
	MaxCount     = 10_000 // count on one request entry
	MaxKeys      = 100    // distinct keys
	MaxLimit     = 10_000
	MaxCost      = 1_000_000
	MaxKeyLen    = 64
	// MaxWindowMs is one year: long enough for any quota a lesson discusses.
	MaxWindowMs = 366 * 24 * 3600 * 1000
	// MaxNodes bounds a lane's "nodes" (cluster.MaxNodes). A lane on
	// several servers holds a policy per node, one for the reference
	// server and one for the combined lane, so MaxInstances bounds their
	// sum over the lanes (a one-server lane holds one): at most 3 times
	// the policies 12 one-server lanes hold: 888 MB at the worst.
	MaxNodes = cluster.MaxNodes
	// MaxSyncMs and MaxSkewMs are a year, as the window is; package
	// cluster allows more.
	MaxSyncMs    = MaxWindowMs
	MaxSkewMs    = MaxWindowMs
	MaxInstances = 3 * MaxPolicies
)

// DefaultKey is the key of requests that do not name one.
const DefaultKey = "default"

// DefaultPolicies are run when a scenario names none: the four lanes the
// playground opens with.
func DefaultPolicies() []PolicySpec {
	return []PolicySpec{
		{Name: policies.FixedWindow},
		{Name: policies.SlidingLog},
		{Name: policies.SlidingCounter, Arithmetic: policies.Floor},
		{Name: policies.SlidingCounter, Arithmetic: policies.Exact},
	}
}

// Scenario is settings plus timed requests. Limit and WindowMs are shared by
// every policy that does not override them.
type Scenario struct {
	Limit    int64        `json:"limit"`
	WindowMs int64        `json:"windowMs"`
	Policies []PolicySpec `json:"policies,omitempty"`
	Requests []Request    `json:"requests"`
}

// PolicySpec names one policy and its options. In JSON it is either a bare
// name ("sliding-log") or an object.
type PolicySpec struct {
	Name       string              `json:"name"`
	Limit      int64               `json:"limit,omitempty"`    // 0: the scenario's
	WindowMs   int64               `json:"windowMs,omitempty"` // 0: the scenario's
	Arithmetic policies.Arithmetic `json:"arithmetic,omitempty"`
	Buckets    int64               `json:"buckets,omitempty"`
	Burst      Burst               `json:"burst,omitempty"`
	Delay      Delay               `json:"delay,omitempty"` // leaky-bucket: 0 waits every excess request
	// Deployment says on how many servers the policy runs; its fields
	// are the policy object's own in JSON ("nodes", "syncMs", …). They
	// apply to every policy alike, so they are not registry options.
	Deployment
}

// Burst is the burst option: 0 for the limit, or policies.NoQueue, which
// JSON writes as 0 given (leaky-bucket only: nginx's limit_req without
// burst, no queue at all; a burst left out is the limit).
type Burst int64

// MarshalJSON writes NoQueue as the 0 that says it.
func (b Burst) MarshalJSON() ([]byte, error) {
	if b == policies.NoQueue {
		return []byte("0"), nil
	}
	return json.Marshal(int64(b))
}

// String is the burst as a label writes it: "burst 10" or "no queue".
func (b Burst) String() string { return policies.BurstOption.Describe(int64(b)) }

// Delay is leaky-bucket's delay option: how many excess permits pass
// without waiting, or policies.NoDelay, written as the option's word
// ("nodelay"), for all of them.
type Delay int64

// MarshalJSON writes NoDelay as the option's word, any other delay as a
// number.
func (d Delay) MarshalJSON() ([]byte, error) {
	if int64(d) == policies.DelayOption.WordValue {
		return json.Marshal(policies.DelayOption.Word)
	}
	return json.Marshal(int64(d))
}

// UnmarshalJSON reads a whole number of permits or the option's word. What
// it cannot read is an *json.UnmarshalTypeError, so that decoding names
// the field ("policies[0].delay") as it does for any mistyped number.
func (d *Delay) UnmarshalJSON(b []byte) error {
	var word string
	if json.Unmarshal(b, &word) == nil && word == policies.DelayOption.Word {
		*d = Delay(policies.DelayOption.WordValue)
		return nil
	}
	var n int64
	if err := json.Unmarshal(b, &n); err != nil || n < 0 {
		return &json.UnmarshalTypeError{Value: string(b), Type: reflect.TypeFor[Delay]()}
	}
	*d = Delay(n)
	return nil
}

// String is the delay as a label writes it: "delay 2" or "nodelay".
func (d Delay) String() string { return policies.DelayOption.Describe(int64(d)) }

// Deployment is how many servers ("nodes") run one lane's policy and how
// they share what they admitted; package cluster gives each field's exact
// meaning. The zero value is one server, the lane as it always was.
type Deployment struct {
	Nodes   int    `json:"nodes,omitempty"` // 1 to MaxNodes; 0 means 1
	Route   string `json:"route,omitempty"` // "round-robin" (""), "random" or "key"
	Seed    uint64 `json:"seed,omitempty"`  // only with route "random"
	SyncMs  int64  `json:"syncMs,omitempty"`
	Central bool   `json:"central,omitempty"`
	SkewMs  Skews  `json:"skewMs,omitzero"` // one per node when given
}

// Skews is a list of at most MaxNodes clock offsets in ms, held in an
// array so that a PolicySpec stays comparable (sessions and questions
// compare lanes with ==). In JSON it is a plain list.
type Skews struct {
	n  int
	ms [MaxNodes]int64
}

// SkewsOf holds ms; it reports false for more than MaxNodes entries.
func SkewsOf(ms ...int64) (Skews, bool) {
	var s Skews
	if len(ms) > MaxNodes {
		return s, false
	}
	s.n = copy(s.ms[:], ms)
	return s, true
}

// Ms returns the offsets, node by node.
func (s Skews) Ms() []int64 { return s.ms[:s.n:s.n] }

// MarshalJSON writes the offsets as a list.
func (s Skews) MarshalJSON() ([]byte, error) { return json.Marshal(s.Ms()) }

// UnmarshalJSON reads a list of at most MaxNodes offsets.
func (s *Skews) UnmarshalJSON(data []byte) error {
	var ms []int64
	if err := json.Unmarshal(data, &ms); err != nil {
		return err
	}
	var ok bool
	if *s, ok = SkewsOf(ms...); !ok {
		return fmt.Errorf("skewMs: %d entries; at most %d, one per node", len(ms), MaxNodes)
	}
	return nil
}

// Several reports whether the lane runs on several servers or a central
// store, and so is replayed through package cluster.
func (d Deployment) Several() bool { return d.Nodes > 1 || d.Central }

// Request is one entry of the request list. Count repeats it at the same
// instant; a probe asks for the estimate without deciding.
type Request struct {
	At    int64  `json:"at"`
	Key   string `json:"key,omitempty"`
	Cost  int64  `json:"cost,omitempty"`
	Count int64  `json:"count,omitempty"`
	Probe bool   `json:"probe,omitempty"`
}

// DefaultBuckets is k for sliding-buckets when a spec leaves it out.
const DefaultBuckets = policies.DefaultBuckets

// Params resolves the spec against the scenario's shared settings, with
// the defaults of the options its policy takes (policies.Option.Resolve).
func (p PolicySpec) Params(s Scenario) policies.Params {
	out := p.options()
	out.Limit, out.WindowMs = cmp.Or(p.Limit, s.Limit), cmp.Or(p.WindowMs, s.WindowMs)
	for _, o := range optionsOf(p.Name) {
		o.Resolve(&out)
	}
	return out
}

// options is the spec's option fields as the fields of Params they set:
// the one place where a spec's JSON fields meet the registry's options,
// which everything else reads through (policies.Option.Of).
func (p PolicySpec) options() policies.Params {
	return policies.Params{Arithmetic: p.Arithmetic, Buckets: p.Buckets, Burst: int64(p.Burst), Delay: int64(p.Delay)}
}

// setOptions sets the spec's option fields to those of o, as options
// reads them.
func (p *PolicySpec) setOptions(o policies.Params) {
	p.Arithmetic, p.Buckets, p.Burst, p.Delay = o.Arithmetic, o.Buckets, Burst(o.Burst), Delay(o.Delay)
}

// Option is the spec's value of option o as given (policies.Option.Of):
// 0 for a number left out.
func (p PolicySpec) Option(o policies.Option) int64 { return o.Of(p.options()) }

// WithOption is the spec with option o set to v, as Option reads it.
func (p PolicySpec) WithOption(o policies.Option, v int64) PolicySpec {
	set := p.options()
	o.Set(&set, v)
	p.setOptions(set)
	return p
}

// optionsOf is the options the named policy takes, in the order forms show
// them; none for a name the registry does not know.
func optionsOf(name string) []policies.Option {
	in, _ := policies.Lookup(name)
	return in.Options
}

// Label is a short human name that tells lanes apart: the policy name plus
// whatever option or override distinguishes it.
func (p PolicySpec) Label(s Scenario) string {
	params, set := p.Params(s), p.options()
	var b strings.Builder
	b.WriteString(p.Name)
	// An option that always has a value is always shown (as it runs);
	// one a policy derives when left out, only when the spec sets it.
	var parts []string
	for _, o := range optionsOf(p.Name) {
		switch {
		case o.Labelled():
			parts = append(parts, o.Describe(o.Of(params)))
		case o.Of(set) != 0:
			parts = append(parts, o.Describe(o.Of(set)))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(parts, ", "))
	}
	if p.Limit != 0 {
		fmt.Fprintf(&b, " limit %d", p.Limit)
	}
	if p.WindowMs != 0 {
		fmt.Fprintf(&b, " window %s", FormatMs(p.WindowMs))
	}
	if p.Several() {
		b.WriteString(p.Deployment.label())
	}
	return b.String()
}

// Specs returns the policies the scenario runs: its own, or the defaults.
func (s Scenario) Specs() []PolicySpec {
	if len(s.Policies) == 0 {
		return DefaultPolicies()
	}
	return s.Policies
}

// FormatMs writes a duration in milliseconds the way people read it:
// "30 s", "1.5 s", "250 ms".
func FormatMs(ms int64) string {
	switch {
	case ms%1000 == 0:
		return fmt.Sprintf("%d s", ms/1000)
	case ms > 1000 || ms < -1000:
		return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", float64(ms)/1000), "0"), ".") + " s"
	default:
		return fmt.Sprintf("%d ms", ms)
	}
}

// FormatSeconds writes a duration or instant in milliseconds always in
// seconds, exactly: "25 s", "0.25 s", "2.001 s", "-1.5 s". Unlike FormatMs
// it never switches to ms, so that numbers read side by side (the terms
// of one formula, the labels of one axis) share a unit.
func FormatSeconds(ms int64) string {
	sign := ""
	if ms < 0 {
		sign, ms = "-", -ms
	}
	if ms%1000 == 0 {
		return fmt.Sprintf("%s%d s", sign, ms/1000)
	}
	frac := strings.TrimRight(fmt.Sprintf("%03d", ms%1000), "0")
	return fmt.Sprintf("%s%d.%s s", sign, ms/1000, frac)
}

// WorstCase is the most expensive scenario that is still valid: every bound
// at its top (8 sliding-log lanes with limit 10,000, 10,000 requests over
// 100 keys). The load tool sends it, and the tests of the run limits use it.
func WorstCase() Scenario {
	s := Scenario{Limit: MaxLimit, WindowMs: 60_000}
	for range MaxPolicies {
		s.Policies = append(s.Policies, PolicySpec{Name: "sliding-log"})
	}
	for i := range MaxRequests {
		s.Requests = append(s.Requests, Request{At: int64(i), Key: fmt.Sprintf("k%d", i%MaxKeys), Cost: 1, Count: 1})
	}
	return s
}

// label tells a several-server lane apart: " on 3 servers, sync 500 ms".
// It says servers, as the room's questions and the forms do; the scenario's
// fields and the working keep "nodes", which name one of them ("node 2").
func (d Deployment) label() string {
	var b strings.Builder
	if n := max(d.Nodes, 1); n == 1 {
		b.WriteString(" on 1 server")
	} else {
		fmt.Fprintf(&b, " on %d servers", n)
	}
	switch {
	case d.Central:
		b.WriteString(", central")
	case d.SyncMs > 0:
		fmt.Fprintf(&b, ", sync %s", FormatMs(d.SyncMs))
	default:
		b.WriteString(", no sync")
	}
	if d.Route != "" && d.Route != string(cluster.RoundRobin) {
		fmt.Fprintf(&b, ", route %s", d.Route)
	}
	if slices.ContainsFunc(d.SkewMs.Ms(), func(v int64) bool { return v != 0 }) {
		b.WriteString(", skewed")
	}
	return b.String()
}

// instances is how many policy instances the lane holds (see MaxInstances).
func (d Deployment) instances() int {
	switch {
	case d.Central:
		return 3 // the store, the reference, the combined lane
	case d.Several():
		return d.Nodes + 2
	}
	return 1
}

// config is the lane's cluster.Config.
func (p PolicySpec) config(s Scenario) cluster.Config {
	return cluster.Config{Policy: p.Name, Params: p.Params(s), Nodes: max(p.Nodes, 1),
		Route: cluster.Route(p.Route), Seed: p.Seed, SyncMs: p.SyncMs, Central: p.Central, SkewMs: p.SkewMs.Ms()}
}

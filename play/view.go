package play

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/windowlab/playground/explain"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// Drawing bounds: how much of the timeline a lane shows and how much it
// draws, so that a lane's SVG stays a few kilobytes however many requests a
// session holds.
const (
	// SpanWindows is the width of the visible timeline, in windows.
	SpanWindows = 3
	// CurveSamples is how many instants of the visible span a state curve
	// samples, besides the instants of the drawn requests.
	CurveSamples = 180
	// MaxMarks is how many requests a lane draws; older ones in the span
	// are counted (Lane.Hidden) instead.
	MaxMarks = 150
	// CurveBuckets bounds a curve's points: within each of this many
	// slices of the span it keeps the first, the highest and the last.
	CurveBuckets = 160
	// LatestCount is how many of the latest decisions the live summary reads.
	LatestCount = 3
)

// View is everything the page shows, derived from one replay of the
// scenario. It holds copies: it stays valid after the session changes.
type View struct {
	ID      string
	Version uint64
	// ScenarioRev changes whenever the scenario does (not the clock or the
	// selection), so that derived text such as a shared link can be cached.
	ScenarioRev uint64
	Clock       Clock
	Scenario    scenario.Scenario
	Total       int64 // requests after expanding counts
	Client      string
	Clients     []string
	Cost        int64
	From, To    int64 // visible span of every lane, ms
	Lanes       []Lane
	// Disagreements counts the requests that some lanes admit and others
	// refuse (any client).
	Disagreements int
	Selected      *Selection
	// Notice is a message about the session as a whole, such as the
	// request cap having been reached.
	Notice string
}

// Lane is one policy's row.
type Lane struct {
	Index    int
	ID       string // "lane-0", stable while the policy list stays
	Policy   string
	Label    string
	Params   policies.Params
	Capacity int64 // what Estimate + cost is compared with
	Admitted int   // every client
	Refused  int
	// Marks are the viewed client's requests inside [From, To], oldest
	// first, at most MaxMarks of them; Hidden counts the others.
	Marks  []Mark
	Hidden int
	// Curve is the policy's own estimate for the viewed client, sampled
	// with Policy.Peek from the start of the span to the clock.
	Curve []Point
	// Windows are the policy's epoch-aligned windows inside the span with
	// the permits admitted in each (fixed-window and sliding-counter).
	Windows []Band
	// State is the policy's Snapshot for the viewed client at the clock.
	State policies.State
	// Next is what a request of the session's cost would get at the
	// clock; NextKnown is false when the clock is before the last request
	// (the policy has already moved past it).
	Next      policies.Decision
	NextKnown bool
	// Latest are the viewed client's latest decisions at or before the
	// clock, newest last.
	Latest []Mark
}

// Mark is one request drawn in a lane.
type Mark struct {
	Index    int // position in the expanded request list
	At       int64
	Key      string
	Cost     int64
	Allowed  bool
	Never    bool
	Retry    int64   // RetryAfterMs of a refused request
	Level    float64 // estimate before + cost: what was compared with the capacity
	Stack    int     // marks already drawn at the same instant and level
	Disagree bool    // lanes decided this request differently
	Future   bool    // later than the clock (after a jump back)
	Selected bool
}

// Point is one sample of a lane's estimate.
type Point struct {
	At    int64
	Value float64
}

// Band is one epoch-aligned window of a lane.
type Band struct {
	Start, End int64
	Admitted   int64 // permits admitted inside it for the viewed client
}

// Selection explains one request in every lane.
type Selection struct {
	Index int
	At    int64
	Key   string
	Cost  int64
	Lanes []Explained
}

// Explained is one lane's decision on the selected request.
type Explained struct {
	Lane          string
	Policy        string
	Decision      policies.Decision
	Before, After policies.State
	Steps         []string // the arithmetic, with the decision's own numbers
	Headers       []Header // what a server would answer with
}

// View replays the scenario and returns what to show.
func (s *Session) View() View {
	s.mu.Lock()
	v := View{
		ID: s.id, Version: s.version, ScenarioRev: s.rev, Clock: s.clock, Total: s.total,
		Client: s.client, Clients: slices.Clone(s.clients), Cost: s.cost, Notice: s.notice,
	}
	v.Scenario = s.sc
	v.Scenario.Requests = slices.Clone(s.sc.Requests)
	v.Scenario.Policies = slices.Clone(s.sc.Policies)
	selected := s.selected
	s.mu.Unlock()
	// The replay works on the copies, outside the lock.
	span := SpanWindows * v.Scenario.WindowMs
	v.To = max(span, v.Clock.Now+span/6)
	v.From = v.To - span
	specs := v.Scenario.Specs()
	decisions := make([][]bool, len(specs))
	results := make([]laneReplay, len(specs))
	// Lanes are independent: replay them side by side.
	var wg sync.WaitGroup
	for i, spec := range specs {
		wg.Go(func() {
			results[i] = replayLane(v, i, spec, selected)
			decisions[i] = results[i].allowed
		})
	}
	wg.Wait()
	for _, r := range results {
		v.Lanes = append(v.Lanes, r.lane)
		if r.expl != nil {
			if v.Selected == nil {
				v.Selected = &Selection{Index: selected, At: r.sel.At, Key: r.sel.Key, Cost: r.sel.Cost}
			}
			v.Selected.Lanes = append(v.Selected.Lanes, *r.expl)
		}
	}
	v.markDisagreements(decisions)
	return v
}

// markDisagreements flags requests decided differently across lanes.
func (v *View) markDisagreements(decisions [][]bool) {
	if len(decisions) < 2 {
		return
	}
	differ := make([]bool, len(decisions[0]))
	for i := range differ {
		for _, ds := range decisions[1:] {
			if ds[i] != decisions[0][i] {
				differ[i] = true
				v.Disagreements++
				break
			}
		}
	}
	for l := range v.Lanes {
		for m := range v.Lanes[l].Marks {
			v.Lanes[l].Marks[m].Disagree = differ[v.Lanes[l].Marks[m].Index]
		}
	}
}

// laneReplay is what one lane's replay builds up as scenario.ReplayLane
// hands it each decision: the lane to draw, whether each request was
// admitted, and the explanation of the selected request.
type laneReplay struct {
	v        View
	lane     Lane
	pol      explain.Policy
	viewed   policies.Key
	selected int

	curve   curveSampler
	entry   int  // the scenario entry being decided, -1 before the first
	snapped bool // lane.State has been taken at the clock
	marks   []Mark
	hidden  int

	before  policies.State // the selected request's key, just before it
	expl    *Explained
	sel     scenario.Decision
	allowed []bool
}

// replayLane replays the scenario through one lane's policy with
// scenario.ReplayLane, sampling the viewed client's state on the way.
func replayLane(v View, index int, spec scenario.PolicySpec, selected int) laneReplay {
	sc := v.Scenario
	wording := explain.For(sc, spec)
	params := wording.Params
	r := laneReplay{
		v: v, pol: wording, viewed: keyOf(v.Client), selected: selected, entry: -1,
		lane:    Lane{Index: index, ID: fmt.Sprintf("lane-%d", index), Policy: spec.Name, Label: spec.Label(sc), Params: params},
		allowed: make([]bool, 0, v.Total),
		marks:   make([]Mark, 0, 2*MaxMarks),
	}
	if explain.DrawsWindows(spec.Name) {
		r.lane.Windows = bands(params.WindowMs, v.From, v.To)
	}
	r.curve = newCurveSampler(sc.Requests, v.From, min(v.To, v.Clock.Now))
	pol, err := scenario.ReplayLane(context.Background(), sc, index, scenario.Hooks{Before: r.beforeDecision, After: r.afterDecision})
	if err != nil {
		// The session validated its scenario, and nothing cancels this
		// replay: this cannot happen.
		panic("play: " + err.Error())
	}
	r.finish(pol)
	return r
}

// beforeDecision samples the curve up to a new entry's instant and keeps
// the selected request's state before it is decided.
func (r *laneReplay) beforeDecision(pol policies.Policy, d scenario.Decision) {
	if d.Entry != r.entry {
		if r.entry >= 0 {
			r.pointAtRequest(pol, r.v.Scenario.Requests[r.entry]) // just after the previous entry
		}
		r.entry = d.Entry
		now := r.v.Clock.Now
		if !r.snapped && d.At > now {
			r.curve.sampleTo(&r.lane, pol, r.viewed, now, true)
			r.lane.State = pol.Snapshot(r.viewed, now)
			r.snapped = true
		}
		r.curve.sampleTo(&r.lane, pol, r.viewed, d.At, false)
		r.pointAtRequest(pol, r.v.Scenario.Requests[d.Entry]) // just before it
	}
	if d.Index == r.selected && !d.Probe {
		r.before = pol.Snapshot(scenario.KeyOf(d.Key), d.At)
	}
}

// pointAtRequest adds the viewed client's estimate at one of its own
// requests, so that the curve's steps fall exactly where they happen.
func (r *laneReplay) pointAtRequest(pol policies.Policy, req scenario.Request) {
	if req.KeyName() == r.v.Client && r.curve.detailed(req.At) {
		r.lane.Curve = append(r.lane.Curve, Point{req.At, pol.Peek(r.viewed, req.At).Float()})
	}
}

// afterDecision counts the decision, explains it when it is the selected
// one, and marks it when it is the viewed client's and in view.
func (r *laneReplay) afterDecision(pol policies.Policy, d scenario.Decision) error {
	r.allowed = append(r.allowed, d.Allowed())
	if d.Probe {
		return nil
	}
	if d.Detail.Allowed {
		r.lane.Admitted++
	} else {
		r.lane.Refused++
	}
	if d.Index == r.selected {
		r.expl = explained(r.pol, r.lane.Label, d, r.before, pol.Snapshot(scenario.KeyOf(d.Key), d.At))
		r.sel = d
	}
	if d.Key != r.v.Client { // names and keys match one to one: validation refuses collisions
		return nil
	}
	if d.Detail.Allowed {
		r.countInWindow(d)
	}
	if d.At >= r.v.From && d.At <= r.v.To {
		r.mark(d)
	}
	return nil
}

// countInWindow adds an admitted request to the drawn window it fell in.
func (r *laneReplay) countInWindow(d scenario.Decision) {
	ws := r.lane.Windows
	if len(ws) == 0 || d.At < ws[0].Start {
		return
	}
	if w := int((d.At - ws[0].Start) / r.lane.Params.WindowMs); w < len(ws) {
		ws[w].Admitted += d.Cost
	}
}

// mark keeps a drawn request; past 2 × MaxMarks only the newest MaxMarks
// are kept, and the older half is counted as hidden.
func (r *laneReplay) mark(d scenario.Decision) {
	if len(r.marks) == 2*MaxMarks {
		r.hidden += copy(r.marks, r.marks[MaxMarks:])
		r.marks = r.marks[:MaxMarks]
	}
	r.marks = append(r.marks, Mark{
		Index: d.Index, At: d.At, Key: d.Key, Cost: d.Cost, Allowed: d.Detail.Allowed, Never: d.Detail.Never,
		Retry: d.Detail.RetryAfterMs, Level: d.Estimate.Float() + float64(d.Cost),
		Future: d.At > r.v.Clock.Now, Selected: d.Index == r.selected,
	})
}

// finish completes the lane once every request is decided: the curve up to
// the clock, the state at the clock, what the next request would get, and
// the marks to draw.
func (r *laneReplay) finish(pol policies.Policy) {
	sc, now, lane := r.v.Scenario, r.v.Clock.Now, &r.lane
	if r.entry >= 0 {
		r.pointAtRequest(pol, sc.Requests[r.entry])
	}
	r.curve.sampleTo(lane, pol, r.viewed, now, true)
	if !r.snapped {
		lane.State = pol.Snapshot(r.viewed, now)
	}
	lane.Capacity = lane.State.Capacity
	if n := len(sc.Requests); n == 0 || sc.Requests[n-1].At <= now {
		// Nothing is decided after this: deciding on the replay's own
		// policy changes no state anyone sees.
		lane.Next = pol.Decide(r.viewed, now, r.v.Cost)
		lane.NextKnown = true
	}
	lane.Curve = decimate(lane.Curve, r.v.From, r.v.To)
	lane.Marks, lane.Hidden = stackMarks(r.marks)
	lane.Hidden += r.hidden
	for i := len(r.marks) - 1; i >= 0 && len(lane.Latest) < LatestCount; i-- {
		if !r.marks[i].Future {
			lane.Latest = append(lane.Latest, r.marks[i])
		}
	}
	slices.Reverse(lane.Latest)
}

// curveSampler holds the instants at which a lane's curve samples the
// policy's estimate. With few requests in view the curve also takes a
// point just before and after each of them, so its steps are exact
// (detailed); with many, twice the samples show its shape at the lane's
// resolution.
type curveSampler struct {
	samples  []int64
	next     int
	from, to int64
	detail   bool
}

func newCurveSampler(reqs []scenario.Request, from, to int64) curveSampler {
	at := func(r scenario.Request, t int64) int { return cmp.Compare(r.At, t) }
	lo, _ := slices.BinarySearchFunc(reqs, from, at)
	hi, _ := slices.BinarySearchFunc(reqs, to+1, at)
	c := curveSampler{from: from, to: to, detail: hi-lo <= 2*CurveBuckets}
	if to >= from {
		n := int64(CurveSamples)
		if !c.detail {
			n *= 2
		}
		for i := range n + 1 {
			c.samples = append(c.samples, from+i*(to-from)/n)
		}
	}
	return c
}

// detailed reports whether a request at t gets its own curve points.
func (c *curveSampler) detailed(t int64) bool { return c.detail && t >= c.from && t <= c.to }

// sampleTo adds the samples before t (and at t when inclusive) to the
// lane's curve.
func (c *curveSampler) sampleTo(lane *Lane, pol policies.Policy, viewed policies.Key, t int64, inclusive bool) {
	for c.next < len(c.samples) && (c.samples[c.next] < t || inclusive && c.samples[c.next] == t) {
		at := c.samples[c.next]
		lane.Curve = append(lane.Curve, Point{at, pol.Peek(viewed, at).Float()})
		c.next++
	}
}

// decimate keeps, in each of CurveBuckets slices of [from, to], the first,
// the highest and the last point, in order: what can be seen at the width
// of a lane, whatever the number of requests.
func decimate(pts []Point, from, to int64) []Point {
	if len(pts) <= 3*CurveBuckets || to <= from {
		return pts
	}
	out := make([]Point, 0, 3*CurveBuckets)
	bucket := func(p Point) int64 { return (p.At - from) * CurveBuckets / (to - from) }
	for i := 0; i < len(pts); {
		b := bucket(pts[i])
		j, hi := i, i
		for j+1 < len(pts) && bucket(pts[j+1]) == b {
			j++
			if pts[j].Value > pts[hi].Value {
				hi = j
			}
		}
		out = append(out, pts[i])
		if hi != i && hi != j {
			out = append(out, pts[hi])
		}
		if j != i {
			out = append(out, pts[j])
		}
		i = j + 1
	}
	return out
}

// stackMarks keeps the newest MaxMarks and numbers marks that share an
// instant and a level, so the page can draw them apart.
func stackMarks(marks []Mark) ([]Mark, int) {
	hidden := max(len(marks)-MaxMarks, 0)
	marks = marks[hidden:]
	for i := range marks {
		for j := i - 1; j >= 0 && marks[j].At == marks[i].At; j-- {
			if marks[j].Level == marks[i].Level && marks[j].Allowed == marks[i].Allowed {
				marks[i].Stack = marks[j].Stack + 1
				break
			}
		}
	}
	return marks, hidden
}

// bands lists the windows of width w that overlap [from, to]; the replay
// counts the permits admitted in each.
func bands(w, from, to int64) []Band {
	var out []Band
	for start := from - from%w; start <= to; start += w {
		out = append(out, Band{Start: start, End: start + w})
		if len(out) > 4*SpanWindows {
			break
		}
	}
	return out
}

// Status is the text line under a lane: the count or estimate at the
// clock, what remains, and what the next request would get.
func (l Lane) Status(now int64) string {
	var next *policies.Decision
	if l.NextKnown {
		next = &l.Next
	}
	return explain.Status(l.Policy, now, l.Capacity, l.State, next)
}

// Legend says what the lane's drawing shows besides the marks.
func (l Lane) Legend() string { return explain.Legend(l.Policy) }

// Summary is the lane's text alternative: what it shows, in words.
func (l Lane) Summary(v View) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, limit %d per %s, client %s: %d admitted, %d refused in all.", l.Label, l.Params.Limit,
		scenario.FormatMs(l.Params.WindowMs), v.Client, l.Admitted, l.Refused)
	if l.Hidden > 0 {
		if l.Hidden == 1 {
			b.WriteString(" 1 older request in view is not drawn.")
		} else {
			fmt.Fprintf(&b, " %d older requests in view are not drawn.", l.Hidden)
		}
	}
	return b.String()
}

// LatestText reads the latest decisions for the live region.
func (l Lane) LatestText() string {
	if len(l.Latest) == 0 {
		return l.Label + ": no requests yet."
	}
	parts := make([]string, 0, len(l.Latest))
	for _, m := range l.Latest {
		parts = append(parts, m.Describe())
	}
	return l.Label + ": " + strings.Join(parts, "; ") + "."
}

// Describe is one mark in words.
func (m Mark) Describe() string {
	d := policies.Decision{Allowed: m.Allowed, Never: m.Never, RetryAfterMs: m.Retry}
	text := fmt.Sprintf("request %d at %s %s", m.Index+1, scenario.FormatMs(m.At), explain.Outcome(d))
	if m.Disagree {
		text += " (lanes disagree)"
	}
	return text
}

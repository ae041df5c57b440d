package play

import (
	"context"
	"fmt"
	"slices"
	"unsafe"

	"github.com/windowlab/playground/explain"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// MaxReplayCacheBytes bounds what a session keeps of its last replay (see
// replayCache), estimated from its slices and its policies' HeapBytes. A
// session over it replays every lane in full on every update; a session
// nobody watches keeps nothing (the cache goes with its last stream).
const MaxReplayCacheBytes = 512 << 10

// replayCache is what a session keeps of its last view's replay so that the
// next view decides only what changed: per lane, the policy as the decided
// requests left it and everything drawn from them that does not depend on
// the clock. It serves the next view when the scenario has only had
// requests appended since (edits unchanged), the viewed client and the
// selection are the same, the visible span has not moved back, and no
// request lies after the clock; anything else replays in full. It is
// guarded by derived.mu.
type replayCache struct {
	key   cacheKey
	lanes []*laneAcc
	// differ[i] is whether the lanes decided request i differently;
	// disagreements counts the true ones.
	differ        []bool
	disagreements int
}

type cacheKey struct {
	edits    uint64
	client   string
	selected int
}

// serves reports whether the cache can be continued into view v.
func (c *replayCache) serves(key cacheKey, v *View, lanes int) bool {
	if c == nil || c.key != key || len(c.lanes) != lanes || !continuable(v) {
		return false
	}
	for _, a := range c.lanes {
		if v.From < a.lo || a.gridStep != gridStep(v) || a.replay.Entries() > len(v.Scenario.Requests) {
			return false
		}
	}
	return true
}

// parallelDecisions is how many decisions a view must have to make before
// its lanes are replayed in parallel goroutines.
const parallelDecisions = 2000

// undecided counts the decisions the lanes have yet to make for v.
func (c *replayCache) undecided(v *View) int {
	n := 0
	for _, a := range c.lanes {
		n += int(v.Total) - len(a.allowed)
	}
	return n
}

// continuable reports whether a replay for v can be kept and continued:
// with a request after the clock, the replay takes the state at the clock
// on its way, and a later clock needs it taken elsewhere.
func continuable(v *View) bool {
	n := len(v.Scenario.Requests)
	return n == 0 || v.Scenario.Requests[n-1].At <= v.Clock.Now
}

// bytes estimates the memory the cache holds.
func (c *replayCache) bytes() int {
	n := len(c.differ)
	for _, a := range c.lanes {
		n += a.bytes()
	}
	return n
}

// markDisagreements flags requests decided differently across lanes,
// comparing only the decisions made since the last view.
func (c *replayCache) markDisagreements(v *View) {
	if len(c.lanes) < 2 {
		return
	}
	first := c.lanes[0].allowed
	for i := len(c.differ); i < len(first); i++ {
		d := false
		for _, a := range c.lanes[1:] {
			if a.allowed[i] != first[i] {
				d = true
				break
			}
		}
		c.differ = append(c.differ, d)
		if d {
			c.disagreements++
		}
	}
	v.Disagreements = c.disagreements
	for l := range v.Lanes {
		for m := range v.Lanes[l].Marks {
			v.Lanes[l].Marks[m].Disagree = c.differ[v.Lanes[l].Marks[m].Index]
		}
	}
}

// laneAcc is one lane's replay with what it has drawn so far: everything
// that depends on the decided requests but not on the clock, kept from lo
// (the visible span's start when it last ran) on. finish turns it into the
// Lane of one view.
type laneAcc struct {
	index   int
	spec    scenario.PolicySpec
	wording explain.Policy
	// windows is whether the lane's policy counts in epoch-aligned
	// windows (policies.Info.Windows), which the lane draws.
	drawsWindows bool
	label        string
	client       string
	viewed       policies.Key
	selected     int
	replay       *scenario.LaneReplay

	// What is kept: points, marks and windows before lo are dropped;
	// marks after marksHi and curve points after curveHi are not taken.
	lo, marksHi, curveHi int64
	// snapAt is the clock: the first entry after it makes the replay take
	// the state there (then the replay is not kept).
	snapAt    int64
	snapped   bool
	snapState policies.State
	snapValue float64
	snapNodes []scenario.NodeState

	admitted, refused int
	allowed           []bool // per decision, probes false

	entry       int   // the entry being decided, -1 before the first
	entryAt     int64 // its instant
	entryViewed bool  // it is the viewed client's

	gridStep int64   // the curve samples multiples of gridStep
	gridNext int64   // the next multiple to sample
	grid     []Point // samples taken, oldest first
	reqPts   []Point // the viewed client's estimate just before and after each of its entries

	marks   []keptMark // the viewed client's requests in [lo, marksHi], at most 2 × MaxMarks
	bins    []Bin      // the viewed client's requests in [lo, marksHi] by binWidth, only bins with some, oldest first
	windows []Band     // permits admitted per window of the lane's policy, only windows with some, oldest first

	before policies.State // the selected request's key, just before it
	expl   *Explained
	sel    scenario.Decision
}

// keptMark is a Mark as the replay keeps it: what does not depend on the
// view (the key is the viewed client's).
type keptMark struct {
	index          int
	at, cost       int64
	retry, delay   int64
	level          float64
	nodeLevel      float64 // on several servers, the deciding node's level
	allowed, never bool
	node           int // the node that decided, from 1; 0 on one server
}

// newLaneAcc starts lane index of v's scenario before its first request.
func newLaneAcc(v *View, index int, spec scenario.PolicySpec, selected int) *laneAcc {
	sc := v.Scenario
	replay, err := scenario.StartLane(sc, index)
	if err != nil {
		// The session validated its scenario: this cannot happen.
		panic("play: " + err.Error())
	}
	return &laneAcc{
		index: index, spec: spec, wording: explain.For(sc, spec), drawsWindows: countsInWindows(spec.Name), label: spec.Label(sc),
		client: v.Client, viewed: keyOf(v.Client), selected: selected, replay: replay,
		lo: v.From, entry: -1, gridStep: gridStep(v),
		allowed: make([]bool, 0, v.Total),
		marks:   make([]keptMark, 0, 2*MaxMarks),
		// One span of samples, as a full one usually is (gridStep is
		// rounded down, so it may hold up to twice this).
		grid: make([]Point, 0, 2*CurveSamples+2),
	}
}

// update brings the lane up to view v, deciding only the entries it has
// not decided yet, and returns the lane to draw.
func (a *laneAcc) update(v *View, detail bool, inView int) (Lane, *Explained, scenario.Decision) {
	a.moveTo(v)
	hooks := scenario.Hooks{Before: a.beforeDecision, Annotate: a.annotate, After: a.afterDecision}
	if err := a.replay.Continue(context.Background(), v.Scenario, hooks); err != nil {
		// The session validated its scenario, the cache was checked
		// against it, and nothing cancels this replay.
		panic("play: " + err.Error())
	}
	lane := a.finish(v, detail, inView)
	return lane, a.expl, a.sel
}

// moveTo sets the kept range to view v's and drops what fell out of it.
func (a *laneAcc) moveTo(v *View) {
	a.lo, a.marksHi, a.curveHi, a.snapAt = v.From, v.To, v.Clock.Now, v.Clock.Now
	a.gridNext = max(a.gridNext, ceilMultiple(a.lo, a.gridStep))
	a.grid = a.grid[firstAt(a.grid, a.lo, func(p Point) int64 { return p.At }):]
	a.reqPts = a.reqPts[firstAt(a.reqPts, a.lo, func(p Point) int64 { return p.At }):]
	a.windows = a.windows[firstAt(a.windows, a.windowFloor(), func(b Band) int64 { return b.Start }):]
	a.bins = a.bins[firstAt(a.bins, a.lo-a.lo%a.binWidth(), func(b Bin) int64 { return b.Start }):]
}

// binWidth is the width of the density strip's bins: a round width for the
// span the curve's grid was chosen for (DensityBinWidth), so that bins
// stay put while the clock plays, and across most steps of the span.
func (a *laneAcc) binWidth() int64 { return DensityBinWidth(a.gridStep * 2 * CurveSamples) }

// countInBin adds a decision of the viewed client to its bin.
func (a *laneAcc) countInBin(d scenario.Decision) {
	w := a.binWidth()
	start := d.At - d.At%w
	n := len(a.bins)
	if n == 0 || a.bins[n-1].Start != start {
		a.bins = append(a.bins, Bin{Start: start, End: start + w})
		n++
	}
	if d.Detail.Allowed {
		a.bins[n-1].Admitted++
	} else {
		a.bins[n-1].Refused++
	}
}

// gridStep is the interval of the curve's samples in view v: the span over
// 2 × CurveSamples. A fitted span changes in steps (ladderSpan), and a
// replay kept for another step is not continued.
func gridStep(v *View) int64 { return max(1, (v.To-v.From)/(2*CurveSamples)) }

// firstAt is the index of the first element at or after t in a list sorted
// by at.
func firstAt[T any](xs []T, t int64, at func(T) int64) int {
	i, _ := slices.BinarySearchFunc(xs, t, func(x T, t int64) int {
		if at(x) < t {
			return -1
		}
		return 1
	})
	return i
}

// ceilMultiple is the least multiple of step at or after t (t >= 0).
func ceilMultiple(t, step int64) int64 { return (t + step - 1) / step * step }

// windowFloor is the start of the lane's window holding lo: the first
// window the view draws.
func (a *laneAcc) windowFloor() int64 {
	w := a.wording.Params.WindowMs
	return a.lo - a.lo%w
}

// beforeDecision samples the curve up to a new entry's instant and keeps
// the selected request's state before it is decided.
func (a *laneAcc) beforeDecision(pol policies.Policy, d scenario.Decision) {
	if d.Entry != a.entry {
		if a.entry >= 0 {
			a.pointAtEntry(pol) // just after the previous entry
		}
		a.entry, a.entryAt, a.entryViewed = d.Entry, d.At, d.Key == a.client
		if !a.snapped && d.At > a.snapAt {
			a.sampleTo(pol, a.snapAt, true)
			a.snapState = pol.Snapshot(a.viewed, a.snapAt)
			a.snapValue = pol.Peek(a.viewed, a.snapAt).Float()
			a.snapNodes = a.replay.NodeStates(a.viewed, a.snapAt)
			a.snapped = true
		}
		a.sampleTo(pol, d.At, false)
		a.pointAtEntry(pol) // just before it
	}
	if d.Index == a.selected && !d.Probe {
		a.before = pol.Snapshot(scenario.KeyOf(d.Key), d.At)
	}
}

// pointAtEntry keeps the viewed client's estimate at one of its own
// entries, so that the curve's steps fall exactly where they happen. A
// curve takes them only when at most 2 × CurveBuckets entries are in view
// (see curveDetail), the newest ones, with at most two points each: older
// points are dropped now and then.
func (a *laneAcc) pointAtEntry(pol policies.Policy) {
	if !a.entryViewed || a.entryAt < a.lo || a.entryAt > a.curveHi {
		return
	}
	if a.reqPts == nil {
		a.reqPts = make([]Point, 0, maxEntryPoints+maxEntryPoints/4)
	}
	if len(a.reqPts) == cap(a.reqPts) {
		n := copy(a.reqPts, a.reqPts[len(a.reqPts)-maxEntryPoints:])
		a.reqPts = a.reqPts[:n]
	}
	a.reqPts = append(a.reqPts, Point{a.entryAt, pol.Peek(a.viewed, a.entryAt).Float()})
}

// maxEntryPoints is how many points at entries a curve can draw.
const maxEntryPoints = 4 * CurveBuckets

// sampleTo takes the curve's samples before t (and at t when inclusive).
func (a *laneAcc) sampleTo(pol policies.Policy, t int64, inclusive bool) {
	for g := a.gridNext; g <= a.curveHi && (g < t || inclusive && g == t); g += a.gridStep {
		a.grid = append(a.grid, Point{g, pol.Peek(a.viewed, g).Float()})
		a.gridNext = g + a.gridStep
	}
}

// annotate words the selected request's response headers, from the policy
// that decided it: on several servers that is the deciding node, the
// server that answered.
func (a *laneAcc) annotate(deciding policies.Policy, d *scenario.Decision) {
	if d.Index == a.selected && !d.Probe {
		d.Headers = explain.Headers(a.wording, d.Detail, deciding, scenario.KeyOf(d.Key))
	}
}

// afterDecision counts the decision, explains it when it is the selected
// one, and keeps it when it is the viewed client's.
func (a *laneAcc) afterDecision(pol policies.Policy, d scenario.Decision) error {
	a.allowed = append(a.allowed, d.Allowed())
	if d.Probe {
		return nil
	}
	if d.Detail.Allowed {
		a.admitted++
	} else {
		a.refused++
	}
	if d.Index == a.selected {
		a.expl = explained(a.wording, a.label, d, a.before, pol.Snapshot(scenario.KeyOf(d.Key), d.At))
		if first := explain.SeveralStep(d, a.spec.Deployment); first != "" {
			// Which node decided, and what it knew, comes before its
			// arithmetic: the numbers that follow are that node's.
			a.expl.Steps = append([]string{first}, a.expl.Steps...)
		}
		a.sel = d
	}
	if d.Key != a.client { // names and keys match one to one: validation refuses collisions
		return nil
	}
	if d.Detail.Allowed {
		a.countInWindow(d)
	}
	if d.At >= a.lo && d.At <= a.marksHi {
		a.mark(pol, d)
		a.countInBin(d)
	}
	return nil
}

// countInWindow adds an admitted request to the window of the lane's
// policy it fell in, for the windows a view can draw.
func (a *laneAcc) countInWindow(d scenario.Decision) {
	if !a.drawsWindows {
		return
	}
	w := a.wording.Params.WindowMs
	start := d.At - d.At%w
	if start < a.windowFloor() || start > a.marksHi {
		return
	}
	if n := len(a.windows); n > 0 && a.windows[n-1].Start == start {
		a.windows[n-1].Admitted += d.Cost
		return
	}
	a.windows = append(a.windows, Band{Start: start, End: start + w, Admitted: d.Cost})
}

// countsInWindows is whether the named policy counts in windows aligned
// to the epoch, as its registry entry says.
func countsInWindows(name string) bool {
	in, ok := policies.Lookup(name)
	return ok && in.Windows
}

// mark keeps a drawn request; past 2 × MaxMarks only the newest MaxMarks
// are kept: a view draws at most MaxMarks and counts the rest.
// On several servers pol is the combined lane once the decision is taken
// in, and the mark is drawn at its count, as the lane's windows and curve
// are; the node's own level is kept for the node's timeline.
func (a *laneAcc) mark(pol policies.Policy, d scenario.Decision) {
	if len(a.marks) == 2*MaxMarks {
		n := copy(a.marks, a.marks[MaxMarks:])
		a.marks = a.marks[:n]
	}
	level := d.Estimate.Float() + float64(d.Cost)
	nodeLevel := level
	if d.Nodes != nil {
		level = pol.Peek(scenario.KeyOf(d.Key), d.At).Float()
		if !d.Detail.Allowed {
			level += float64(d.Cost)
		}
	}
	a.marks = append(a.marks, keptMark{
		index: d.Index, at: d.At, cost: d.Cost, allowed: d.Detail.Allowed, never: d.Detail.Never,
		retry: d.Detail.RetryAfterMs, delay: d.Detail.DelayMs, level: level, nodeLevel: nodeLevel, node: nodeOf(d),
	})
}

// finish draws the lane for view v from what the replay kept: the curve up
// to the clock, the state at the clock, what the next request would get,
// the windows and the marks in view. detail says whether few enough
// requests are in view for the curve to take a point at each; inView counts
// the viewed client's requests in the span (what is not drawn is counted
// as hidden).
func (a *laneAcc) finish(v *View, detail bool, inView int) Lane {
	pol, now := a.replay.Policy(), v.Clock.Now
	lane := Lane{
		Index: a.index, ID: fmt.Sprintf("lane-%d", a.index), Policy: a.spec.Name, Label: a.label,
		Params: a.wording.Params, Admitted: a.admitted, Refused: a.refused, Deployment: a.spec.Deployment,
	}
	lane.Curve = a.curve(pol, v.From, v.To, now, detail)
	if a.snapped {
		lane.State, lane.Nodes = a.snapState, a.snapNodes
	} else {
		lane.State, lane.Nodes = pol.Snapshot(a.viewed, now), a.replay.NodeStates(a.viewed, now)
	}
	lane.Capacity = lane.State.Capacity
	lane.OnServers = continuable(v) && a.spec.Several()
	if continuable(v) {
		// Nothing is decided after the clock, so a request there is
		// what the next one would get; it is decided on copies, since
		// the replay is kept for the next view. On several servers the
		// routing is decided too: the node it reaches, whose answer it is.
		d, node := a.replay.Next(a.viewed, now, v.Cost)
		lane.Next, lane.NextKnown = d, true
		if node != nil {
			lane.NextNode = node.Node + 1
		}
	}
	if a.drawsWindows {
		lane.Windows = bands(a.wording.Params.WindowMs, v.From, v.To)
		kept := a.windows
		for i := range lane.Windows {
			for len(kept) > 0 && kept[0].Start < lane.Windows[i].Start {
				kept = kept[1:]
			}
			if len(kept) > 0 && kept[0].Start == lane.Windows[i].Start {
				lane.Windows[i].Admitted = kept[0].Admitted
			}
		}
	}
	// The marks in view are a run of the kept ones (kept marks are in
	// time order); only the newest MaxMarks of them are drawn.
	lo := firstAt(a.marks, v.From, func(m keptMark) int64 { return m.at })
	hi := firstAt(a.marks, v.To+1, func(m keptMark) int64 { return m.at })
	drawn := max(lo, hi-MaxMarks)
	lane.Marks = make([]Mark, hi-drawn)
	for i, m := range a.marks[drawn:hi] {
		lane.Marks[i] = a.shown(m, now)
	}
	lane.Marks, _ = stackMarks(lane.Marks)
	lane.Hidden = inView - len(lane.Marks)
	if inView > MaxMarks {
		lo := firstAt(a.bins, v.From-v.From%a.binWidth(), func(b Bin) int64 { return b.Start })
		hi := firstAt(a.bins, v.To+1, func(b Bin) int64 { return b.Start })
		lane.Density = slices.Clone(a.bins[lo:hi])
	}
	for i := hi - 1; i >= lo && len(lane.Latest) < LatestCount; i-- {
		switch {
		case i >= drawn:
			if m := lane.Marks[i-drawn]; !m.Future {
				lane.Latest = append(lane.Latest, m)
			}
		case a.marks[i].at <= now:
			lane.Latest = append(lane.Latest, a.shown(a.marks[i], now))
		}
	}
	slices.Reverse(lane.Latest)
	return lane
}

// shown is a kept mark as a view with the clock at now shows it.
func (a *laneAcc) shown(m keptMark, now int64) Mark {
	return Mark{
		Index: m.index, At: m.at, Key: a.client, Cost: m.cost, Allowed: m.allowed, Never: m.never,
		Retry: m.retry, Delay: m.delay, Level: m.level, NodeLevel: m.nodeLevel, Future: m.at > now, Selected: m.index == a.selected, Node: m.node,
	}
}

// nodeOf is the node that decided d, from 1, or 0 on one server.
func nodeOf(d scenario.Decision) int {
	if d.Nodes == nil {
		return 0
	}
	return d.Nodes.Node + 1
}

// curve is the lane's estimate for the viewed client over [from, now], in
// a span ending at to: the samples the replay took and, after the last
// request, those the clock has reached since, decimated to what a lane can
// show. The samples are multiples of gridStep (every other one when
// detailed, where each of the client's requests adds a point just before
// and after it), fixed in time so that a moving clock only adds samples;
// the curve ends at the clock.
func (a *laneAcc) curve(pol policies.Policy, from, to, now int64, detail bool) []Point {
	step := a.gridStep
	if detail {
		step *= 2
	}
	grid, reqs := a.grid, a.reqPts
	if !detail {
		reqs = nil
	}
	tail := int64(0)
	if !a.snapped && now >= a.gridNext {
		tail = (now-a.gridNext)/a.gridStep + 1
	}
	out := make([]Point, 0, len(grid)*int(a.gridStep)/int(step)+len(reqs)+int(tail)+2)
	// Merge in replay order: at one instant, the points at requests were
	// taken before the sample.
	for len(grid) > 0 || len(reqs) > 0 {
		if len(reqs) > 0 && (len(grid) == 0 || reqs[0].At <= grid[0].At) {
			if reqs[0].At >= from && reqs[0].At <= now {
				out = append(out, reqs[0])
			}
			reqs = reqs[1:]
			continue
		}
		if g := grid[0]; g.At >= from && g.At <= now && g.At%step == 0 {
			out = append(out, g)
		}
		grid = grid[1:]
	}
	if !a.snapped {
		if detail && a.entry >= 0 && a.entryViewed && a.entryAt >= from && a.entryAt <= now {
			out = append(out, Point{a.entryAt, pol.Peek(a.viewed, a.entryAt).Float()}) // just after the last entry
		}
		for g := max(a.gridNext, ceilMultiple(from, step)); g <= now; g += a.gridStep {
			if g%step == 0 {
				out = append(out, Point{g, pol.Peek(a.viewed, g).Float()})
			}
		}
	}
	if now >= from && now%step != 0 {
		value := a.snapValue
		if !a.snapped {
			value = pol.Peek(a.viewed, now).Float()
		}
		out = append(out, Point{now, value})
	}
	return decimate(out, from, to)
}

// bytes estimates the memory the lane keeps: its slices and its policy.
func (a *laneAcc) bytes() int {
	n := int(a.replay.Policy().Stats().HeapBytes)
	n += cap(a.allowed) + cap(a.marks)*int(unsafe.Sizeof(keptMark{})) + cap(a.windows)*int(unsafe.Sizeof(Band{})) + cap(a.bins)*int(unsafe.Sizeof(Bin{}))
	n += cap(a.grid)*int(unsafe.Sizeof(Point{})) + cap(a.reqPts)*int(unsafe.Sizeof(Point{}))
	return n
}

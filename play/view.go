package play

import (
	"cmp"
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
	// MaxBands is how many windows a lane draws; a span holding more
	// draws none (each would be a few units wide).
	MaxBands = 240
	// CurveSamples is how many instants of the visible span a state curve
	// samples, besides the instants of the drawn requests (twice as many
	// when there are too many requests to draw a point at each). The
	// instants are fixed multiples of the span over 2 × CurveSamples, not
	// fractions of the span, so that a moving clock leaves the samples
	// already taken where they are (and the curve does not shimmer).
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
// scenario. It holds copies, or what the session never changes again: it
// stays valid after the session changes. Treat it as read-only.
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
	// Zoom is how the session chose From and To.
	Zoom  Zoom
	Lanes []Lane
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
	// with Policy.Peek from the first sample inside the span (at most one
	// sample interval after From) to the clock.
	Curve []Point
	// Density counts, when more of the viewed client's requests are in
	// view than a lane draws (MaxMarks), every one of them in view in
	// slices of DensityBinWidth (only those with some, oldest first):
	// what the lane draws as a strip.
	Density []Bin
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
	// NextNode is, on several servers, the node the next request would
	// reach (from 1), whose answer Next is; 0 on one server.
	NextNode int
	// OnServers is set on several servers when the clock is at or after
	// the last request: the next request's answer is then its node's, not
	// one past the clock, and when Next is not shown (a room clears
	// NextKnown while a question is open) the line says only that.
	OnServers bool
	// Latest are the viewed client's latest decisions at or before the
	// clock, newest last.
	Latest []Mark
	// Deployment is the lane's servers; on several, Curve, Windows and
	// State are the combined lane's (what passed across every node,
	// against the one limit) and each mark's Level its node's own.
	Deployment scenario.Deployment
	// Nodes are, on several servers, each node's own state for the viewed
	// client at the clock (the store's alone with a central store): what
	// each server knew. Nil on one server.
	Nodes []scenario.NodeState
}

// Mark is one request drawn in a lane.
type Mark struct {
	Index   int // position in the expanded request list
	At      int64
	Key     string
	Cost    int64
	Allowed bool
	Never   bool
	Retry   int64 // RetryAfterMs of a refused request
	Delay   int64 // DelayMs of an admitted request a queue held back (leaky-bucket)
	// Level is the estimate before it plus its cost: what was compared
	// with the capacity. On several servers it is the combined lane's
	// (what had passed across the nodes, against the one limit), since the
	// lane draws that count, and NodeLevel the deciding node's own, which
	// the node compared with its capacity.
	Level     float64
	NodeLevel float64
	Stack     int  // marks already drawn at the same instant and level
	Disagree  bool // lanes decided this request differently
	Future    bool // later than the clock (after a jump back)
	Selected  bool
	Node      int // on several servers, the node that decided, from 1; else 0
}

// Point is one sample of a lane's estimate.
type Point struct {
	At    int64
	Value float64
}

// Bin is one slice of a lane's span with the viewed client's requests
// decided in it.
type Bin struct {
	Start, End        int64
	Admitted, Refused int
}

// DensityBins is the most slices a span's density strip has.
const DensityBins = 40

// DensityBinWidth is the width of the density strip's slices for a span:
// the least round width (1, 2 or 5 times a power of ten ms) that makes at
// most DensityBins of them, so a strip has from two fifths of that to
// that many. The width does not follow each step of a fitted span
// (spanLadder: at most 1.25 times the last) but one in three or four
// (from 20 to 25, 40 to 50 and 80 to 100 × a power of ten): at the other
// steps the slices, their counts and their titles stay as they were, and
// the lane draws them on coordinates of their own (lane's density strip),
// so that a step moves the strip by one transform instead of redrawing
// each bar.
func DensityBinWidth(span int64) int64 {
	least := max(1, (span+DensityBins-1)/DensityBins)
	for mag := int64(1); ; mag *= 10 {
		for _, m := range []int64{1, 2, 5} {
			if w := m * mag; w >= least {
				return w
			}
		}
	}
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

// View returns what to show, derived from the scenario by replaying it.
// Only what changed since the last view is replayed when that is enough
// (see replayCache): requests appended at the clock are decided, and a
// moved clock only samples the curve past the last request and asks the
// policies about the clock. The result is the same as a full replay's.
func (s *Session) View() View {
	v := View{
		ID: s.id, Version: s.version, ScenarioRev: s.rev, Clock: s.Clock(), Total: s.total,
		Client: s.client, Clients: slices.Clone(s.clients), Cost: s.cost, Notice: s.notice,
	}
	v.Scenario = s.sc
	// Shared, not copied: a session only appends to the list in place
	// past every copy's length, or replaces it, never changing what a
	// view can see; clipped, so that appending to a view's makes a copy.
	// Copying 5,000 requests costs more than continuing the kept replay.
	v.Scenario.Requests = slices.Clip(s.sc.Requests)
	v.Scenario.Policies = slices.Clone(s.sc.Policies)
	selected := s.selected
	key := cacheKey{edits: s.edits, client: s.client, selected: selected}
	full := s.fullReplay
	d := s.derived
	if d == nil {
		d = &derived{} // a zero Session: nothing to keep
	}
	// The replay works on the copies; views of one session take turns.
	v.Zoom = s.zoom
	v.From, v.To = s.zoom.ViewSpan(v.Scenario, v.Clock.Now)
	specs := v.Scenario.Specs()

	d.mu.Lock()
	defer d.mu.Unlock()
	c := d.replays
	if full || !c.serves(key, &v, len(specs)) {
		c = &replayCache{key: key}
		for i, spec := range specs {
			c.lanes = append(c.lanes, newLaneAcc(&v, i, spec, selected))
		}
	} else {
		d.continued++
	}
	detail, inView := v.curveDetail(), v.viewedInSpan()
	results := make([]struct {
		lane Lane
		expl *Explained
		sel  scenario.Decision
	}, len(specs))
	update := func(i int) {
		r := &results[i]
		r.lane, r.expl, r.sel = c.lanes[i].update(&v, detail, inView)
	}
	if c.undecided(&v) < parallelDecisions {
		// Little to decide: goroutines would cost more than they save.
		for i := range c.lanes {
			update(i)
		}
	} else {
		// Lanes are independent: replay them side by side.
		var wg sync.WaitGroup
		for i := range c.lanes {
			wg.Go(func() { update(i) })
		}
		wg.Wait()
	}
	for _, r := range results {
		v.Lanes = append(v.Lanes, r.lane)
		if r.expl != nil {
			if v.Selected == nil {
				v.Selected = &Selection{Index: selected, At: r.sel.At, Key: r.sel.Key, Cost: r.sel.Cost}
			}
			v.Selected.Lanes = append(v.Selected.Lanes, *r.expl)
		}
	}
	c.markDisagreements(&v)
	switch {
	case !full && continuable(&v) && c.bytes() <= MaxReplayCacheBytes:
		d.replays = c
	case c == d.replays || d.replays != nil && d.replays.key != key:
		// The kept replay has outgrown its bound, or is of another
		// scenario, client or selection: it can serve no later view.
		d.replays = nil
	}
	return v
}

// curveDetail reports whether few enough requests lie in the visible span
// up to the clock for each of the client's to get its own curve points.
func (v *View) curveDetail() bool {
	at := func(r scenario.Request, t int64) int { return cmp.Compare(r.At, t) }
	lo, _ := slices.BinarySearchFunc(v.Scenario.Requests, v.From, at)
	hi, _ := slices.BinarySearchFunc(v.Scenario.Requests, v.Clock.Now+1, at)
	return hi-lo <= 2*CurveBuckets
}

// viewedInSpan counts the viewed client's requests in [From, To]: what a
// lane draws or counts as hidden.
func (v *View) viewedInSpan() int {
	reqs := v.Scenario.Requests
	i, _ := slices.BinarySearchFunc(reqs, v.From, func(r scenario.Request, t int64) int { return cmp.Compare(r.At, t) })
	n := 0
	for _, r := range reqs[i:] {
		if r.At > v.To {
			break
		}
		if !r.Probe && r.KeyName() == v.Client {
			n += int(r.Count)
		}
	}
	return n
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
	if (to-from)/w > MaxBands {
		return nil
	}
	for start := from - from%w; start <= to; start += w {
		out = append(out, Band{Start: start, End: start + w})
	}
	return out
}

// Status is the text line under a lane: the count or estimate at the
// clock, what remains, and what the next request would get.
func (l Lane) Status(now int64) string {
	var next *policies.Decision
	switch {
	case l.NextKnown && l.NextNode > 0:
		return explain.StatusOnNode(l.Policy, now, l.Capacity, l.State, l.Next, l.NextNode-1)
	case l.NextKnown:
		next = &l.Next
	case l.OnServers:
		return explain.StatusOnServers(l.Policy, now, l.Capacity, l.State)
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
	d := policies.Decision{Allowed: m.Allowed, Never: m.Never, RetryAfterMs: m.Retry, DelayMs: m.Delay}
	text := fmt.Sprintf("request %d at %s %s", m.Index+1, scenario.FormatMs(m.At), explain.Outcome(d))
	if m.Node > 0 {
		text += " by " + explain.NodeName(m.Node-1)
	}
	if m.Disagree {
		text += " (lanes disagree)"
	}
	return text
}

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
	type result struct {
		lane Lane
		expl *Explained
		sel  scenario.Decision
	}
	results := make([]result, len(specs))
	keys := make([]policies.Key, len(v.Scenario.Requests)) // hashed once for every lane
	for i, r := range v.Scenario.Requests {
		keys[i] = keyOf(r.KeyName())
	}
	// Lanes are independent: replay them side by side.
	var wg sync.WaitGroup
	for i, spec := range specs {
		wg.Go(func() {
			r := &results[i]
			r.lane, decisions[i], r.expl, r.sel = replayLane(v, keys, i, spec, selected)
		})
	}
	wg.Wait()
	for _, r := range results {
		lane, expl, sel := r.lane, r.expl, r.sel
		v.Lanes = append(v.Lanes, lane)
		if expl != nil {
			if v.Selected == nil {
				v.Selected = &Selection{Index: selected, At: sel.At, Key: sel.Key, Cost: sel.Cost}
			}
			v.Selected.Lanes = append(v.Selected.Lanes, *expl)
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

// replayLane runs every request through a fresh policy, as scenario.Run
// does, sampling the viewed client's state on the way. It returns whether
// each request was admitted, and the explanation of the selected request
// with that request's decision.
func replayLane(v View, keys []policies.Key, index int, spec scenario.PolicySpec, selected int) (Lane, []bool, *Explained, scenario.Decision) {
	sc := v.Scenario
	pol, err := policies.New(spec.Name, spec.Params(sc))
	if err != nil {
		// The session validated its scenario: this cannot happen.
		panic("play: " + err.Error())
	}
	params := pol.Params()
	lane := Lane{Index: index, ID: fmt.Sprintf("lane-%d", index), Policy: spec.Name, Label: spec.Label(sc), Params: params}
	viewed := keyOf(v.Client)
	now := v.Clock.Now
	curveEnd := min(v.To, now)
	// With few requests in view the curve takes a point just before and
	// after each of them, so its steps are exact; with many, the samples
	// (twice as many) show its shape at the lane's resolution.
	lo, _ := slices.BinarySearchFunc(sc.Requests, v.From, func(r scenario.Request, t int64) int { return cmp.Compare(r.At, t) })
	hi, _ := slices.BinarySearchFunc(sc.Requests, curveEnd+1, func(r scenario.Request, t int64) int { return cmp.Compare(r.At, t) })
	detailed := hi-lo <= 2*CurveBuckets
	var samples []int64
	if curveEnd >= v.From {
		n := int64(CurveSamples)
		if !detailed {
			n *= 2
		}
		for i := range n + 1 {
			samples = append(samples, v.From+i*(curveEnd-v.From)/n)
		}
	}
	inCurve := func(t int64) bool { return detailed && t >= v.From && t <= curveEnd }
	si := 0
	sample := func(before int64, inclusive bool) {
		for si < len(samples) && (samples[si] < before || inclusive && samples[si] == before) {
			lane.Curve = append(lane.Curve, Point{samples[si], pol.Peek(viewed, samples[si]).Float()})
			si++
		}
	}
	snapped := false
	var expl *Explained
	var sel scenario.Decision
	allowed := make([]bool, 0, v.Total)
	marks := make([]Mark, 0, 2*MaxMarks)
	hidden := 0
	if explain.DrawsWindows(spec.Name) {
		lane.Windows = bands(params.WindowMs, v.From, v.To)
	}
	idx := 0
	for entry, r := range sc.Requests {
		if !snapped && r.At > now {
			sample(now, true)
			lane.State = pol.Snapshot(viewed, now)
			snapped = true
		}
		sample(r.At, false)
		name := r.KeyName()
		key := keys[entry]
		mine := key == viewed
		if mine && inCurve(r.At) {
			lane.Curve = append(lane.Curve, Point{r.At, pol.Peek(viewed, r.At).Float()})
		}
		for range r.Count {
			d := scenario.Decision{Index: idx, Entry: entry, At: r.At, Key: name, Cost: r.Cost, Probe: r.Probe}
			if r.Probe {
				d.Cost = 0
				d.Estimate = pol.Peek(key, r.At)
			} else {
				var before policies.State
				if idx == selected {
					before = pol.Snapshot(key, r.At)
				}
				d.Detail = pol.Decide(key, r.At, r.Cost)
				d.Estimate = d.Detail.Estimate
				if d.Detail.Allowed {
					lane.Admitted++
				} else {
					lane.Refused++
				}
				if idx == selected {
					expl = explained(explain.Policy{Name: spec.Name, Params: params}, lane.Label, d, before, pol.Snapshot(key, r.At))
					sel = d
				}
				if mine && d.Detail.Allowed && len(lane.Windows) > 0 && r.At >= lane.Windows[0].Start {
					if w := int((r.At - lane.Windows[0].Start) / params.WindowMs); w < len(lane.Windows) {
						lane.Windows[w].Admitted += r.Cost
					}
				}
				if mine && r.At >= v.From && r.At <= v.To {
					if len(marks) == 2*MaxMarks {
						// Only the newest MaxMarks are drawn: drop the older half.
						hidden += copy(marks, marks[MaxMarks:])
						marks = marks[:MaxMarks]
					}
					marks = append(marks, Mark{
						Index: idx, At: r.At, Key: name, Cost: d.Cost, Allowed: d.Detail.Allowed, Never: d.Detail.Never,
						Retry: d.Detail.RetryAfterMs, Level: d.Estimate.Float() + float64(d.Cost),
						Future: r.At > now, Selected: idx == selected,
					})
				}
			}
			allowed = append(allowed, d.Allowed())
			idx++
		}
		if mine && inCurve(r.At) {
			lane.Curve = append(lane.Curve, Point{r.At, pol.Peek(viewed, r.At).Float()})
		}
	}
	sample(now, true)
	if !snapped {
		lane.State = pol.Snapshot(viewed, now)
	}
	lane.Capacity = lane.State.Capacity
	if n := len(sc.Requests); n == 0 || sc.Requests[n-1].At <= now {
		// Nothing is decided after this: deciding on the replay's own
		// policy changes no state anyone sees.
		lane.Next = pol.Decide(viewed, now, v.Cost)
		lane.NextKnown = true
	}
	lane.Curve = decimate(lane.Curve, v.From, v.To)
	lane.Marks, lane.Hidden = stackMarks(marks)
	lane.Hidden += hidden
	for i := len(marks) - 1; i >= 0 && len(lane.Latest) < LatestCount; i-- {
		if !marks[i].Future {
			lane.Latest = append(lane.Latest, marks[i])
		}
	}
	slices.Reverse(lane.Latest)
	return lane, allowed, expl, sel
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

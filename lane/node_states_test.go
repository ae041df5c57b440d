package lane

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/windowlab/playground/cluster"
	"github.com/windowlab/playground/explain"
	"github.com/windowlab/playground/play"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// sessionOf opens sc in a playground session.
func sessionOf(t *testing.T, sc scenario.Scenario) *play.Session {
	t.Helper()
	sess, err := play.NewStore(nil).New(scenario.Scenario{})
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Load(sc); err != nil {
		t.Fatal(err)
	}
	return sess
}

// viewAt opens sc in a playground session with the clock at now.
func viewAt(t *testing.T, sc scenario.Scenario, now int64) play.View {
	t.Helper()
	sess := sessionOf(t, sc)
	if err := sess.Jump(now); err != nil {
		t.Fatal(err)
	}
	return sess.View()
}

func renderDoc(t *testing.T, in Input, o Options) *goquery.Document {
	t.Helper()
	var b strings.Builder
	if err := Figure(in, o).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// nodesAt is what each node of spec holds of the default client at the
// real instant now after sc's requests, worked out on package cluster's
// servers directly.
func nodesAt(t *testing.T, sc scenario.Scenario, spec scenario.PolicySpec, now int64) []policies.State {
	t.Helper()
	c, err := cluster.New(cluster.Config{Policy: spec.Name, Params: spec.Params(sc), Nodes: spec.Nodes,
		SyncMs: spec.SyncMs, Central: spec.Central, SkewMs: spec.SkewMs.Ms()})
	if err != nil {
		t.Fatal(err)
	}
	key := scenario.KeyOf(scenario.DefaultKey)
	for _, r := range sc.Requests {
		for range r.Count {
			c.Decide(key, r.At, r.Cost)
		}
	}
	n := spec.Nodes
	if spec.Central {
		n = 1
	}
	var out []policies.State
	for i := range n {
		out = append(out, c.Snapshot(i, key, now))
	}
	return out
}

// Under a lane on several servers each node's own state is drawn and
// named: "node 1" … in text, what it counts at the clock as its bar and
// its words, computed by the servers themselves. Six requests at 0 reach
// three servers in turn; before the sync at 0.5 s each counts its own 2,
// after it all 6, and a central store counts 6 for everyone.
func TestEachNodesStateIsDrawn(t *testing.T) {
	skew, _ := scenario.SkewsOf(0, 300, -200)
	for _, c := range []struct {
		spec  scenario.PolicySpec
		now   int64
		names []string
	}{
		{scenario.PolicySpec{Name: policies.FixedWindow, Deployment: scenario.Deployment{Nodes: 3, SyncMs: 500}}, 400, []string{"node 1", "node 2", "node 3"}},
		{scenario.PolicySpec{Name: policies.FixedWindow, Deployment: scenario.Deployment{Nodes: 3, SyncMs: 500}}, 600, []string{"node 1", "node 2", "node 3"}},
		{scenario.PolicySpec{Name: policies.FixedWindow, Deployment: scenario.Deployment{Nodes: 3, SyncMs: 500, SkewMs: skew}}, 900, []string{"node 1", "node 2", "node 3"}},
		{scenario.PolicySpec{Name: policies.SlidingLog, Deployment: scenario.Deployment{Nodes: 2, SyncMs: 250}}, 300, []string{"node 1", "node 2"}},
		{scenario.PolicySpec{Name: policies.GCRA, Deployment: scenario.Deployment{Nodes: 3}}, 100, []string{"node 1", "node 2", "node 3"}},
		{scenario.PolicySpec{Name: policies.FixedWindow, Deployment: scenario.Deployment{Nodes: 3, Central: true}}, 400, []string{"the central store"}},
	} {
		sc := scenario.Scenario{Limit: 5, WindowMs: 1000, Policies: []scenario.PolicySpec{c.spec},
			Requests: []scenario.Request{{At: 0, Cost: 1, Count: 6}}}
		name := fmt.Sprintf("%s at %s", c.spec.Label(sc), scenario.FormatMs(c.now))
		v := viewAt(t, sc, c.now)
		doc := renderDoc(t, FromView(v, v.Lanes[0]), Options{})
		nodes := doc.Find(`[data-testid="lane-node"]`)
		if nodes.Length() != len(c.names) {
			t.Fatalf("%s: %d nodes drawn, want %d", name, nodes.Length(), len(c.names))
		}
		want := nodesAt(t, sc, c.spec, c.now)
		nodes.Each(func(i int, n *goquery.Selection) {
			if got := n.Find(".lane-node-name").Text(); got != c.names[i] {
				t.Errorf("%s: node %d is named %q, want %q", name, i+1, got, c.names[i])
			}
			text := n.Find(".lane-node-text").Text()
			if count := explain.Fraction(want[i].Estimate) + " of 5"; !strings.Contains(text, count) {
				t.Errorf("%s: %s says %q, want it to count %s as the servers do", name, c.names[i], text, count)
			}
			if got := n.Find("svg title").First().Text(); got != text {
				t.Errorf("%s: %s's drawing is titled %q, want its words %q", name, c.names[i], got, text)
			}
			if n.Find(`[data-testid="node-level"]`).Length() != 1 {
				t.Errorf("%s: %s has no bar of what it counts", name, c.names[i])
			}
		})
		if !doc.Find(`[data-testid="lane-nodes"]`).Is("[open]") {
			t.Errorf("%s: the nodes are folded; %d or fewer are shown open", name, OpenNodes)
		}
	}
}

// The hand-checked counts: before the sync each of the three counts its
// own 2, after it each counts all 6.
func TestNodeCountsBeforeAndAfterTheSync(t *testing.T) {
	spec := scenario.PolicySpec{Name: policies.FixedWindow, Deployment: scenario.Deployment{Nodes: 3, SyncMs: 500}}
	sc := scenario.Scenario{Limit: 5, WindowMs: 1000, Policies: []scenario.PolicySpec{spec},
		Requests: []scenario.Request{{At: 0, Cost: 1, Count: 6}}}
	for _, c := range []struct {
		now  int64
		want int64
	}{{400, 2}, {600, 6}} {
		v := viewAt(t, sc, c.now)
		for i, ns := range v.Lanes[0].Nodes {
			if ns.State.Estimate != policies.Whole(c.want) {
				t.Errorf("at %s: node %d counts %v, want %d", scenario.FormatMs(c.now), i+1, ns.State.Estimate, c.want)
			}
		}
	}
}

// A skewed node's words give its clock, and its window is the one its
// own clock is in.
func TestSkewedNodeSaysItsClock(t *testing.T) {
	skew, _ := scenario.SkewsOf(0, 300)
	spec := scenario.PolicySpec{Name: policies.FixedWindow, Deployment: scenario.Deployment{Nodes: 2, SyncMs: 500, SkewMs: skew}}
	sc := scenario.Scenario{Limit: 5, WindowMs: 1000, Policies: []scenario.PolicySpec{spec},
		Requests: []scenario.Request{{At: 0, Cost: 1, Count: 4}}}
	v := viewAt(t, sc, 800)
	doc := renderDoc(t, FromView(v, v.Lanes[0]), Options{})
	second := doc.Find(`[data-testid="lane-node"]`).Eq(1)
	if text := second.Find(".lane-node-text").Text(); !strings.Contains(text, "its clock 300 ms ahead, at 1.1 s on it") {
		t.Errorf("node 2 says %q, want its clock 300 ms ahead", text)
	}
	if title := second.Find(".node-window title").Text(); title != "its window from 1 s to 2 s on its own clock, 700 ms to 1.7 s in real time" {
		t.Errorf("node 2's window is %q, want the one from 1 s on its own clock", title)
	}
}

// Lesson 8's skewed clocks: node 2 runs 300 ms ahead, so at 0.75 s its
// window (1 s to 2 s on its clock) began at 0.7 s of the real time the
// axis shows, and its panel shades it from there; the combined lane draws
// the three it admits at 0.75 s at the combined count, above the five
// admitted at 0, where its window's block says 8.
func TestSkewedLaneDrawsRealTime(t *testing.T) {
	sc, err := scenario.Parse([]byte(`{"limit": 5, "windowMs": 1000, "policies": [{"name": "fixed-window", "nodes": 2, "syncMs": 100, "skewMs": [0, 300]}], "requests": [{"at": 0, "count": 5}, {"at": 750, "count": 5}]}`))
	if err != nil {
		t.Fatal(err)
	}
	v := viewAt(t, sc, 750)
	in := FromView(v, v.Lanes[0])
	p := newPlot(in, Options{})
	doc := renderDoc(t, in, Options{})
	rect := doc.Find(`[data-testid="lane-node"]`).Eq(1).Find("rect.node-window")
	if rect.Length() != 1 {
		t.Fatalf("node 2's panel draws %d windows, want 1", rect.Length())
	}
	if x, want := rect.AttrOr("x", ""), num(max(p.X(700), p.left)); x != want {
		t.Errorf("node 2's window starts at x = %s, want %s (700 ms real time)", x, want)
	}
	var at750 []float64
	for _, m := range v.Lanes[0].Marks {
		if m.At == 750 && m.Allowed {
			at750 = append(at750, m.Level)
			if m.NodeLevel > 3 {
				t.Errorf("request %d: node level %v, want at most 3 (node 2's new window)", m.Index+1, m.NodeLevel)
			}
		}
	}
	if fmt.Sprint(at750) != "[6 7 8]" {
		t.Errorf("the admitted marks at 750 ms are at levels %v, want [6 7 8] (the combined count)", at750)
	}
}

// Nothing of the nodes is drawn on one server; while a room's question is
// open their states are hidden and the lane says so; the presentation
// folds them.
func TestNodeStatesHiddenWhereTheyMustBe(t *testing.T) {
	sc := scenario.Scenario{Limit: 5, WindowMs: 1000, Policies: []scenario.PolicySpec{
		{Name: policies.FixedWindow}, {Name: policies.FixedWindow, Deployment: scenario.Deployment{Nodes: 3, SyncMs: 500}},
	}, Requests: []scenario.Request{{At: 0, Cost: 1, Count: 6}}}
	v := viewAt(t, sc, 400)
	if doc := renderDoc(t, FromView(v, v.Lanes[0]), Options{}); doc.Find(`[data-testid="lane-nodes"]`).Length() != 0 {
		t.Error("a lane on one server draws nodes")
	}
	asked := renderDoc(t, FromView(v, v.Lanes[1]), Options{Asked: true, Cut: 400})
	if asked.Find(`[data-testid="lane-node"]`).Length() != 0 || asked.Find(`[data-testid="lane-nodes-hidden"]`).Length() != 1 {
		t.Error("while a question is open, the nodes' states are drawn, or their absence is not said")
	}
	if folded := renderDoc(t, FromView(v, v.Lanes[1]), Options{FoldNodes: true}); folded.Find(`[data-testid="lane-nodes"]`).Is("[open]") {
		t.Error("FoldNodes leaves the nodes open")
	}
}

// A lane's nodes are drawn in the same page as the lane: no id may repeat,
// or the morph of the next frame moves one node's marks onto another's
// (and axe reports the duplicate). Sliding-log draws a look-back with an
// id; fixed-window its marks and the clock's line.
func TestNodeDrawingsHaveTheirOwnIDs(t *testing.T) {
	for _, name := range []string{policies.FixedWindow, policies.SlidingLog} {
		spec := scenario.PolicySpec{Name: name, Deployment: scenario.Deployment{Nodes: 3, SyncMs: 500}}
		sc := scenario.Scenario{Limit: 5, WindowMs: 1000, Policies: []scenario.PolicySpec{spec},
			Requests: []scenario.Request{{At: 0, Cost: 1, Count: 6}, {At: 300, Cost: 1, Count: 1}}}
		v := viewAt(t, sc, 400)
		doc := renderDoc(t, FromView(v, v.Lanes[0]), Options{})
		seen := map[string]int{}
		doc.Find("[id]").Each(func(_ int, s *goquery.Selection) {
			id, _ := s.Attr("id")
			seen[id]++
		})
		if len(seen) < 10 {
			t.Fatalf("%s: only %d ids drawn; the test draws nothing it can check", name, len(seen))
		}
		for id, n := range seen {
			if n > 1 {
				t.Errorf("%s: id %q is used %d times", name, id, n)
			}
		}
	}
}

package cluster

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/windowlab/playground/policies"
)

// propertySeed seeds every property test; failures print it.
const propertySeed = 20261202

// burst is n requests of cost 1 for key 0 at one instant.
func burst(at int64, n int) []Request {
	reqs := make([]Request, n)
	for i := range reqs {
		reqs[i] = Request{At: at, Cost: 1}
	}
	return reqs
}

func mustRun(t *testing.T, cfg Config, reqs []Request) Result {
	t.Helper()
	res, err := Run(cfg, reqs)
	if err != nil {
		t.Fatalf("Run(%+v): %v", cfg, err)
	}
	return res
}

// TestWorkedExample is the package doc's worked example: three nodes each admit five of fifteen
// requests at 0 before the first sync can tell them of the others; one
// store admits five.
func TestWorkedExample(t *testing.T) {
	cfg := Config{Policy: policies.FixedWindow, Params: policies.Params{Limit: 5, WindowMs: 1000}, Nodes: 3, SyncMs: 500}
	res := mustRun(t, cfg, burst(0, 15))
	if res.Admitted != 15 || res.Single != 5 || res.OverAdmission != 10 {
		t.Errorf("3 nodes, syncMs 500: admitted %d, single %d, over %d; want 15, 5, 10", res.Admitted, res.Single, res.OverAdmission)
	}
	// Round-robin: the 15th request is node 2's fifth; it has heard of
	// none of the ten the others admitted.
	last := res.Decisions[14]
	if last.Node != 2 || last.Unheard != 10 || last.UnheardPermits != 10 || !slices.Equal(last.UnheardFrom, []int{0, 1}) {
		t.Errorf("step 14: node %d, unheard %d (%d permits) from %v; want node 2, 10 (10) from [0 1]",
			last.Node, last.Unheard, last.UnheardPermits, last.UnheardFrom)
	}
	if last.LastSync != 0 {
		t.Errorf("step 14: lastSync = %d, want 0", last.LastSync)
	}
	// After the sync at 500 each node knows of all fifteen.
	after := mustRun(t, cfg, append(burst(0, 15), burst(500, 3)...))
	for i, d := range after.Decisions[15:] {
		if d.Policy.Allowed || d.Unheard != 0 || d.Policy.Estimate != policies.Whole(15) {
			t.Errorf("step %d at 500: allowed %v, unheard %d, estimate %v; want refused, 0, 15", 15+i, d.Policy.Allowed, d.Unheard, d.Policy.Estimate)
		}
	}
	cfg.Central = true
	if res := mustRun(t, cfg, burst(0, 15)); res.Admitted != 5 || res.OverAdmission != 0 {
		t.Errorf("central: admitted %d, over %d; want 5, 0", res.Admitted, res.OverAdmission)
	}
}

// TestSkew is the lesson's skew example: fixed windows aligned to the epoch
// on two nodes whose clocks differ by 300 ms. Syncing every 10 ms keeps
// aligned clocks within a few requests of one server; the node 300 ms ahead
// opens its next window 300 ms early and counts none of the other's
// requests from the window the other is still in, so each window lets
// through about a limit more.
func TestSkew(t *testing.T) {
	var reqs []Request
	for at := int64(0); at < 3000; at += 10 {
		reqs = append(reqs, Request{At: at, Cost: 1})
	}
	cfg := Config{Policy: policies.FixedWindow, Params: policies.Params{Limit: 10, WindowMs: 1000}, Nodes: 2, SyncMs: 10}
	aligned := mustRun(t, cfg, reqs)
	cfg.SkewMs = []int64{0, 300}
	skewed := mustRun(t, cfg, reqs)
	if aligned.OverAdmission > 3 {
		t.Errorf("aligned clocks: over-admission %d, want at most 3 (one request each per sync)", aligned.OverAdmission)
	}
	if skewed.OverAdmission < 2*cfg.Params.Limit {
		t.Errorf("clocks 300 ms apart: over-admission %d, want at least %d (a limit in each of the two later windows)",
			skewed.OverAdmission, 2*cfg.Params.Limit)
	}
}

func TestNewErrors(t *testing.T) {
	p := policies.Params{Limit: 5, WindowMs: 1000}
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{Policy: policies.FixedWindow, Params: p, Nodes: 17}, "nodes 17 is out of range [1, 16]"},
		{Config{Policy: policies.FixedWindow, Params: p, Nodes: -1}, "nodes -1"},
		{Config{Policy: policies.FixedWindow, Params: p, Route: "nearest"}, `route "nearest"`},
		{Config{Policy: policies.FixedWindow, Params: p, SyncMs: -5}, "syncMs -5"},
		{Config{Policy: policies.FixedWindow, Params: p, Nodes: 2, SkewMs: []int64{0, 1, 2}}, "skewMs has 3 entries for 2 nodes"},
		{Config{Policy: policies.FixedWindow, Params: p, Nodes: 2, SkewMs: []int64{0, 1 << 41}}, "skewMs[1]"},
		{Config{Policy: "leaky", Params: p}, `unknown policy "leaky"`},
		{Config{Policy: policies.FixedWindow, Params: policies.Params{Limit: 0, WindowMs: 1}}, "limit 0"},
	}
	for i, tt := range tests {
		_, err := New(tt.cfg)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("case %d: New(%+v) = %v, want an error containing %q", i, tt.cfg, err, tt.want)
		}
	}
}

func TestRoutes(t *testing.T) {
	p := policies.Params{Limit: 1000, WindowMs: 1000}
	var reqs []Request
	for i := range 200 {
		reqs = append(reqs, Request{Key: policies.Key(i % 7), At: int64(i), Cost: 1})
	}
	byKey := mustRun(t, Config{Policy: policies.GCRA, Params: p, Nodes: 4, Route: ByKey}, reqs)
	nodeOf := map[policies.Key]int{}
	for i, d := range byKey.Decisions {
		if n, ok := nodeOf[reqs[i].Key]; ok && n != d.Node {
			t.Fatalf("step %d: key %d on node %d, earlier on node %d", i, reqs[i].Key, d.Node, n)
		}
		nodeOf[reqs[i].Key] = d.Node
	}
	nodesOf := func(res Result) []int {
		var ns []int
		for _, d := range res.Decisions {
			ns = append(ns, d.Node)
		}
		return ns
	}
	cfg := Config{Policy: policies.GCRA, Params: p, Nodes: 4, Route: Random, Seed: 7}
	a, b := nodesOf(mustRun(t, cfg, reqs)), nodesOf(mustRun(t, cfg, reqs))
	if !slices.Equal(a, b) {
		t.Errorf("random route, seed 7: two runs chose different nodes")
	}
	cfg.Seed = 8
	if slices.Equal(a, nodesOf(mustRun(t, cfg, reqs))) {
		t.Errorf("random route: seeds 7 and 8 chose the same %d nodes", len(a))
	}
	seen := map[int]int{}
	for _, n := range a {
		seen[n]++
	}
	if len(seen) != 4 {
		t.Errorf("random route: nodes used %v, want all 4", seen)
	}
	rr := nodesOf(mustRun(t, Config{Policy: policies.GCRA, Params: p, Nodes: 3}, reqs[:6]))
	if !slices.Equal(rr, []int{0, 1, 2, 0, 1, 2}) {
		t.Errorf("round-robin: nodes %v, want [0 1 2 0 1 2]", rr)
	}
}

// randomParams picks small parameters, so that windows, buckets and syncs
// cross often.
func randomParams(r *rand.Rand, name string) policies.Params {
	p := policies.Params{Limit: 1 + r.Int64N(8), WindowMs: 10 + r.Int64N(200)}
	switch name {
	case policies.SlidingCounter:
		p.Arithmetic = []policies.Arithmetic{policies.Floor, policies.Exact}[r.IntN(2)]
	case policies.SlidingBuckets:
		p.Buckets = 1 + r.Int64N(5)
		p.WindowMs = p.Buckets * (5 + r.Int64N(40))
	case policies.TokenBucket, policies.GCRA:
		p.Burst = r.Int64N(10)
	case policies.LeakyBucket:
		p.Burst = r.Int64N(10)
		if p.Burst > 0 {
			p.Delay = r.Int64N(p.Burst + 1)
		}
	case policies.ExpHistogram:
		p.Buckets = 2 + r.Int64N(5)
	}
	// Any other policy's options take their defaults, as a scenario's do:
	// New itself fills in none.
	in, _ := policies.Lookup(name)
	for _, o := range in.Options {
		o.Resolve(&p)
	}
	return p
}

// traffic is n requests in time order for up to three keys: bursts at one
// instant, short and long gaps, costs mostly 1 and sometimes up to the
// limit (or one above it, which nobody admits).
func traffic(r *rand.Rand, p policies.Params, n int, unitCost bool) []Request {
	var reqs []Request
	at := r.Int64N(p.WindowMs)
	for range n {
		switch r.IntN(4) {
		case 1:
			at += r.Int64N(p.WindowMs/8 + 1)
		case 2:
			at += r.Int64N(p.WindowMs/2 + 1)
		case 3:
			at += r.Int64N(2*p.WindowMs + 1)
		}
		cost := int64(1)
		if !unitCost && r.IntN(4) == 0 {
			cost = 1 + r.Int64N(p.Limit+1)
		}
		reqs = append(reqs, Request{Key: policies.Key(r.IntN(3)), At: at, Cost: cost})
	}
	return reqs
}

// randomConfig is a cluster of up to 8 nodes, any route, syncing never or
// every 1 ms to two windows.
func randomConfig(r *rand.Rand, name string, p policies.Params) Config {
	cfg := Config{Policy: name, Params: p, Nodes: 1 + r.IntN(8), Seed: r.Uint64(),
		Route: []Route{RoundRobin, Random, ByKey}[r.IntN(3)]}
	if r.IntN(4) != 0 {
		cfg.SyncMs = 1 + r.Int64N(2*p.WindowMs)
	}
	return cfg
}

// TestPropertySingleNode: one node, and a central store whatever the nodes,
// routes, syncs and skews, decide every request exactly as one policy does.
func TestPropertySingleNode(t *testing.T) {
	r := rand.New(rand.NewPCG(propertySeed, 1))
	for _, name := range policies.Names {
		for scenario := range 60 {
			p := randomParams(r, name)
			reqs := traffic(r, p, 80, false)
			one := randomConfig(r, name, p)
			one.Nodes = 1
			central := randomConfig(r, name, p)
			central.Central = true
			for range central.Nodes {
				central.SkewMs = append(central.SkewMs, r.Int64N(2*p.WindowMs)-p.WindowMs)
			}
			for _, cfg := range []Config{one, central} {
				res := mustRun(t, cfg, reqs)
				ref, _ := policies.New(name, p)
				for i, q := range reqs {
					want := ref.Decide(q.Key, q.At, q.Cost)
					if got := res.Decisions[i]; got.Policy != want || got.Single != want.Allowed || got.Unheard != 0 {
						t.Fatalf("seed %d: %s scenario %d %+v step %d: decision %+v (unheard %d), want %+v",
							propertySeed, name, scenario, cfg, i, got.Policy, got.Unheard, want)
					}
				}
				if res.OverAdmission != 0 {
					t.Fatalf("seed %d: %s scenario %d %+v: over-admission %d, want 0", propertySeed, name, scenario, cfg, res.OverAdmission)
				}
			}
		}
	}
}

// inWindow reports whether an admission at b weighs in the window of a
// decision at a (a >= b) in the bound's sense: the same aligned window
// (fixed-window; sliding-counter's current), the sliding window
// (a-windowMs, a] (sliding-log), the k buckets counted in full
// (sliding-buckets).
func inWindow(name string, p policies.Params, a, b int64) bool {
	switch name {
	case policies.SlidingLog, policies.ExpHistogram:
		return b > a-p.WindowMs
	case policies.SlidingBuckets:
		w := p.WindowMs / p.Buckets
		return b/w > a/w-p.Buckets
	}
	return a/p.WindowMs == b/p.WindowMs
}

// checkBound checks, at every admission a (of node i at t), the bound of
// package doc: with U the permits of the same key that other nodes admitted
// since the last sync (all of them when the nodes never sync), the permits
// admitted across all nodes
//   - window policies: in a's window, a included, are at most limit + U in it
//     (the exponential histogram: limit·k/(k−1) + U, its doc's bound);
//   - token-bucket, gcra: in [x, t], for every earlier admission at x, are
//     at most burst + limit·(t-x)/windowMs + U in [x, t);
//
// and, when the nodes never sync, at most N × limit (N × (burst +
// limit·(t-x)/windowMs)). The bound is computed from the requests and the
// outcomes only, not from what the cluster says it knew.
func checkBound(t *testing.T, where string, cfg Config, reqs []Request, res Result) {
	t.Helper()
	p, _ := policies.New(cfg.Policy, cfg.Params) // normalised: Burst 0 is Limit
	pp := p.Params()
	n := int64(cfg.Nodes)
	bucket := cfg.Policy == policies.TokenBucket || cfg.Policy == policies.GCRA || cfg.Policy == policies.LeakyBucket
	// A bucket's capacity: its burst, or for the leaky bucket the burst
	// queued behind the one request being served.
	burst := pp.Burst
	if cfg.Policy == policies.LeakyBucket {
		burst++
	}
	for ia, da := range res.Decisions {
		if !da.Policy.Allowed {
			continue
		}
		ta, key := reqs[ia].At, reqs[ia].Key
		lastSync := int64(-1) << 62
		if cfg.SyncMs > 0 {
			lastSync = ta - ta%cfg.SyncMs
		}
		// admitted reports the permits admitted for key in the decisions
		// before ia (and ia itself), among those in, and of those the
		// other nodes' since the last sync.
		admitted := func(in func(tb int64) bool) (all, unheard int64) {
			for ib := 0; ib <= ia; ib++ {
				db, qb := res.Decisions[ib], reqs[ib]
				if !db.Policy.Allowed || qb.Key != key || !in(qb.At) {
					continue
				}
				all += qb.Cost
				if ib < ia && db.Node != da.Node && qb.At >= lastSync {
					unheard += qb.Cost
				}
			}
			return all, unheard
		}
		at := fmt.Sprintf("%s: step %d (node %d at %d)", where, ia, da.Node, ta)
		if _, u := admitted(func(tb int64) bool { return tb > ta-pp.WindowMs }); da.UnheardPermits != u {
			t.Fatalf("%s: reports %d permits unheard, want %d (the others' since the last sync, within a window)", at, da.UnheardPermits, u)
		}
		if !bucket {
			// One node's own bound: the limit, or for the exponential
			// histogram, whose estimate may fall short of the true count by
			// a k-th of it, limit·k/(k−1) (its doc).
			most := pp.Limit
			if cfg.Policy == policies.ExpHistogram {
				most = pp.Limit * pp.Buckets / (pp.Buckets - 1)
			}
			all, u := admitted(func(tb int64) bool { return inWindow(cfg.Policy, pp, ta, tb) })
			if all > most+u {
				t.Fatalf("%s: %d permits admitted in the window, over %d + %d unheard", at, all, most, u)
			}
			if cfg.SyncMs == 0 && all > n*most {
				t.Fatalf("%s: %d permits admitted in the window, over %d nodes × %d", at, all, n, most)
			}
			continue
		}
		for ix := 0; ix <= ia; ix++ {
			tx := reqs[ix].At
			if !res.Decisions[ix].Policy.Allowed || reqs[ix].Key != key {
				continue
			}
			all, u := admitted(func(tb int64) bool { return tb >= tx })
			refill := pp.Limit * (ta - tx)
			if all*pp.WindowMs > burst*pp.WindowMs+refill+u*pp.WindowMs {
				t.Fatalf("%s: %d permits admitted in [%d, %d], over burst %d + refill %d/%d + %d unheard",
					at, all, tx, ta, burst, refill, pp.WindowMs, u)
			}
			if cfg.SyncMs == 0 && all*pp.WindowMs > n*(burst*pp.WindowMs+refill) {
				t.Fatalf("%s: %d permits admitted in [%d, %d], over %d nodes × (burst %d + refill %d/%d)",
					at, all, tx, ta, n, burst, refill, pp.WindowMs)
			}
		}
	}
}

// TestPropertyBounds holds every policy, over random scenarios with
// aligned clocks, to the bounds of the package documentation, purely local
// and with syncs.
func TestPropertyBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(propertySeed, 2))
	for _, name := range policies.Names {
		over := int64(0)
		for scenario := range 120 {
			p := randomParams(r, name)
			reqs := traffic(r, p, 70, false)
			cfg := randomConfig(r, name, p)
			res := mustRun(t, cfg, reqs)
			checkBound(t, fmt.Sprintf("seed %d: %s scenario %d %+v", propertySeed, name, scenario, cfg), cfg, reqs, res)
			over += res.OverAdmission
		}
		// The bound must have something to bound: the scenarios do
		// over-admit.
		if over <= 0 {
			t.Errorf("%s: total over-admission %d over the scenarios, want some", name, over)
		}
	}
}

// TestPropertySkewedNodeKeepsItsLimit: whatever the skews and syncs, each
// fixed-window node admits at most limit permits of a key in each window of
// its own clock; that, not a bound on the whole, is what holds once clocks
// differ (a real window meets two windows of a skewed node).
func TestPropertySkewedNodeKeepsItsLimit(t *testing.T) {
	r := rand.New(rand.NewPCG(propertySeed, 3))
	for scenario := range 150 {
		p := randomParams(r, policies.FixedWindow)
		reqs := traffic(r, p, 80, false)
		cfg := randomConfig(r, policies.FixedWindow, p)
		for range cfg.Nodes {
			cfg.SkewMs = append(cfg.SkewMs, r.Int64N(2*p.WindowMs)-p.WindowMs)
		}
		res := mustRun(t, cfg, reqs)
		type slot struct {
			node   int
			key    policies.Key
			window int64
		}
		own := map[slot]int64{}
		for i, d := range res.Decisions {
			if !d.Policy.Allowed {
				continue
			}
			s := slot{d.Node, reqs[i].Key, max(d.Local, 0) / p.WindowMs}
			if own[s] += reqs[i].Cost; own[s] > p.Limit {
				t.Fatalf("seed %d: scenario %d %+v step %d: node %d admitted %d in its window %d, over limit %d",
					propertySeed, scenario, cfg, i, d.Node, own[s], s.window, p.Limit)
			}
		}
	}
}

// TestSkewedReports follows two reports across clocks 300 ms apart: node 1's
// admission at 750 real is stamped 1050, in a window node 0 has not reached,
// so node 0 holds it (and says it had not heard of it) until its clock
// passes 1050; node 0's admission stamped 750 reaches node 1 in a window it
// has left, and counts for nothing there.
func TestSkewedReports(t *testing.T) {
	c, err := New(Config{Policy: policies.FixedWindow, Params: policies.Params{Limit: 5, WindowMs: 1000},
		Nodes: 2, SyncMs: 100, SkewMs: []int64{0, 300}})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		at      int64
		node    int
		local   int64
		unheard int
	}{
		{at: 750, node: 0, local: 750},
		{at: 750, node: 1, local: 1050, unheard: 1},
		{at: 900, node: 0, local: 900, unheard: 1}, // the sync at 800 delivered 1050; node 0 is at 900
	} {
		d := c.Decide(0, want.at, 1)
		if !d.Policy.Allowed || d.Node != want.node || d.Local != want.local || d.Unheard != want.unheard {
			t.Errorf("step %d: allowed %v, node %d, local %d, unheard %d; want true, %d, %d, %d",
				i, d.Policy.Allowed, d.Node, d.Local, d.Unheard, want.node, want.local, want.unheard)
		}
	}
	if got := fixedWindowHeld(t, c.Snapshot(0, 0, 1000)); got.Count != 0 {
		t.Errorf("node 0 at 1000: count %d, want 0 (1050 is still ahead of it)", got.Count)
	}
	if got := fixedWindowHeld(t, c.Snapshot(0, 0, 1100)); got.Count != 1 || got.WindowStart != 1000 {
		t.Errorf("node 0 at 1100: window %d count %d, want window 1000 count 1 (node 1's report)", got.WindowStart, got.Count)
	}
	if got := fixedWindowHeld(t, c.Snapshot(1, 0, 1100)); got.Count != 1 || got.WindowStart != 1000 {
		t.Errorf("node 1 at 1100 (local 1400): window %d count %d, want window 1000 count 1 (its own; node 0's fell in window 0)",
			got.WindowStart, got.Count)
	}
}

// TestPropertyRouteByKey: routed by key with aligned clocks, a key's
// requests all reach one node, which decides them exactly as one server
// would, whatever the syncs (the others never admit that key).
func TestPropertyRouteByKey(t *testing.T) {
	r := rand.New(rand.NewPCG(propertySeed, 5))
	for _, name := range policies.Names {
		for scenario := range 40 {
			p := randomParams(r, name)
			reqs := traffic(r, p, 80, false)
			cfg := randomConfig(r, name, p)
			cfg.Route = ByKey
			res := mustRun(t, cfg, reqs)
			for i, d := range res.Decisions {
				if d.Policy.Allowed != d.Single || d.Unheard != 0 {
					t.Fatalf("seed %d: %s scenario %d %+v step %d: allowed %v, single %v, unheard %d; want equal and 0",
						propertySeed, name, scenario, cfg, i, d.Policy.Allowed, d.Single, d.Unheard)
				}
			}
		}
	}
}

// fixedWindowHeld is the window and count a fixed-window node holds.
func fixedWindowHeld(t *testing.T, st policies.State) policies.FixedWindowHeld {
	t.Helper()
	h, ok := st.Held.(policies.FixedWindowHeld)
	if !ok {
		t.Fatalf("the state holds %T, want policies.FixedWindowHeld", st.Held)
	}
	return h
}

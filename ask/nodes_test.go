package ask

import (
	"fmt"
	"testing"

	"github.com/windowlab/playground/cluster"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// The worked example, checked by hand: fifteen requests at 0 on
// three servers that sync every 500 ms, limit 5 per second. Each server
// admits its five before the first sync, so all 15 get through; with a
// central store the three ask one state, and 5 do.
func TestCountAcrossThreeServersByHand(t *testing.T) {
	sc := scenario.Scenario{Limit: 5, WindowMs: 1000}
	for _, c := range []struct {
		central bool
		want    int64
	}{{false, 15}, {true, 5}} {
		spec := scenario.PolicySpec{Name: policies.FixedWindow, Deployment: scenario.Deployment{Nodes: 3, SyncMs: 500, Central: c.central}}
		sol, err := Solve(Question{Kind: "count", Scenario: sc, Lanes: []Lane{{Spec: spec}},
			Request: &scenario.Request{At: 0, Count: 15}, MaxN: 15})
		if err != nil {
			t.Fatal(err)
		}
		if sol.Truth[0] != c.want || sol.Count != int(c.want) {
			t.Errorf("central %v: %d of the 15 get through (count %d), want %d", c.central, sol.Truth[0], sol.Count, c.want)
		}
	}
}

// clusterOf is spec's deployment as package cluster takes it, written out
// here rather than taken from package scenario, so that the expected
// answers below do not lean on the code they check.
func clusterOf(sc scenario.Scenario, spec scenario.PolicySpec) cluster.Config {
	return cluster.Config{Policy: spec.Name, Params: spec.Params(sc), Nodes: max(spec.Nodes, 1), Route: cluster.Route(spec.Route),
		Seed: spec.Seed, SyncMs: spec.SyncMs, Central: spec.Central, SkewMs: spec.SkewMs.Ms()}
}

// clusterRequests expands scenario requests as the cluster takes them.
func clusterRequests(rs []scenario.Request) []cluster.Request {
	var out []cluster.Request
	for _, r := range rs {
		for range max(r.Count, 1) {
			out = append(out, cluster.Request{Key: scenario.KeyOf(r.KeyName()), At: r.At, Cost: max(r.Cost, 1)})
		}
	}
	return out
}

// clusterDecisions runs the scenario's requests before asked.At, then the
// asked ones, on spec's servers, and returns the asked ones' decisions.
func clusterDecisions(t *testing.T, sc scenario.Scenario, spec scenario.PolicySpec, asked scenario.Request) []cluster.Decision {
	t.Helper()
	var before []scenario.Request
	for _, r := range sc.Requests {
		if r.At < asked.At {
			before = append(before, r)
		}
	}
	reqs := clusterRequests(append(before, asked))
	res, err := cluster.Run(clusterOf(sc, spec), reqs)
	if err != nil {
		t.Fatal(err)
	}
	return res.Decisions[len(res.Decisions)-int(max(asked.Count, 1)):]
}

// nodesScenario: a limit of 5 per second, six requests at 0 and three more
// at 0.7 s, from one client.
func nodesScenario() scenario.Scenario {
	return scenario.Scenario{Limit: 5, WindowMs: 1000, Requests: []scenario.Request{
		{At: 0, Key: "api", Cost: 1, Count: 6}, {At: 700, Key: "api", Cost: 1, Count: 3},
	}}
}

// nodesLanes are lanes on several servers in every way a scenario can
// deploy them, beside one server.
func nodesLanes(t *testing.T) []Lane {
	t.Helper()
	skew, _ := scenario.SkewsOf(0, 300)
	var out []Lane
	for _, spec := range []scenario.PolicySpec{
		{Name: policies.FixedWindow},
		{Name: policies.FixedWindow, Deployment: scenario.Deployment{Nodes: 3, SyncMs: 500}},
		{Name: policies.FixedWindow, Deployment: scenario.Deployment{Nodes: 3}},
		{Name: policies.FixedWindow, Deployment: scenario.Deployment{Nodes: 3, SyncMs: 500, Central: true}},
		{Name: policies.FixedWindow, Deployment: scenario.Deployment{Nodes: 2, SyncMs: 500, SkewMs: skew}},
		{Name: policies.SlidingLog, Deployment: scenario.Deployment{Nodes: 4, SyncMs: 250}},
		{Name: policies.TokenBucket, Deployment: scenario.Deployment{Nodes: 3, SyncMs: 100, Route: "random", Seed: 7}},
		{Name: policies.GCRA, Deployment: scenario.Deployment{Nodes: 2, Route: "key"}},
		{Name: policies.SlidingCounter, Arithmetic: policies.Exact, Deployment: scenario.Deployment{Nodes: 3, SyncMs: 400}},
	} {
		if err := (scenario.Scenario{Limit: 5, WindowMs: 1000, Policies: []scenario.PolicySpec{spec}}).Validate(); err != nil {
			t.Fatalf("%s: %v", spec.Label(nodesScenario()), err)
		}
		out = append(out, Lane{Spec: spec})
	}
	return out
}

// A room's questions about lanes on several servers are answered as the
// servers decide: each expected answer is computed here by running the
// requests on package cluster's servers directly, not typed.
func TestQuestionsAcrossServersAsTheServersDecide(t *testing.T) {
	sc := nodesScenario()
	ls := nodesLanes(t)
	differs := false // some lane's answer is not one server's
	for _, c := range []struct {
		at, n int64
	}{{0, 10}, {700, 10}, {800, 5}, {1200, 10}, {1600, 3}} {
		asked := scenario.Request{At: c.at, Key: "api", Cost: 1, Count: c.n}
		name := fmt.Sprintf("%d at %s", c.n, scenario.FormatMs(c.at))
		count, err := Solve(Question{Kind: "count", Scenario: sc, Lanes: ls, Request: &asked, MaxN: 10})
		if err != nil {
			t.Fatalf("%s: count: %v", name, err)
		}
		one := asked
		one.Count = 1
		admit, err := Solve(Question{Kind: "admit", Scenario: sc, Lanes: ls, Request: &one})
		if err != nil {
			t.Fatalf("%s: admit: %v", name, err)
		}
		for i, l := range ls {
			ds := clusterDecisions(t, sc, l.Spec, asked)
			var want, single int64
			for _, d := range ds {
				if d.Policy.Allowed {
					want++
				}
				if d.Single {
					single++
				}
			}
			if count.Truth[i] != want {
				t.Errorf("%s, %s: count %d get through, want %d (as the servers decide)", name, l.Spec.Label(sc), count.Truth[i], want)
			}
			differs = differs || want != single
			first := clusterDecisions(t, sc, l.Spec, one)[0].Policy.Allowed
			if admit.Truth[i] != admitted(first) {
				t.Errorf("%s, %s: admit = %d, want %d", name, l.Spec.Label(sc), admit.Truth[i], admitted(first))
			}
		}
	}
	if !differs {
		t.Error("every lane answered as one server would: the table does not test the deployment")
	}
}

// First-admit on several servers: the first instant at which the servers
// admit the client's request, found here by trying every millisecond of
// the horizon on package cluster's servers.
func TestFirstAdmitAcrossServers(t *testing.T) {
	sc := nodesScenario()
	ls := nodesLanes(t)
	r := scenario.Request{At: 700, Key: "api", Cost: 1}
	sol, err := Solve(Question{Kind: "first-admit", Scenario: sc, Lanes: ls, Request: &r, NeverAnswers: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range ls {
		want := Never
		for at := r.At; at <= r.At+HorizonWindows*sc.WindowMs; at++ {
			try := r
			try.At = at
			if clusterDecisions(t, sc, l.Spec, try)[0].Policy.Allowed {
				want = at
				break
			}
		}
		if sol.Truth[i] != want {
			t.Errorf("%s: first admitted at %d ms, want %d ms", l.Spec.Label(sc), sol.Truth[i], want)
		}
	}
}

// A stack of lanes feeds each lane only what the lanes before it
// admitted; a lane on several servers in it decides on its servers. The
// expected count chains package cluster's servers by hand.
func TestStackAcrossServers(t *testing.T) {
	sc := scenario.Scenario{Limit: 5, WindowMs: 1000, Requests: []scenario.Request{
		{At: 0, Cost: 1, Count: 15}, {At: 600, Cost: 1, Count: 9}, {At: 1200, Cost: 1, Count: 9},
	}}
	for _, first := range []scenario.Deployment{{Nodes: 3}, {Nodes: 3, SyncMs: 500}, {Nodes: 3, Central: true}} {
		s := sc
		s.Policies = []scenario.PolicySpec{
			{Name: policies.FixedWindow, Deployment: first},
			{Name: policies.SlidingLog, Limit: 12, WindowMs: 2000, Deployment: scenario.Deployment{Nodes: 2}},
		}
		sol, err := Solve(Question{Kind: "stack", Scenario: s})
		if err != nil {
			t.Fatal(err)
		}
		var chain []*cluster.Cluster
		for _, spec := range s.Policies {
			c, err := cluster.New(clusterOf(s, spec))
			if err != nil {
				t.Fatal(err)
			}
			chain = append(chain, c)
		}
		want := 0
		for _, q := range clusterRequests(s.Requests) {
			passed := true
			for _, c := range chain {
				if !c.Decide(q.Key, q.At, q.Cost).Policy.Allowed {
					passed = false
					break
				}
			}
			if passed {
				want++
			}
		}
		if sol.Count != want {
			t.Errorf("stack with %s first: %d pass, want %d", s.Policies[0].Label(s), sol.Count, want)
		}
		if first.Nodes == 3 && !first.Central && sol.Count <= 5+5 {
			// One server would pass 5 in each of the two windows.
			t.Errorf("stack with %s first: %d pass, no more than one server's 10", s.Policies[0].Label(s), sol.Count)
		}
	}
}

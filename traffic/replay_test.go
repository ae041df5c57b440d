package traffic

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// randomLog writes n CSV lines from a few clients, bursty, a tenth of them
// earlier than the line before, with costs from 1 to 3.
func randomLog(rng *rand.Rand, n, clients int) []byte {
	var b bytes.Buffer
	at := t0
	for range n {
		switch rng.IntN(10) {
		case 0:
			at -= rng.Int64N(3000) // out of order
		case 1, 2:
			// a burst: same instant
		default:
			at += rng.Int64N(800)
		}
		fmt.Fprintf(&b, "%d,c%d,%d\n", at, rng.IntN(clients), 1+rng.IntN(3))
	}
	return b.Bytes()
}

// The admitted count of every client under every policy is what that
// client's requests alone, in log order, get from a fresh policy: a policy
// keyed per client keeps clients apart, and the chunked, parallel replay
// changes nothing.
func TestReplayPerClientMatchesEachClientAlone(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := range 12 {
		log := randomLog(rng, 300+rng.IntN(ChunkRequests/8), 1+rng.IntN(30))
		set := Settings{Limit: 1 + rng.Int64N(12), WindowMs: 600 * (1 + rng.Int64N(10))}
		for _, name := range policies.Names {
			spec, err := scenario.ParsePolicyRef(name)
			if err != nil {
				t.Fatal(err)
			}
			set.Policies = append(set.Policies, spec)
		}
		rep, err := Replay(context.Background(), Source{Name: "random", R: bytes.NewReader(log)}, Options{Format: CSV}, set, ReplayOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_, reqs, clients := readAll(t, log, Options{Format: CSV})
		for i, spec := range set.Policies {
			p := rep.Policies[i]
			if len(p.Clients) != clients.Len() {
				t.Fatalf("trial %d, %s: %d clients reported, want %d", trial, spec.Name, len(p.Clients), clients.Len())
			}
			for _, c := range p.Clients {
				id, _ := clients.ID(c.Key)
				pol, err := policies.New(spec.Name, spec.Params(set.scenario()))
				if err != nil {
					t.Fatal(err)
				}
				var admitted, refused int64
				for _, r := range reqs {
					if r.Client != id {
						continue
					}
					if pol.Decide(1, r.At, int64(r.Cost)).Allowed {
						admitted++
					} else {
						refused++
					}
				}
				if c.Admitted != admitted || c.Refused != refused {
					t.Errorf("trial %d, %s, client %s: admitted %d refused %d, alone %d and %d", trial, spec.Name, c.Key, c.Admitted, c.Refused, admitted, refused)
				}
			}
		}
	}
}

// --fit's search finds the limit trying every limit in turn finds.
func TestFitFindsWhatTryingEveryLimitFinds(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	for trial := range 6 {
		log := randomLog(rng, 400, 2+rng.IntN(20))
		set := Settings{Limit: 1, WindowMs: 600 * (1 + rng.Int64N(5))}
		for _, name := range policies.Names {
			spec, _ := scenario.ParsePolicyRef(name)
			set.Policies = append(set.Policies, spec)
		}
		tr, err := Load(Source{Name: "random", R: bytes.NewReader(log)}, Options{Format: CSV, WindowMs: set.WindowMs}, 0)
		if err != nil {
			t.Fatal(err)
		}
		var every []int64
		for l := int64(1); l <= 120; l++ {
			every = append(every, l)
		}
		sweep, err := SweepTrace(context.Background(), tr, set, every)
		if err != nil {
			t.Fatal(err)
		}
		for _, target := range []Target{{Clients: true, Share: 0}, {Clients: true, Share: 0.2}, {Share: 0.05}} {
			fit, err := FitTrace(context.Background(), tr, set, target)
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range sweep.Policies {
				want := int64(0)
				for _, p := range c.Points {
					if target.met(p) {
						want = p.Limit
						break
					}
				}
				got := fit.Policies[i].Limit
				if want == 0 {
					// sliding-buckets refuses a late request whose bucket no
					// longer counts in full at any limit: then no limit may do.
					if got != 0 && got <= 120 {
						t.Errorf("trial %d, %s, %s: fit = %d, but no limit up to 120 meets it", trial, c.Name, target, got)
					}
					continue
				}
				if got != want {
					t.Errorf("trial %d, %s, %s: fit = %d, trying every limit = %d", trial, c.Name, target, got, want)
				}
			}
		}
	}
}

// A sweep's point at a limit is what a replay at that limit reports, for
// every policy (a sweep decides through the policies' verdict path, a
// replay through their full decisions), on one server and on several.
func TestSweepPointIsAReplay(t *testing.T) {
	log := randomLog(rand.New(rand.NewPCG(5, 5)), 2000, 15)
	set := Settings{Limit: 4, WindowMs: 2400}
	for _, n := range policies.Names {
		set.Policies = append(set.Policies, scenario.PolicySpec{Name: n})
	}
	set.Policies = append(set.Policies, scenario.PolicySpec{Name: policies.SlidingLog, Deployment: scenario.Deployment{Nodes: 3, SyncMs: 500}})
	sw, err := Sweep(context.Background(), Source{Name: "s", R: bytes.NewReader(log)}, Options{Format: CSV}, set, []int64{2, 4, 8})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Replay(context.Background(), Source{Name: "s", R: bytes.NewReader(log)}, Options{Format: CSV}, set, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range sw.Policies {
		p := c.Points[1]
		if p.Limit != 4 || p.Refused != rep.Policies[i].Refused || p.ClientsRefused != rep.Policies[i].ClientsRefused {
			t.Errorf("%s: sweep at 4 = %+v, replay refused %d (%d clients)", c.Name, p, rep.Policies[i].Refused, rep.Policies[i].ClientsRefused)
		}
		if !(c.Points[0].Refused >= c.Points[1].Refused && c.Points[1].Refused >= c.Points[2].Refused) {
			t.Errorf("%s: refusals %d, %d, %d do not fall as the limit rises", c.Name, c.Points[0].Refused, c.Points[1].Refused, c.Points[2].Refused)
		}
	}
}

// A client's slice as a scenario is valid and, run by simulate's code,
// admits what the log's replay admitted for that client.
func TestClientScenarioDecidesAsTheLog(t *testing.T) {
	log := randomLog(rand.New(rand.NewPCG(9, 1)), 1500, 6)
	// Sorted: a scenario's times never go backwards.
	set := Settings{Limit: 3, WindowMs: 6000, Policies: []scenario.PolicySpec{{Name: policies.FixedWindow}, {Name: policies.SlidingBuckets}}}
	var sorted bytes.Buffer
	_, reqs, clients := readAll(t, log, Options{Format: CSV})
	for _, r := range sortedByTime(reqs) {
		fmt.Fprintf(&sorted, "%d,%s,%d\n", r.At, clients.Name(r.Client), r.Cost)
	}
	rep, err := Replay(context.Background(), Source{Name: "s", R: bytes.NewReader(sorted.Bytes())}, Options{Format: CSV}, set, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	capture, _, err := CaptureClient(Source{Name: "s", R: bytes.NewReader(sorted.Bytes())}, Options{Format: CSV, WindowMs: set.WindowMs}, "c2")
	if err != nil {
		t.Fatal(err)
	}
	s, err := ClientScenario(set, "c2", capture.Requests)
	if err != nil {
		t.Fatal(err)
	}
	if s.Requests[0].At >= 6000 {
		t.Errorf("first request at %d, want it moved to within a window of 0", s.Requests[0].At)
	}
	res, err := scenario.Run(s)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range rep.Policies {
		for _, c := range p.Clients {
			if c.Key == "c2" && int64(res.Results[i].Admitted) != c.Admitted {
				t.Errorf("%s: the scenario admits %d, the log's replay %d", p.Name, res.Results[i].Admitted, c.Admitted)
			}
		}
	}
}

func sortedByTime(reqs []Request) []Request {
	out := append([]Request(nil), reqs...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].At < out[j-1].At; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// Outcomes' bits agree with the per-client counts of a replay.
func TestOutcomesAgreeWithTheReplay(t *testing.T) {
	log := randomLog(rand.New(rand.NewPCG(2, 2)), 3*ChunkRequests/2, 9)
	set := Settings{Limit: 5, WindowMs: 6000}
	tr, err := Load(Source{Name: "o", R: bytes.NewReader(log)}, Options{Format: CSV, WindowMs: set.WindowMs}, 0)
	if err != nil {
		t.Fatal(err)
	}
	bits, err := Outcomes(context.Background(), tr, set)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := ReplayTrace(context.Background(), tr, set, 0)
	if err != nil {
		t.Fatal(err)
	}
	for p, pr := range rep.Policies {
		admitted := map[uint32]int64{}
		i := 0
		for _, c := range tr.Chunks {
			for _, r := range c {
				if Admitted(bits[p], i) {
					admitted[r.Client]++
				}
				i++
			}
		}
		for _, c := range pr.Clients {
			id, _ := tr.Clients.ID(c.Key)
			if admitted[id] != c.Admitted {
				t.Errorf("%s, client %s: %d admitted bits, %d in the report", pr.Name, c.Key, admitted[id], c.Admitted)
			}
		}
	}
}

package policies

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"
)

// propertySeed seeds every property test; failures print it so a run can be
// reproduced by setting it here.
const propertySeed = 20260101

// cloneOf is an independent deep copy of p, so a test can try a request
// without changing p.
func cloneOf(t *testing.T, p Policy) Policy {
	t.Helper()
	c, ok := Clone(p)
	if !ok {
		t.Fatalf("%s has no clone", p.Name())
	}
	return c
}

type request struct {
	key      Key
	at, cost int64
}

// traffic generates n requests for p: a few keys, bursts at one instant,
// gaps of up to two windows and, when late is set, one request in eight
// earlier than the latest (by up to a window and a half). Costs run from 1 to
// limit+1, so some are never admissible.
func traffic(r *rand.Rand, p Params, n int, late bool) []request {
	var reqs []request
	now := r.Int64N(3 * p.WindowMs)
	for range n {
		switch r.IntN(4) {
		case 0: // same instant
		case 1:
			now += r.Int64N(p.WindowMs/4 + 1)
		case 2:
			now += r.Int64N(p.WindowMs + 1)
		case 3:
			now += r.Int64N(2*p.WindowMs + 1)
		}
		at := now
		if late && r.IntN(8) == 0 {
			at = max(0, now-r.Int64N(p.WindowMs*3/2+1))
		}
		cost := int64(1)
		if r.IntN(3) == 0 {
			cost = 1 + r.Int64N(p.Limit+1)
		}
		reqs = append(reqs, request{key: Key(r.IntN(3)), at: at, cost: cost})
	}
	return reqs
}

// randomParams picks small parameters so that edges are hit often.
func randomParams(r *rand.Rand, name string) Params {
	info, _ := Lookup(name)
	for {
		p := Params{Limit: 1 + r.Int64N(8), WindowMs: 1 + r.Int64N(120)}
		for _, o := range info.Options {
			switch {
			case o.Kind == Choice:
				o.set(&p, int64(r.IntN(len(o.Choices))))
			case o.Word != "" && r.IntN(3) == 0:
				o.set(&p, o.WordValue)
			default:
				o.set(&p, o.Min+r.Int64N(min(o.Max-o.Min+1, 10)))
			}
		}
		if _, err := Normalised(name, p); err == nil {
			return p
		}
	}
}

// TestPropertyRetryAfter: for every refused request that could pass later,
// the same request at now+retryAfter is admitted (on a copy of the state),
// and one ms earlier it is still refused: the wait is minimal. Traffic
// includes late requests.
func TestPropertyRetryAfter(t *testing.T) {
	r := rand.New(rand.NewPCG(propertySeed, 1))
	for _, name := range Names {
		checked := 0
		for scenario := range 150 {
			p := randomParams(r, name)
			pol := mustNew(t, name, p)
			for i, q := range traffic(r, p, 80, true) {
				d := pol.Decide(q.key, q.at, q.cost)
				if d.Allowed || d.Never {
					continue
				}
				where := fmt.Sprintf("seed %d: %s %+v scenario %d step %d: Decide(%d, %d, %d) refused with retryAfterMs %d",
					propertySeed, name, p, scenario, i, q.key, q.at, q.cost, d.RetryAfterMs)
				if d.RetryAfterMs < 1 {
					t.Fatalf("%s: want retryAfterMs >= 1", where)
				}
				if !cloneOf(t, pol).Decide(q.key, q.at+d.RetryAfterMs, q.cost).Allowed {
					t.Fatalf("%s: at now+retryAfterMs it is refused, want admitted", where)
				}
				if cloneOf(t, pol).Decide(q.key, q.at+d.RetryAfterMs-1, q.cost).Allowed {
					t.Fatalf("%s: at now+retryAfterMs-1 it is admitted, want refused (the wait is not minimal)", where)
				}
				checked++
			}
		}
		if checked < 500 {
			t.Errorf("%s: only %d refusals checked, want the generator to produce at least 500", name, checked)
		}
		t.Logf("%s: %d refusals checked", name, checked)
	}
}

// TestPropertySlidingLogExact: over any window of windowMs the sliding log
// admits at most limit permits. Checked by brute force over the admitted
// instants (the count over (t-windowMs, t] peaks at an admitted t).
func TestPropertySlidingLogExact(t *testing.T) {
	r := rand.New(rand.NewPCG(propertySeed, 2))
	for scenario := range 200 {
		p := randomParams(r, SlidingLog)
		pol := mustNew(t, SlidingLog, p)
		admitted := map[Key][]int64{} // one instant per permit
		for _, q := range traffic(r, p, 150, true) {
			d := pol.Decide(q.key, q.at, q.cost)
			if d.Allowed {
				for range q.cost {
					admitted[q.key] = append(admitted[q.key], d.At)
				}
			}
		}
		for key, times := range admitted {
			for _, end := range times {
				var n int64
				for _, at := range times {
					if at > end-p.WindowMs && at <= end {
						n++
					}
				}
				if n > p.Limit {
					t.Fatalf("seed %d: scenario %d %+v key %d: %d permits admitted in (%d, %d], want <= %d",
						propertySeed, scenario, p, key, n, end-p.WindowMs, end, p.Limit)
				}
			}
		}
	}
}

// TestPropertyReplayIsDeterministic: the same traffic on a fresh policy gives
// the same decisions.
func TestPropertyReplayIsDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(propertySeed, 3))
	for _, name := range Names {
		for scenario := range 30 {
			p := randomParams(r, name)
			reqs := traffic(r, p, 200, true)
			a, b := mustNew(t, name, p), mustNew(t, name, p)
			for i, q := range reqs {
				if da, db := a.Decide(q.key, q.at, q.cost), b.Decide(q.key, q.at, q.cost); da != db {
					t.Fatalf("seed %d: %s %+v scenario %d step %d: replay decided %+v, first run %+v",
						propertySeed, name, p, scenario, i, db, da)
				}
			}
		}
	}
}

// TestPropertyBucketsOneIsCounterExact: sliding-buckets with k = 1 and
// sliding-counter with Exact arithmetic decide alike, with the same retry
// and the same estimate, on forward-in-time traffic.
func TestPropertyBucketsOneIsCounterExact(t *testing.T) {
	r := rand.New(rand.NewPCG(propertySeed, 4))
	for scenario := range 200 {
		p := randomParams(r, SlidingCounter)
		p.Arithmetic, p.Buckets = Exact, 1
		buckets, counter := mustNew(t, SlidingBuckets, p), mustNew(t, SlidingCounter, p)
		for i, q := range traffic(r, p, 150, false) {
			db, dc := buckets.Decide(q.key, q.at, q.cost), counter.Decide(q.key, q.at, q.cost)
			if db.Allowed != dc.Allowed || db.Never != dc.Never || db.RetryAfterMs != dc.RetryAfterMs || !sameFraction(db.Estimate, dc.Estimate) {
				t.Fatalf("seed %d: scenario %d %+v step %d: Decide(%d, %d, %d): buckets k=1 allowed %v retry %d estimate %v; counter exact allowed %v retry %d estimate %v",
					propertySeed, scenario, p, i, q.key, q.at, q.cost,
					db.Allowed, db.RetryAfterMs, db.Estimate, dc.Allowed, dc.RetryAfterMs, dc.Estimate)
			}
		}
	}
}

// TestPropertyGCRAIsTokenBucket: gcra and token-bucket with the same
// parameters decide alike in everything but their Terms on traffic that
// moves forward in time. (Late requests differ by design: token-bucket
// clamps them to its latest instant, gcra decides them at their own.)
func TestPropertyGCRAIsTokenBucket(t *testing.T) {
	r := rand.New(rand.NewPCG(propertySeed, 5))
	for scenario := range 200 {
		p := randomParams(r, GCRA)
		g, tb := mustNew(t, GCRA, p), mustNew(t, TokenBucket, p)
		for i, q := range traffic(r, p, 150, false) {
			dg, dt := g.Decide(q.key, q.at, q.cost), tb.Decide(q.key, q.at, q.cost)
			dg.Terms, dt.Terms = Terms{}, Terms{}
			if dg != dt {
				t.Fatalf("seed %d: scenario %d %+v step %d: Decide(%d, %d, %d): gcra %+v, token-bucket %+v",
					propertySeed, scenario, p, i, q.key, q.at, q.cost, dg, dt)
			}
		}
	}
}

// TestPropertyAllowIsDecide feeds the same traffic (late requests, bursts,
// costs that can never pass, key 0) to two copies of each policy, one
// through Decide and one through Allow: every verdict must be Decide's, and
// afterwards every key must look the same, so Allow changes state exactly as
// Decide does.
func TestPropertyAllowIsDecide(t *testing.T) {
	r := rand.New(rand.NewPCG(propertySeed, 31))
	for _, name := range Names {
		for round := range 40 {
			p := randomParams(r, name)
			decided, allowed := mustNew(t, name, p), mustNew(t, name, p)
			reqs := traffic(r, p, 300, true)
			last := int64(0)
			for i, q := range reqs {
				d := decided.Decide(q.key, q.at, q.cost)
				if got, want := allowed.Allow(q.key, q.at, q.cost), d.Verdict(); got != want {
					t.Fatalf("%s %+v round %d step %d: Allow(%d, %d, %d) = %+v, want Decide's %+v (seed %d)",
						name, p, round, i, q.key, q.at, q.cost, got, want, propertySeed)
				}
				last = max(last, q.at)
			}
			for k := range Key(3) {
				if got, want := fmt.Sprint(allowed.Snapshot(k, last)), fmt.Sprint(decided.Snapshot(k, last)); got != want {
					t.Fatalf("%s %+v round %d: key %d after Allow = %s, after Decide = %s", name, p, round, k, got, want)
				}
			}
			if got, want := allowed.Stats().Keys, decided.Stats().Keys; got != want {
				t.Fatalf("%s %+v round %d: Allow holds %d keys, Decide %d", name, p, round, got, want)
			}
		}
	}
}

// TestPropertyHotKeyAllowIsDecide is TestPropertyAllowIsDecide on the
// traffic the remembered solutions are for: one or two busy keys, the clock
// moving by 0 to 3 ms, so most requests are refusals like the one before
// and Allow answers them from what it remembered (the counter's last
// refusal, token-bucket's and sliding-buckets' retry). Allow's own shortcut
// (the counter's refusal, answered without its window arithmetic) would
// show as a verdict or a state unlike Decide's; a remembered retry, which
// Decide shares, as a wait that does not admit or is not the shortest.
func TestPropertyHotKeyAllowIsDecide(t *testing.T) {
	r := rand.New(rand.NewPCG(propertySeed, 37))
	for _, name := range Names {
		for round := range 20 {
			p := randomParams(r, name)
			decided, allowed := mustNew(t, name, p), mustNew(t, name, p)
			now := r.Int64N(3 * p.WindowMs)
			for i := range 1500 {
				now += r.Int64N(4)
				key, cost := Key(1+r.IntN(8)/7), int64(1)
				if r.IntN(6) == 0 {
					cost = 1 + r.Int64N(p.Limit)
				}
				d := decided.Decide(key, now, cost)
				if got, want := allowed.Allow(key, now, cost), d.Verdict(); got != want {
					t.Fatalf("%s %+v round %d step %d: Allow(%d, %d, %d) = %+v, want Decide's %+v (seed %d)",
						name, p, round, i, key, now, cost, got, want, propertySeed)
				}
				if d.Allowed || d.Never {
					continue
				}
				if !cloneOf(t, allowed).Allow(key, now+d.RetryAfterMs, cost).Allowed {
					t.Fatalf("%s %+v round %d step %d: refused at %d with retry %d, still refused then (seed %d)",
						name, p, round, i, now, d.RetryAfterMs, propertySeed)
				}
				if d.RetryAfterMs > 0 && cloneOf(t, allowed).Allow(key, now+d.RetryAfterMs-1, cost).Allowed {
					t.Fatalf("%s %+v round %d step %d: refused at %d with retry %d, admitted 1 ms earlier (seed %d)",
						name, p, round, i, now, d.RetryAfterMs, propertySeed)
				}
			}
			for k := range Key(3) {
				if got, want := fmt.Sprint(allowed.Snapshot(k, now)), fmt.Sprint(decided.Snapshot(k, now)); got != want {
					t.Fatalf("%s %+v round %d: key %d after Allow = %s, after Decide = %s", name, p, round, k, got, want)
				}
			}
		}
	}
}

// TestPropertyLeakyBucketDelay: an admitted request's DelayMs is the exact
// drain time of its excess above Delay, rounded up to the ms. Checked two
// ways: against ⌈(excess - delay)·windowMs/limit⌉ worked in big rationals
// from the decision's own Estimate (excess = Estimate + cost - 1), and on
// the key afterwards: at At+DelayMs the bucket holds at most 1 + delay
// permits (the request is at the head, or within delay of it), and one ms
// earlier it still held more. Traffic includes late requests.
func TestPropertyLeakyBucketDelay(t *testing.T) {
	r := rand.New(rand.NewPCG(propertySeed, 41))
	waited := 0
	for scenario := range 300 {
		p := randomParams(r, LeakyBucket)
		pol := mustNew(t, LeakyBucket, p)
		n := pol.Params()
		free := big.NewRat(1+n.Delay, 1)
		for i, q := range traffic(r, p, 80, true) {
			d := pol.Decide(q.key, q.at, q.cost)
			where := fmt.Sprintf("seed %d: %+v scenario %d step %d: Decide(%d, %d, %d) = allowed %v delayMs %d",
				propertySeed, n, scenario, i, q.key, q.at, q.cost, d.Allowed, d.DelayMs)
			if !d.Allowed {
				if d.DelayMs != 0 {
					t.Fatalf("%s: a refusal waits for nothing, want delayMs 0", where)
				}
				continue
			}
			excess := new(big.Rat).Add(big.NewRat(d.Estimate.Num, d.Estimate.Den), big.NewRat(q.cost-1, 1))
			drainMs := new(big.Rat).Sub(excess, big.NewRat(n.Delay, 1))
			drainMs.Mul(drainMs, big.NewRat(n.WindowMs, n.Limit))
			want := int64(0)
			if drainMs.Sign() > 0 {
				num, den := drainMs.Num().Int64(), drainMs.Denom().Int64()
				want = (num + den - 1) / den
			}
			if d.DelayMs != want {
				t.Fatalf("%s: want ⌈(excess %s - delay %d)·%d/%d⌉ = %d ms", where, excess.RatString(), n.Delay, n.WindowMs, n.Limit, want)
			}
			level := func(at int64) *big.Rat { f := pol.Peek(q.key, at); return big.NewRat(f.Num, f.Den) }
			if got := level(d.At + d.DelayMs); got.Cmp(free) > 0 {
				t.Fatalf("%s: at At+delayMs the bucket holds %s, want at most 1 + delay = %s", where, got.RatString(), free.RatString())
			}
			if d.DelayMs > 0 {
				if got := level(d.At + d.DelayMs - 1); got.Cmp(free) <= 0 {
					t.Fatalf("%s: 1 ms before At+delayMs the bucket holds %s <= %s already (the wait is not minimal)", where, got.RatString(), free.RatString())
				}
				waited++
			}
		}
	}
	if waited < 2000 {
		t.Errorf("only %d waits checked, want the generator to produce at least 2000", waited)
	}
	t.Logf("%d waits checked", waited)
}

// TestPropertyLeakyBucketIsFIFO: a key's admitted requests leave in the
// order they were admitted (At+DelayMs never goes back), late ones too: a
// queue does not let a newcomer overtake.
func TestPropertyLeakyBucketIsFIFO(t *testing.T) {
	r := rand.New(rand.NewPCG(propertySeed, 42))
	for scenario := range 300 {
		p := randomParams(r, LeakyBucket)
		pol := mustNew(t, LeakyBucket, p)
		left := map[Key]int64{}
		for i, q := range traffic(r, p, 80, true) {
			d := pol.Decide(q.key, q.at, q.cost)
			if !d.Allowed {
				continue
			}
			if leaves := d.At + d.DelayMs; leaves < left[q.key] {
				t.Fatalf("seed %d: %+v scenario %d step %d: Decide(%d, %d, %d) leaves at %d, before the request admitted ahead of it (%d)",
					propertySeed, pol.Params(), scenario, i, q.key, q.at, q.cost, leaves, left[q.key])
			}
			left[q.key] = d.At + d.DelayMs
		}
	}
}

// TestPropertyLeakyBucketCostIsRequests: a request of cost c decides as c
// requests of cost 1 at the same instant would: admitted iff all c are,
// then waiting as long as the last of them and leaving the key in the same
// state; refused iff the last of them is, with its wait.
func TestPropertyLeakyBucketCostIsRequests(t *testing.T) {
	r := rand.New(rand.NewPCG(propertySeed, 43))
	checked := 0
	for scenario := range 200 {
		p := randomParams(r, LeakyBucket)
		pol := mustNew(t, LeakyBucket, p)
		for i, q := range traffic(r, p, 60, true) {
			units := cloneOf(t, pol)
			d := pol.Decide(q.key, q.at, q.cost)
			if d.Never {
				continue
			}
			var last Decision
			all := true
			for range q.cost {
				last = units.Decide(q.key, q.at, 1)
				all = all && last.Allowed
			}
			where := fmt.Sprintf("seed %d: %+v scenario %d step %d: Decide(%d, %d, %d) = %+v; as %d requests the last = %+v",
				propertySeed, pol.Params(), scenario, i, q.key, q.at, q.cost, d.Verdict(), q.cost, last.Verdict())
			switch {
			case d.Allowed != all || d.Allowed != last.Allowed:
				t.Fatalf("%s: allowed differs", where)
			case d.Allowed && (d.DelayMs != last.DelayMs || pol.Peek(q.key, d.At) != units.Peek(q.key, d.At)):
				t.Fatalf("%s: the wait or the key afterwards differs (%v against %v)", where, pol.Peek(q.key, d.At), units.Peek(q.key, d.At))
			case !d.Allowed && d.RetryAfterMs < last.RetryAfterMs:
				t.Fatalf("%s: the whole request may retry before its last permit could", where)
			}
			checked++
		}
	}
	t.Logf("%d requests checked", checked)
}

// TestPropertyLeakyBucketIsGCRAOneLarger: whatever its delay, leaky-bucket
// with a queue of burst admits exactly what gcra with a burst of burst + 1
// admits, with the same retry and the same permits in use, on traffic that
// moves forward in time: the same arithmetic, where one delays what the
// other passes at once.
func TestPropertyLeakyBucketIsGCRAOneLarger(t *testing.T) {
	r := rand.New(rand.NewPCG(propertySeed, 44))
	for scenario := range 200 {
		p := randomParams(r, LeakyBucket)
		leaky := mustNew(t, LeakyBucket, p)
		g := p
		g.Burst, g.Delay = leaky.Params().Burst+1, 0
		meter := mustNew(t, GCRA, g)
		for i, q := range traffic(r, p, 150, false) {
			dl, dg := leaky.Decide(q.key, q.at, q.cost), meter.Decide(q.key, q.at, q.cost)
			if dl.Allowed != dg.Allowed || dl.Never != dg.Never || dl.RetryAfterMs != dg.RetryAfterMs || !sameFraction(dl.Estimate, dg.Estimate) {
				t.Fatalf("seed %d: scenario %d %+v step %d: Decide(%d, %d, %d): leaky-bucket %+v estimate %v; gcra burst %d %+v estimate %v",
					propertySeed, scenario, leaky.Params(), i, q.key, q.at, q.cost, dl.Verdict(), dl.Estimate, g.Burst, dg.Verdict(), dg.Estimate)
			}
		}
	}
}

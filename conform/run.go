package conform

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dunglas/httpsfv"

	"github.com/windowlab/playground/explain"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// Step is one request of a replay: what the limiter said beside what the
// policy decides, and the fields where they differ.
type Step struct {
	Request Request
	Got     Answer
	Want    Expected
	// Judged is false for a wall-clock request decided too near a change
	// of the policy's answer to judge.
	Judged bool
	Diffs  []string
}

// Expected is the policy's answer to one request, in the fields a limiter
// may report.
type Expected struct {
	Decision  policies.Decision
	Remaining int64
	ResetMs   int64
	// RateLimit and RateLimitPolicy are the fields explain.Headers sends.
	RateLimit, RateLimitPolicy string
	// Within are, on the wall clock, the answers at the earliest and
	// latest instants the limiter may have decided at: a number the
	// limiter reports is right anywhere between theirs.
	Within []Expected
}

// replay runs reqs through a fresh limiter of target and through the
// policy, returning every step and the index of the first that differs
// (-1 for none).
func replay(ctx context.Context, target Target, policy string, p policies.Params, reqs []Request) ([]Step, int, error) {
	lim, err := target.New(ctx, p)
	if err != nil {
		return nil, -1, fmt.Errorf("building the limiter: %w", err)
	}
	if c, ok := lim.(interface{ Close() error }); ok {
		defer c.Close()
	}
	pol, err := policies.New(policy, p)
	if err != nil {
		return nil, -1, err
	}
	steps := make([]Step, 0, len(reqs))
	first := -1
	var hist []measured // a wall-clock run's requests, each with the span it was decided in
	var start time.Time
	if in, _ := policies.Lookup(policy); target.Clock.Wall && !in.Windows {
		start = time.Now()
	} else if target.Clock.Wall {
		// Start on a window's edge in Unix time, where a limiter that
		// aligns its windows to the epoch (as the policies do) starts one.
		now := time.Now()
		w := time.Duration(p.WindowMs) * time.Millisecond
		start = now.Truncate(w).Add(w)
		if start.Sub(now) > 0 {
			select {
			case <-ctx.Done():
				return nil, -1, ctx.Err()
			case <-time.After(start.Sub(now)):
			}
		}
	}
	for i, r := range reqs {
		var got Answer
		var want Expected
		judged := true
		if !target.Clock.Wall {
			if got, err = lim.Decide(ctx, r); err != nil {
				return nil, -1, fmt.Errorf("request %d: %w", i+1, err)
			}
			want = decide(pol, policy, p, r, r.At)
		} else {
			// Wait for the request's instant in real time, and judge it
			// at the instants it may have been decided at.
			if d := time.Until(start.Add(time.Duration(r.At) * time.Millisecond)); d > 0 {
				select {
				case <-ctx.Done():
					return nil, -1, ctx.Err()
				case <-time.After(d):
				}
			}
			before := time.Since(start).Milliseconds()
			if got, err = lim.Decide(ctx, r); err != nil {
				return nil, -1, fmt.Errorf("request %d: %w", i+1, err)
			}
			after := time.Since(start).Milliseconds()
			want, judged = decideWall(pol, policy, p, hist, r, before, after, target.Clock.ToleranceMs, got.Allowed)
			r.At = before
			hist = append(hist, measured{r, after})
		}
		s := Step{Request: r, Got: got, Want: want, Judged: judged}
		if judged {
			s.Diffs = compare(target, got, want)
		}
		if len(s.Diffs) > 0 && first < 0 {
			first = i
		}
		steps = append(steps, s)
		if first >= 0 && target.Clock.Wall {
			break // real time is dear: the rest cannot undo a difference
		}
	}
	return steps, first, nil
}

// decide is the policy's answer to r at instant at, deciding it on pol.
func decide(pol policies.Policy, policy string, p policies.Params, r Request, at int64) Expected {
	key := scenario.KeyOf(r.Key)
	d := pol.Decide(key, at, r.Cost)
	hs := explain.Headers(explain.Policy{Name: policy, Params: p}, d, pol, key)
	e := Expected{Decision: d, Remaining: explain.Remaining(d, pol, key), ResetMs: resetMs(pol, p, key, d)}
	for _, h := range hs {
		switch h.Name {
		case "RateLimit":
			e.RateLimit = h.Value
		case "RateLimit-Policy":
			e.RateLimitPolicy = h.Value
		}
	}
	return e
}

// measured is a wall-clock run's request as sent: At is when it was sent
// (ms since the run began), after when its answer came back; the limiter
// decided it somewhere between, give or take the clock's tolerance.
type measured struct {
	Request
	after int64
}

// decideWall is decide for a request the limiter decided somewhere between
// before and after (ms since the run began) on a clock up to tol away from
// the kit's, after hist (the run's earlier requests). Every instant of the
// run is that uncertain, not only this one, and an earlier request's
// answer may have taken long (a loaded machine stalls a server for
// hundreds of ms), so the request is judged only when the policy gives the
// same verdict at the two extremes: each earlier request as late as it may
// have been decided (its answer's return, plus tol) and this one as early
// (the least drained, the strictest), and each earlier one as early as it
// may have been (sent, less tol) and this one as late (the most lenient). A judged request is decided at
// before; one that is not is decided where the policy agrees with the
// limiter, so that the rest of the run follows the limiter's state.
func decideWall(pol policies.Policy, policy string, p policies.Params, hist []measured, r Request, before, after, tol int64, allowed bool) (Expected, bool) {
	lo, hi := max(before-tol, 0), after+tol
	// extreme replays hist at the latest or earliest instants each may
	// have been decided at, then r at at, on a fresh policy.
	extreme := func(late bool, at int64) Expected {
		fresh, _ := policies.New(policy, p)
		for _, h := range hist {
			when := max(h.At-tol, 0)
			if late {
				when = h.after + tol
			}
			fresh.Decide(scenario.KeyOf(h.Key), when, h.Cost)
		}
		return decide(fresh, policy, p, r, at)
	}
	strict, lenient := extreme(true, lo), extreme(false, hi)
	verdict := func(at int64) bool {
		c, _ := policies.Clone(pol)
		return c.Allow(scenario.KeyOf(r.Key), at, r.Cost).Allowed
	}
	if a := verdict(before); a == strict.Decision.Allowed && a == lenient.Decision.Allowed {
		// Each counts its waits from its own instant, as a limiter whose
		// clock is that far from the kit's would.
		e := decide(pol, policy, p, r, before)
		e.Within = []Expected{strict, lenient}
		return e, true
	}
	at := before
	for _, t := range []int64{lo, before, after, hi} {
		if verdict(t) == allowed {
			at = t
			break
		}
	}
	return decide(pol, policy, p, r, at), false
}

// resetMs is how long after d.At the key holds nothing if nothing else
// arrives, found by bisection over the policy's own Peek (what is held
// only falls without arrivals).
func resetMs(pol policies.Policy, p policies.Params, key policies.Key, d policies.Decision) int64 {
	if pol.Peek(key, d.At).Num == 0 {
		return 0
	}
	hi := 2*p.WindowMs + (max(d.Capacity, p.Limit)*p.WindowMs+p.Limit-1)/p.Limit
	if pol.Peek(key, d.At+hi).Num != 0 {
		return hi
	}
	lo := int64(0)
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if pol.Peek(key, d.At+mid).Num == 0 {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// ceilTo rounds ms up to a multiple of unit.
func ceilTo(ms, unit int64) int64 {
	if unit <= 1 || ms <= 0 {
		return ms
	}
	return (ms + unit - 1) / unit * unit
}

// compare lists the fields where the limiter's answer differs from the
// policy's, each worded with both values. A number is right anywhere
// between its values at the instants of want.Within (the wall clock's
// uncertainty), each rounded up to the target's unit.
func compare(target Target, got Answer, want Expected) []string {
	var diffs []string
	d := want.Decision
	unit := max(target.UnitMs, 1)
	if got.Allowed != d.Allowed {
		return []string{fmt.Sprintf("allowed: limiter %t, policy %t", got.Allowed, d.Allowed)} // the rest follows from it
	}
	all := append([]Expected{want}, want.Within...)
	// span is the range of one field over the instants, rounded up.
	span := func(f func(Expected) int64) (lo, hi int64) {
		lo, hi = f(all[0]), f(all[0])
		for _, e := range all[1:] {
			lo, hi = min(lo, f(e)), max(hi, f(e))
		}
		return lo, hi
	}
	inSpan := func(v, lo, hi int64) bool { return v >= lo && v <= hi }
	spanText := func(lo, hi int64) string {
		if lo == hi {
			return msText(lo)
		}
		return msText(lo) + " to " + msText(hi)
	}
	if target.Reports&RetryAfter != 0 && !d.Allowed && !d.Never {
		lo, hi := span(func(e Expected) int64 {
			w := ceilTo(e.Decision.RetryAfterMs, unit)
			if unit > 1 {
				w = max(w, unit) // a refusal never says wait 0
			}
			return w
		})
		if !inSpan(got.RetryAfterMs, lo, hi) {
			diffs = append(diffs, fmt.Sprintf("retry-after: limiter %s, policy %s (%s exactly, rounded up to %s)", msText(got.RetryAfterMs), spanText(lo, hi), msText(d.RetryAfterMs), msText(unit)))
		}
	}
	if target.Reports&Remaining != 0 {
		if lo, hi := span(func(e Expected) int64 { return e.Remaining }); !inSpan(got.Remaining, lo, hi) {
			diffs = append(diffs, fmt.Sprintf("remaining: limiter %d, policy %d", got.Remaining, want.Remaining))
		}
	}
	if target.Reports&Reset != 0 {
		if lo, hi := span(func(e Expected) int64 { return ceilTo(e.ResetMs, unit) }); !inSpan(got.ResetMs, lo, hi) {
			diffs = append(diffs, fmt.Sprintf("reset: limiter %s, policy %s", msText(got.ResetMs), spanText(lo, hi)))
		}
	}
	if target.Reports&Headers != 0 {
		var rl, rlp []string
		for _, e := range all {
			rl, rlp = append(rl, e.RateLimit), append(rlp, e.RateLimitPolicy)
		}
		diffs = append(diffs, compareField("RateLimit", got.RateLimit, rl)...)
		diffs = append(diffs, compareField("RateLimit-Policy", got.RateLimitPolicy, rlp)...)
	}
	return diffs
}

// compareField compares a RateLimit or RateLimit-Policy field as a
// structured field (RFC 9651, parsed by httpsfv) with the policy's at each
// instant: the item's name, and each Integer parameter within the range of
// the policy's values.
func compareField(name, got string, wants []string) []string {
	g, gerr := parseItem(got)
	ws := make([]item, len(wants))
	for i, want := range wants {
		w, err := parseItem(want)
		if err != nil {
			return []string{fmt.Sprintf("%s: the policy's field %q does not parse: %v", name, want, err)}
		}
		ws[i] = w
	}
	if gerr != nil {
		return []string{fmt.Sprintf("%s: limiter sent %q, which does not parse as a List of one Item (%v); policy %s", name, got, gerr, wants[0])}
	}
	if g.name != ws[0].name {
		return []string{fmt.Sprintf("%s: limiter names the policy %q, policy %q", name, g.name, ws[0].name)}
	}
	for _, k := range append(append([]string{}, ws[0].keys...), g.keys...) {
		gv, gok := g.params[k]
		ok := false
		lo, hi := int64(0), int64(0)
		for i, w := range ws {
			wv, wok := w.params[k]
			if i == 0 || wv < lo {
				lo = wv
			}
			if i == 0 || wv > hi {
				hi = wv
			}
			ok = ok || wok == gok
		}
		if !ok || gok && (gv < lo || gv > hi) {
			return []string{fmt.Sprintf("%s: limiter %q, policy %q (parameter %s)", name, got, wants[0], k)}
		}
	}
	return nil
}

// item is a parsed RateLimit field: its one item's name and its Integer
// parameters.
type item struct {
	name   string
	keys   []string
	params map[string]int64
}

func parseItem(s string) (item, error) {
	l, err := httpsfv.UnmarshalList([]string{s})
	if err != nil {
		return item{}, err
	}
	if len(l) != 1 {
		return item{}, fmt.Errorf("%d members, want 1", len(l))
	}
	it, ok := l[0].(httpsfv.Item)
	if !ok {
		return item{}, errors.New("an inner list, want an item")
	}
	name, ok := it.Value.(string)
	if !ok {
		if tok, isTok := it.Value.(httpsfv.Token); isTok {
			name = string(tok)
		} else {
			return item{}, fmt.Errorf("the item is %T, want a String", it.Value)
		}
	}
	out := item{name: name, params: map[string]int64{}}
	for _, k := range it.Params.Names() {
		v, _ := it.Params.Get(k)
		n, ok := v.(int64)
		if !ok {
			return item{}, fmt.Errorf("parameter %s is %T, want an Integer", k, v)
		}
		out.keys = append(out.keys, k)
		out.params[k] = n
	}
	return out, nil
}

// msText writes a duration in ms as people read it: "1 s", "250 ms".
func msText(ms int64) string { return scenario.FormatMs(ms) }

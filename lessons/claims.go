package lessons

import (
	"fmt"
	"github.com/windowlab/playground/ask"
	"math/big"
	"strconv"
	"strings"

	"github.com/windowlab/playground/explain"
	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// A Claim is a number (or outcome) stated in a lesson's prose that the
// policies decide. The lesson writes both the question and the answer it
// expects:
//
//	{{count sliding-log car-park at 35s = 2}}
//
// Rendering computes the answer from the policies and shows the computed
// value; Expected is what the file says, and a claim whose Expected differs
// from Computed is a Problem (lessons_test.go fails on any problem).
type Claim struct {
	Source   string // the text between {{ and }}
	Expected string
	Computed string // canonical text of the computed value; "" when it failed
	Err      error  // why the claim could not be computed
}

// OK reports whether the claim was computed and agrees with the file.
func (c Claim) OK() bool { return c.Err == nil && c.Computed == c.Expected }

// The measures a claim can ask for.
const (
	measureAdmitted = "admitted" // requests admitted over the whole scenario
	measureRefused  = "refused"  // requests refused over the whole scenario
	measureDiffer   = "differ"   // decisions that differ from a separate sliding log's
	// Judged as Cloudflare judged its counter (see Accuracy): against an
	// exact count of what the policy itself had admitted.
	measureWrong          = "wrong"           // share wrongly allowed or refused, "0.4 %"
	measureWronglyAllowed = "wrongly-allowed" // requests admitted with no room left
	measureWronglyRefused = "wrongly-refused" // requests refused with room left
	measureMostInWindow   = "most-in-window"  // most admitted in one window
	// The estimate against the exact count with every request counted
	// (EstimateErrors), as a share of the limit: "4.5 %".
	measureWorstError = "worst-error"
	measureMeanError  = "mean-error"
	measureOutcome    = "outcome"     // admitted or refused, at an instant
	measureEstimate   = "estimate"    // the policy's estimate before a request
	measureCount      = "count"       // the same, for policies that count whole requests
	measureCarried    = "carried"     // the part of the previous window (or oldest bucket) still counted
	measureRetry      = "retry"       // retryAfter of a request at an instant
	measureWait       = "wait"        // how long a queue holds an admitted request at an instant
	measureFirstAdmit = "first-admit" // first instant at or after "from" that admits
	measureMemory     = "memory"      // state bytes for "keys" keys at "limit"
	measureBytes      = "bytes-per-key"
	// measureRoundTrips is how often a lane's servers reach shared state
	// over the scenario: one per decision with a central store, one per
	// server at each sync (scenario.PolicySpec.RoundTrips).
	measureRoundTrips = "round-trips"
	// measureCacheLineK is the largest k for sliding-buckets that divides
	// the window and whose state for one key fits a 64-byte cache line.
	measureCacheLineK = "cache-line-k"
)

// cacheLineBytes is the size of the cache line the ring's state should fit.
const cacheLineBytes = scenario.CacheLineBytes

// claimQuery is a parsed claim: measure, policy, scenario and options.
type claimQuery struct {
	measure  string
	policy   string // a policy ref, "#N" for the scenario's N-th lane, or "stack"
	scenario string
	at       int64
	hasAt    bool
	nth      int // which request at "at": 1 for the first
	cost     int64
	limit    int64
	keys     int64
	window   int64
}

func parseClaim(src string) (q claimQuery, expected string, err error) {
	body, expected, ok := strings.Cut(src, "=")
	if !ok {
		return q, "", fmt.Errorf("no \"= expected value\": write the value the lesson states after =")
	}
	expected = strings.TrimSpace(expected)
	if expected == "" {
		return q, "", fmt.Errorf("nothing after =")
	}
	f := strings.Fields(body)
	if len(f) < 2 {
		return q, "", fmt.Errorf("want \"measure policy scenario …\"")
	}
	q = claimQuery{measure: f[0], policy: f[1], nth: 1, cost: 1}
	rest := f[2:]
	switch q.measure {
	case measureMemory, measureBytes, measureCacheLineK:
	case measureAdmitted, measureRefused, measureDiffer, measureOutcome, measureEstimate,
		measureCount, measureCarried, measureRetry, measureWait, measureFirstAdmit,
		measureWrong, measureWronglyAllowed, measureWronglyRefused, measureMostInWindow, measureRoundTrips,
		measureWorstError, measureMeanError:
		if len(rest) == 0 {
			return q, "", fmt.Errorf("%s needs a scenario after the policy", q.measure)
		}
		q.scenario, rest = rest[0], rest[1:]
	default:
		return q, "", fmt.Errorf("unknown measure %q", q.measure)
	}
	for len(rest) > 0 {
		word := rest[0]
		if n, ok := strings.CutPrefix(word, "#"); ok {
			v, err := strconv.Atoi(n)
			if err != nil || v < 1 {
				return q, "", fmt.Errorf("%q: want #1, #2, … for the first, second, … request at that instant", word)
			}
			q.nth, rest = v, rest[1:]
			continue
		}
		if len(rest) < 2 {
			return q, "", fmt.Errorf("%q needs a value after it", word)
		}
		val := rest[1]
		rest = rest[2:]
		var err error
		switch word {
		case "at", "from":
			q.at, err = scenario.ParseMoment(val, 0)
			q.hasAt = true
		case "window":
			q.window, err = scenario.ParseMoment(val, 0)
		case "cost", "limit", "keys":
			var n int64
			n, err = strconv.ParseInt(strings.ReplaceAll(val, ",", ""), 10, 64)
			if err == nil && n < 1 {
				err = fmt.Errorf("must be at least 1")
			}
			switch word {
			case "cost":
				q.cost = n
			case "limit":
				q.limit = n
			default:
				q.keys = n
			}
		default:
			return q, "", fmt.Errorf("unknown option %q (want at, from, cost, limit, keys, window or #N)", word)
		}
		if err != nil {
			return q, "", fmt.Errorf("%s %s: %v", word, val, err)
		}
	}
	switch q.measure {
	case measureDiffer, measureWrong, measureWronglyAllowed, measureWronglyRefused, measureMostInWindow, measureRoundTrips,
		measureWorstError, measureMeanError:
		// These judge the whole scenario; an instant would be ignored, and
		// a claim that reads as if about one instant must not pass as one.
		if q.hasAt {
			return q, "", fmt.Errorf("%s is over the whole scenario: it takes no \"at\"", q.measure)
		}
	case measureOutcome, measureEstimate, measureCount, measureCarried, measureRetry, measureWait, measureFirstAdmit:
		if !q.hasAt {
			return q, "", fmt.Errorf("%s needs \"at TIME\" (or \"from TIME\")", q.measure)
		}
	case measureMemory:
		if q.limit == 0 || q.keys == 0 {
			return q, "", fmt.Errorf("memory needs \"limit N keys K\"")
		}
	case measureBytes:
		if q.limit == 0 {
			return q, "", fmt.Errorf("bytes-per-key needs \"limit N\"")
		}
	case measureCacheLineK:
		if _, sub := divisor(q.policy); q.window == 0 || !sub {
			return q, "", fmt.Errorf("cache-line-k needs \"%s window TIME\"", strings.Join(divided(), " or "))
		}
	}
	return q, expected, nil
}

// evalClaim computes a claim against the scenarios the render state knows.
func (st *renderState) evalClaim(src string) Claim {
	c := Claim{Source: src}
	q, expected, err := parseClaim(src)
	c.Expected = expected
	if err != nil {
		c.Err = err
		return c
	}
	c.Computed, c.Err = st.compute(q)
	return c
}

func (st *renderState) compute(q claimQuery) (string, error) {
	if q.measure == measureCacheLineK {
		k, err := cacheLineK(q.window)
		return strconv.FormatInt(k, 10), err
	}
	if q.measure == measureMemory || q.measure == measureBytes {
		spec, err := scenario.ParsePolicyRef(q.policy)
		if err != nil {
			return "", err
		}
		window := q.window
		if window == 0 {
			window = 1000 * max(spec.Buckets, 1) // a whole number of ms per bucket
		}
		per, err := EntryBytesPerKey(spec, q.limit, window)
		if err != nil {
			return "", err
		}
		if q.measure == measureBytes {
			return FormatBytes(per), nil
		}
		return FormatBytes(per * q.keys), nil
	}
	s, err := st.scenario(q.scenario)
	if err != nil {
		return "", err
	}
	if q.policy == "stack" {
		if q.measure != measureAdmitted && q.measure != measureRefused {
			return "", fmt.Errorf("stack answers only admitted and refused")
		}
		admitted, _, err := scenario.Stacked(s)
		if err != nil {
			return "", err
		}
		n := 0
		for _, a := range admitted {
			if a == (q.measure == measureAdmitted) {
				n++
			}
		}
		return strconv.Itoa(n), nil
	}
	spec, err := lane(s, q.policy)
	if err != nil {
		return "", err
	}
	one := s
	one.Policies = []scenario.PolicySpec{spec}
	if q.measure == measureRoundTrips {
		if err := one.Validate(); err != nil {
			return "", err
		}
		return strconv.FormatInt(spec.RoundTrips(one), 10), nil
	}
	switch q.measure {
	case measureWorstError, measureMeanError:
		errs, err := EstimateErrors(s, []scenario.PolicySpec{spec})
		if err != nil {
			return "", err
		}
		if q.measure == measureWorstError {
			return errs[0].Share(errs[0].Worst), nil
		}
		return errs[0].Share(errs[0].Mean), nil
	case measureAdmitted, measureRefused, measureDiffer,
		measureWrong, measureWronglyAllowed, measureWronglyRefused, measureMostInWindow:
		res, err := scenario.Run(one)
		if err != nil {
			return "", err
		}
		r := res.Results[0]
		switch {
		case q.hasAt && (q.measure == measureAdmitted || q.measure == measureRefused):
			return admittedAt(r, q.at, q.measure == measureAdmitted)
		case q.measure == measureAdmitted:
			return strconv.Itoa(r.Admitted), nil
		case q.measure == measureRefused:
			return strconv.Itoa(r.Refused), nil
		}
		switch q.measure {
		case measureWrong, measureWronglyAllowed, measureWronglyRefused, measureMostInWindow:
			a, err := AgainstExactLog(s, r)
			switch q.measure {
			case measureWrong:
				return a.Wrong(), err
			case measureWronglyAllowed:
				return strconv.Itoa(a.WronglyAllowed), err
			case measureWronglyRefused:
				return strconv.Itoa(a.WronglyRefused), err
			}
			return strconv.FormatInt(a.MostInWindow, 10), err
		}
		n, err := differFromLog(s, r)
		return strconv.Itoa(n), err
	case measureFirstAdmit:
		at, err := scenario.FirstAdmitted(one, spec, scenario.Request{At: q.at, Cost: q.cost}, ask.Horizon(one, spec))
		if err != nil {
			return "", err
		}
		return scenario.FormatMs(at), nil
	}
	d, err := decisionAt(one, spec, q)
	if err != nil {
		return "", err
	}
	switch q.measure {
	case measureOutcome:
		return explain.Verdict(d.Allowed()), nil
	case measureEstimate:
		return scenario.FormatFraction(d.Estimate), nil
	case measureCount:
		if d.Estimate.Den != 1 && d.Estimate.Num%max(d.Estimate.Den, 1) != 0 {
			return "", fmt.Errorf("%s does not count whole requests here (estimate %s); use estimate", spec.Ref(), scenario.FormatFraction(d.Estimate))
		}
		return scenario.FormatFraction(d.Estimate), nil
	case measureCarried:
		carried, ok := explain.Carried(spec.Name, d.Detail)
		if !ok {
			return "", fmt.Errorf("carried: the %s counts no part of an older window", explain.Name(spec))
		}
		return scenario.FormatFraction(carried), nil
	case measureRetry:
		retry, ok := d.RetryAfter()
		if !ok {
			return "", fmt.Errorf("the request at %s has no retryAfter (admitted, or never admissible)", scenario.FormatMs(q.at))
		}
		return scenario.FormatMs(retry), nil
	case measureWait:
		if !d.Allowed() {
			return "", fmt.Errorf("the request at %s is refused: it waits in no queue (ask its retry)", scenario.FormatMs(q.at))
		}
		return scenario.FormatMs(d.Detail.DelayMs), nil
	}
	return "", fmt.Errorf("unknown measure %q", q.measure)
}

// decisionAt is the decision of the nth request the scenario holds at q.at,
// or, when it holds none there, of one more request added at q.at.
func decisionAt(s scenario.Scenario, spec scenario.PolicySpec, q claimQuery) (scenario.Decision, error) {
	res, err := scenario.Run(s)
	if err != nil {
		return scenario.Decision{}, err
	}
	seen := 0
	for _, d := range res.Results[0].Decisions {
		if d.At == q.at && !d.Probe {
			seen++
			if seen == q.nth {
				return d, nil
			}
		}
	}
	if seen > 0 {
		return scenario.Decision{}, fmt.Errorf("the scenario has %d requests at %s, not %d", seen, scenario.FormatMs(q.at), q.nth)
	}
	return scenario.WhatIf(s, spec, scenario.Request{At: q.at, Cost: q.cost})
}

// admittedAt counts the scenario's requests at the instant at that r
// admitted (or, with admitted false, refused): what a burst at one instant
// came to, where "admitted" alone sums the whole scenario. A scenario with
// no request there is an error, since no added request is meant.
func admittedAt(r scenario.PolicyResult, at int64, admitted bool) (string, error) {
	held, n := 0, 0
	for _, d := range r.Decisions {
		if d.Probe || d.At != at {
			continue
		}
		held++
		if d.Allowed() == admitted {
			n++
		}
	}
	if held == 0 {
		return "", fmt.Errorf("the scenario has no requests at %s to count", scenario.FormatMs(at))
	}
	return strconv.Itoa(n), nil
}

// lane resolves a claim's policy word against a scenario (Scenario.Lane).
func lane(s scenario.Scenario, ref string) (scenario.PolicySpec, error) { return s.Lane(ref) }

// differFromLog counts the requests whose outcome under r differs from the
// exact sliding log's on the same scenario.
func differFromLog(s scenario.Scenario, r scenario.PolicyResult) (int, error) {
	exact := s
	exact.Policies = []scenario.PolicySpec{{Name: policies.SlidingLog, Limit: r.Params.Limit, WindowMs: r.Params.WindowMs}}
	res, err := scenario.Run(exact)
	if err != nil {
		return 0, err
	}
	n := 0
	for i, d := range res.Results[0].Decisions {
		if !d.Probe && d.Allowed() != r.Decisions[i].Allowed() {
			n++
		}
	}
	return n, nil
}

// cacheLineK is the k the ring lesson recommends for a cache line
// (scenario.CacheLineBuckets, which an exercise asks too).
func cacheLineK(windowMs int64) (int64, error) {
	return scenario.CacheLineBuckets(windowMs, nil)
}

// EntryBytesPerKey is the memory one key's state takes under the policy
// (scenario.BytesPerKey): every number it tracks for a key at 8 bytes.
func EntryBytesPerKey(spec scenario.PolicySpec, limit, windowMs int64) (int64, error) {
	return scenario.BytesPerKey(spec, limit, windowMs)
}

// FormatBytes writes a byte count in decimal units (B, kB, MB, GB, TB), to
// at most one decimal place.
func FormatBytes(n int64) string {
	units := []string{"B", "kB", "MB", "GB", "TB"}
	v := big.NewRat(n, 1)
	u := 0
	for u < len(units)-1 && v.Cmp(big.NewRat(1000, 1)) >= 0 {
		v.Quo(v, big.NewRat(1000, 1))
		u++
	}
	s := v.FloatString(1)
	s = strings.TrimSuffix(s, ".0")
	return s + " " + units[u]
}

// divisor is the option splitting the named policy's window into
// sub-buckets (policies.Info.Divisor), if it takes one.
func divisor(name string) (policies.Option, bool) {
	in, _ := policies.Lookup(name)
	return in.Divisor()
}

// divided names the policies whose window an option splits, in registry
// order.
func divided() []string {
	var out []string
	for _, in := range policies.Registered() {
		if _, ok := in.Divisor(); ok {
			out = append(out, in.Name)
		}
	}
	return out
}

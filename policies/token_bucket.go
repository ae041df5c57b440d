package policies

import "unsafe"

// TokenBucket is the policy's name in scenarios, URLs and JSON.
const TokenBucket = "token-bucket"

// tokenBucketTag marks the policy's terms in a Terms.
var tokenBucketTag = termsTag(TokenBucket)

var tokenBucketInfo = Info{
	Name: TokenBucket, Human: "token bucket", Options: []Option{BurstOption}, Refills: true,
	Words: []string{"token", "bucket"},
	make:  func(p Params) Local { return &tokenBucketPolicy{keyed: *newKeyed(newTokenBucketRule(p))} },
}

// tokenBucketPolicy is the policy New builds: keyed, with an Allow of its
// own that calls the rule's take itself and remembers the last refusal
// solved. Through keyed's Allow, which calls the rule through a dictionary
// and inlines none of it, and solving every refusal, the hot key cost
// measurably more (BenchmarkDecide/hot/token-bucket.Allow);
// TestRuleCopiesAgree holds this Allow to the rule's Decide.
type tokenBucketPolicy struct {
	keyed[tokenBucketState, *TokenBucketRule]
	lastRetry tokenRetry
}

// tokenRetry is a solved retry for its refill line and cost. Its zero
// value solves nothing: cost is never 0.
type tokenRetry struct {
	line, cost int64
	at         int64
}

// Allow implements Policy.
func (p *tokenBucketPolicy) Allow(key Key, now, cost int64) Verdict {
	if p.r.Never(cost) {
		return Verdict{Never: true} // and adds nothing, like Decide
	}
	st := p.keys.atHome(key)
	if st == nil {
		st = p.add(key)
	}
	now = clampTime(now)
	at, _ := decideAt(now, st.latest)
	if used, ok := p.r.take(st, at, cost); !ok {
		return Verdict{RetryAfterMs: p.retryAt(at, used, cost) - now}
	}
	return Verdict{Allowed: true}
}

// retryAt is the rule's retryAt, remembered. A refusal means used was not
// clamped at 0, so used = line - limit*at on one refill line, and the
// instant, ⌈(line + cost*windowMs - capacity)/limit⌉, is the same for every
// refusal on that line: a key refused again and again, the case a limiter
// must be fastest at, then costs a multiplication and no division.
func (p *tokenBucketPolicy) retryAt(at, used, cost int64) int64 {
	line := at*p.r.p.Limit + used // < 2^62 + 2^60: at <= MaxTime, limit <= MaxLimit
	if m := &p.lastRetry; m.line != line || m.cost != cost {
		*m = tokenRetry{line: line, cost: cost, at: p.r.retryAt(at, used, cost)}
	}
	return p.lastRetry.at
}

// Clone implements Local.
func (p *tokenBucketPolicy) Clone() Local {
	return &tokenBucketPolicy{*p.cloneKeyed(), p.lastRetry}
}

// TokenBucketRule is token-bucket: a bucket of Burst permits (Burst 0
// means Limit) that refills at Limit permits per windowMs and starts full.
//
// The arithmetic is in integers, in units of 1/windowMs of a permit: the
// bucket holds burst*windowMs units and refills limit units per ms, so no
// refill is ever rounded. Each key stores the units in use (the deficit,
// 0 for a full bucket, so an unseen key is a full one) and the instant it
// was last brought up to date.
//
// Estimate is the permits in use, burst - tokens, as a Fraction with
// denominator windowMs, so that like every other policy a request is
// admitted iff Estimate + cost <= Capacity (= burst). TokenBucketTerms.Tokens and
// TokenBucketHeld.Tokens give the tokens themselves. RetryAfterMs is exact and
// minimal: ⌈(units missing)/limit⌉. A cost above burst is refused with Never
// set and changes nothing.
//
// Late rule: a now earlier than the key's latest instant is decided at that
// latest instant (Decision.At, Decision.Late); RetryAfterMs is counted from
// the caller's now. Keys are never forgotten.
type TokenBucketRule struct {
	flatState[tokenBucketState]
	p        Params
	capacity int64 // burst*windowMs units
}

type tokenBucketState struct {
	latest int64 // instant the deficit was computed at
	used   int64 // units in use at latest: burst*windowMs - tokens*windowMs
}

// NewTokenBucketRule is token-bucket's rule, its parameters validated as
// New does.
func NewTokenBucketRule(p Params) (*TokenBucketRule, error) {
	return ruleOf(TokenBucket, p, newTokenBucketRule)
}

func newTokenBucketRule(p Params) *TokenBucketRule {
	return &TokenBucketRule{p: p, capacity: p.Burst * p.WindowMs}
}

// Name returns "token-bucket".
func (t *TokenBucketRule) Name() string { return TokenBucket }

// Params returns the parameters, with Burst 0 reported as Limit.
func (t *TokenBucketRule) Params() Params { return t.p }

// Never implements Rule: a cost above the burst.
func (t *TokenBucketRule) Never(cost int64) bool { return neverFits(cost, t.p.Burst) }

// used is the deficit in units at instant at >= st.latest.
func (t *TokenBucketRule) used(st tokenBucketState, at int64) int64 {
	return max(0, st.used-t.p.Limit*(at-st.latest))
}

// retryAt is the instant a refused request of cost, whose key holds used
// units at instant at, is first admitted if nothing else arrives:
// ⌈(used + cost*windowMs - capacity)/limit⌉ after at.
func (t *TokenBucketRule) retryAt(at, used, cost int64) int64 {
	return at + ceilDiv(used+cost*t.p.WindowMs-t.capacity, t.p.Limit)
}

// Decide implements Rule, filling its named result field by field (see
// GCRARule.Decide).
func (t *TokenBucketRule) Decide(st *tokenBucketState, now, cost int64) (d Decision) {
	t.decideOn(st, now, cost, &d)
	return d
}

// Unseen implements Rule.
func (t *TokenBucketRule) Unseen(now, cost int64) Decision {
	var st tokenBucketState
	return t.Decide(&st, now, cost)
}

// decideOn fills *d, which must be zero, and reports whether it changed
// st: a request that can never be admitted changes nothing.
func (t *TokenBucketRule) decideOn(st *tokenBucketState, now, cost int64, d *Decision) bool {
	now = clampTime(now)
	at, late := decideAt(now, st.latest)
	used := t.used(*st, at)
	w := t.p.WindowMs
	d.At, d.Late = at, late
	d.Estimate = Fraction{used, w}
	d.Capacity, d.Cost = t.p.Burst, cost
	TokenBucketTerms{Tokens: Fraction{t.capacity - used, w}}.fill(&d.Terms)
	if neverFits(cost, t.p.Burst) {
		d.Never = true // and changes nothing
		return false
	}
	if missing := used + cost*w - t.capacity; missing <= 0 {
		d.Allowed = true
		used += cost * w
	} else {
		d.RetryAfterMs = t.retryAt(at, used, cost) - now
	}
	*st = tokenBucketState{latest: at, used: used}
	return true
}

// Allow implements Rule.
func (t *TokenBucketRule) Allow(st *tokenBucketState, now, cost int64) Verdict {
	if t.Never(cost) {
		return Verdict{Never: true}
	}
	now = clampTime(now)
	at, _ := decideAt(now, st.latest)
	if used, ok := t.take(st, at, cost); !ok {
		return Verdict{RetryAfterMs: t.retryAt(at, used, cost) - now}
	}
	return Verdict{Allowed: true}
}

// take is Allow's change of state for a request that fits, decided at
// instant at >= st.latest: it admits the request if the bucket holds its
// cost, and reports the units in use before it.
func (t *TokenBucketRule) take(st *tokenBucketState, at, cost int64) (used int64, ok bool) {
	used = t.used(*st, at)
	if used+cost*t.p.WindowMs > t.capacity {
		*st = tokenBucketState{latest: at, used: used}
		return used, false
	}
	*st = tokenBucketState{latest: at, used: used + cost*t.p.WindowMs}
	return used, true
}

// Peek implements Rule: permits in use at now.
func (t *TokenBucketRule) Peek(ps *tokenBucketState, now int64) Fraction {
	st := valueOrZero(ps)
	at, _ := decideAt(clampTime(now), st.latest)
	return Fraction{t.used(st, at), t.p.WindowMs}
}

// Snapshot implements Rule.
func (t *TokenBucketRule) Snapshot(ps *tokenBucketState, now int64) State {
	st := valueOrZero(ps)
	at, _ := decideAt(clampTime(now), st.latest)
	used := t.used(st, at)
	return State{Estimate: Fraction{used, t.p.WindowMs}, Capacity: t.p.Burst, Held: TokenBucketHeld{Tokens: Fraction{t.capacity - used, t.p.WindowMs}}}
}

// Stats implements Rule: two integers per key.
func (*TokenBucketRule) Stats(keys int) Stats {
	return Stats{Keys: keys, Entries: 2 * int64(keys), BytesPerKey: int64(unsafe.Sizeof(tokenBucketState{}))}
}

// TokenBucketTerms are the numbers a token-bucket decision was computed
// from.
type TokenBucketTerms struct {
	Tokens Fraction // tokens available before the request
}

// fill writes the terms into *d, which is zero (each decideOn fills a zero
// Decision): only the tag and the words used are stored, in place, which
// costs a decision less than building a Terms and copying it.
func (t TokenBucketTerms) fill(d *Terms) {
	d.tag = tokenBucketTag
	d.w[0], d.w[1] = t.Tokens.Num, t.Tokens.Den
}

// TokenBucket reads a token-bucket decision's terms (zero for another
// policy's).
func (t Terms) TokenBucket() TokenBucketTerms {
	w := t.termsOf(tokenBucketTag)
	return TokenBucketTerms{Tokens: Fraction{w[0], w[1]}}
}

// TokenBucketHeld is what token-bucket holds for a key: its tokens.
type TokenBucketHeld struct {
	Tokens Fraction
}

// Policy implements Held.
func (TokenBucketHeld) Policy() string { return TokenBucket }

// Absorb implements Rule: the request is charged at max(at, latest),
// as the late rule decides, whether or not it fits. At or after the latest
// instant that is what Decide does. Earlier, the bucket cannot know whether
// it would have refilled to full between at and latest, which would have
// spilled part of the refill and so part of the charge; charging the whole
// cost is the upper bound of the truth (by at most the refill over
// latest-at), so a report that comes late never admits more than the
// report on time would have.
//
// The units in use saturate at lineCap, which changes no decision up to
// MaxTime.
func (t *TokenBucketRule) Absorb(st *tokenBucketState, at, cost int64) {
	if t.Never(cost) {
		return
	}
	at = max(clampTime(at), st.latest)
	used := t.used(*st, at) + cost*t.p.WindowMs
	*st = tokenBucketState{latest: at, used: min(used, lineCap(t.p.Limit, t.capacity)-at*t.p.Limit)}
}

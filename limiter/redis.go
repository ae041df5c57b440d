package limiter

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/windowlab/playground/policies"
)

// The Redis form of each policy is one Lua script (redis/<policy>.lua, after
// redis/prelude.lua), run in one round trip: the key's state is read,
// decided on and written inside Redis, so concurrent app servers deciding
// the same key cannot both see the room that only one of them may take.
//
//go:embed redis/*.lua
var redisScripts embed.FS

// scripts holds one go-redis Script per policy with a Redis form, built
// once, after every policy's file has registered its form: Run sends
// EVALSHA and falls back to EVAL when Redis answers NOSCRIPT (after a
// restart or a SCRIPT FLUSH).
var scripts = sync.OnceValue(func() map[string]*redis.Script {
	prelude, err := redisScripts.ReadFile("redis/prelude.lua")
	if err != nil {
		panic(err) // the embed names it, so only a build mistake loses it
	}
	out := map[string]*redis.Script{}
	for _, name := range RedisNames() {
		body, err := redisScripts.ReadFile("redis/" + strings.ReplaceAll(name, "-", "_") + ".lua")
		if err != nil {
			panic(fmt.Sprintf("limiter: %s has a Redis form but no script: %v", name, err)) // a build mistake
		}
		out[name] = redis.NewScript(string(prelude) + string(body))
	}
	return out
})

// RedisNames lists the policies that have a Redis form, in the order of
// policies.Names.
func RedisNames() []string {
	var out []string
	for _, name := range policies.Names {
		if _, ok := redisForms.Lookup(name); ok {
			out = append(out, name)
		}
	}
	return out
}

// redisForm is what one policy's script takes besides the instant, the
// cost, the TTL pad, the limit and the window, and how its reply reads.
// Each policy's own file (<policy>.go, beside its script in redis/) holds
// one and registers it (registerRedis), so NewRedis looks a policy up
// instead of switching on its name.
type redisForm struct {
	name string
	// args are the policy's own settings, in the order its script reads
	// them after the limit and the window.
	args func(p policies.Params) []any
	// capacity is what the estimate is compared with (the limit unless
	// set); estDen the estimate's denominator (1 unless set).
	capacity, estDen func(p policies.Params) int64
	// multiplies is true for a script that multiplies counts by times, so
	// that RedisMaxExact bounds its settings.
	multiplies bool
	// wholeMs is true for a reply whose estimate carries whole ms in a
	// sixth number (gcra's TAT, joined in int64 where Lua could not).
	wholeMs bool
	// delays is true for a reply whose sixth number is the admitted
	// request's wait in a queue (leaky-bucket's DelayMs).
	delays bool
}

// redisForms holds each policy's Redis form, registered from its own file
// here; a policy added to package policies without one has no Redis form
// yet, which NewRedis says.
var redisForms = policies.NewByName[redisForm]("limiter")

// registerRedis records f as its policy's Redis form.
func registerRedis(f redisForm) { redisForms.Register(f.name, f) }

// RedisMaxExact bounds (max(limit, burst)+1) × windowMs for the policies whose
// scripts multiply counts by times: Lua numbers are doubles, exact integers
// only up to 2^53, and the scripts form products up to four times this.
const RedisMaxExact = 1 << 51

// RedisOptions configures a Redis form. The zero value decides on the
// caller's time.Now, under the prefix "wl:<policy>:".
type RedisOptions struct {
	// Now is the caller's clock in ms since the epoch; nil means
	// time.Now().UnixMilli. Passing the time in makes a decision a
	// function of its arguments, so a replay on a virtual clock is exact.
	Now func() int64
	// ServerTime reads Redis TIME inside the script instead, so that
	// several app servers share one clock without synchronising theirs.
	// Its costs: some managed Redis services refuse TIME in scripts; from
	// Redis 7.2 on, TIME is frozen for one script's run (harmless here, as
	// a decision reads it once); before Redis 5, a script that read TIME
	// may not write; and replays can no longer be exact.
	ServerTime bool
	// Prefix comes before every key; "" means "wl:<policy>:". Two forms
	// with different settings must not share a prefix.
	Prefix string
	// TTLPadMs is added to every TTL. A key's TTL is the time its state
	// matters to the policy on the caller's clock; a clock that does not
	// run with Redis's (a replay on a virtual clock, an app server behind
	// Redis) pads it so that Redis does not forget a key still needed.
	TTLPadMs int64
}

// Redis is one policy deciding in Redis. It is safe for concurrent use; the
// state lives in Redis, one key per client key, with a TTL on every write.
type Redis struct {
	rdb      redis.UniversalClient
	name     string
	p        policies.Params
	script   *redis.Script
	form     redisForm
	args     []any // the policy's own settings, after now, cost and pad
	capacity int64
	estDen   int64 // the estimate's denominator
	opts     RedisOptions
}

// NewRedis builds the Redis form of the named policy with the same
// validation as policies.New, plus the bound RedisMaxExact. Errors name the
// parameter and the reason.
func NewRedis(rdb redis.UniversalClient, name string, p policies.Params, opts RedisOptions) (*Redis, error) {
	pol, err := policies.New(name, p)
	if err != nil {
		return nil, err
	}
	p = pol.Params()
	script := scripts()[name]
	if script == nil {
		return nil, fmt.Errorf("limiter: %s has no Redis form yet", name)
	}
	if opts.TTLPadMs < 0 {
		return nil, fmt.Errorf("limiter: %s: TTLPadMs %d is negative", name, opts.TTLPadMs)
	}
	if opts.Prefix == "" {
		opts.Prefix = "wl:" + name + ":"
	}
	if opts.Now == nil {
		opts.Now = func() int64 { return time.Now().UnixMilli() }
	}
	form, _ := redisForms.Lookup(name)
	r := &Redis{rdb: rdb, name: name, p: p, script: script, form: form, capacity: p.Limit, estDen: 1, opts: opts}
	r.args = []any{p.Limit, p.WindowMs}
	if form.args != nil {
		r.args = append(r.args, form.args(p)...)
	}
	if form.capacity != nil {
		r.capacity = form.capacity(p)
	}
	if form.estDen != nil {
		r.estDen = form.estDen(p)
	}
	if form.multiplies {
		if m := (max(p.Limit, p.Burst) + 1) * p.WindowMs; m > RedisMaxExact {
			return nil, fmt.Errorf("limiter: %s: (max(limit, burst)+1) × windowMs = %d is above 2^51, past which the script's Lua numbers (doubles) are not exact integers", name, m)
		}
	}
	return r, nil
}

// Name is the policy's name.
func (r *Redis) Name() string { return r.name }

// Params are the policy's settings, normalised as policies.New does.
func (r *Redis) Params() policies.Params { return r.p }

// Key is the Redis key holding a client key's state: the prefix, then the
// key as a hash tag, so that on Redis Cluster whatever a decision touches
// is in the key's one slot.
func (r *Redis) Key(key string) string { return r.opts.Prefix + "{" + key + "}" }

// RedisRequest is one decision of a batch: At is the caller's instant in ms
// (unused with ServerTime).
type RedisRequest struct {
	Key  string
	At   int64
	Cost int64
}

// Allow decides a request of cost permits for key now, on the caller's
// clock (or Redis's, with ServerTime), as the Go policy's Allow would. When
// Redis fails it returns the error and a zero Verdict, which is not a
// decision: whether to admit without Redis is the caller's choice.
func (r *Redis) Allow(ctx context.Context, key string, cost int64) (policies.Verdict, error) {
	d, err := r.Decide(ctx, key, cost)
	if err != nil {
		return policies.Verdict{}, err
	}
	return d.Verdict(), nil
}

// Decide is Allow with the rest of the decision: the instant decided at,
// whether it was late, the estimate before the request, the capacity and
// the cost. Terms are left zero.
func (r *Redis) Decide(ctx context.Context, key string, cost int64) (policies.Decision, error) {
	var now int64
	if !r.opts.ServerTime {
		now = r.opts.Now()
	}
	return r.DecideAt(ctx, key, now, cost)
}

// DecideAt is Decide at the caller's instant now (ignored with ServerTime),
// for a caller that keeps its own clock per request, as a replay does.
func (r *Redis) DecideAt(ctx context.Context, key string, now, cost int64) (policies.Decision, error) {
	v, err := r.script.Run(ctx, r.rdb, []string{r.Key(key)}, r.argv(now, cost)...).Int64Slice()
	if err != nil {
		return policies.Decision{}, fmt.Errorf("limiter: %s: %w", r.name, err)
	}
	return r.decision(v, cost)
}

// Batch decides reqs in order in one round trip (a pipeline of EVALSHA),
// which is what a service deciding many keys at once, or a replay, wants.
// Should Redis have lost the script, the requests it refused with NOSCRIPT
// are sent again, in order, with the script's source. On any other error
// Batch returns it and no decisions, although Redis may have decided some.
func (r *Redis) Batch(ctx context.Context, reqs []RedisRequest) ([]policies.Decision, error) {
	cmds := make([]*redis.Cmd, len(reqs))
	send := func(idx []int, eval bool) error {
		_, err := r.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, i := range idx {
				q := reqs[i]
				keys, argv := []string{r.Key(q.Key)}, r.argv(q.At, q.Cost)
				if eval {
					cmds[i] = r.script.Eval(ctx, p, keys, argv...)
				} else {
					cmds[i] = r.script.EvalSha(ctx, p, keys, argv...)
				}
			}
			return nil
		})
		return err
	}
	all := make([]int, len(reqs))
	for i := range all {
		all[i] = i
	}
	if err := send(all, false); err != nil {
		var again []int
		for i, c := range cmds {
			if e := c.Err(); e != nil {
				if !redis.HasErrorPrefix(e, "NOSCRIPT") {
					return nil, fmt.Errorf("limiter: %s: request %d: %w", r.name, i, e)
				}
				again = append(again, i)
			}
		}
		if err := send(again, true); err != nil {
			return nil, fmt.Errorf("limiter: %s: %w", r.name, err)
		}
	}
	out := make([]policies.Decision, len(reqs))
	for i, c := range cmds {
		v, err := c.Int64Slice()
		if err != nil {
			return nil, fmt.Errorf("limiter: %s: request %d: %w", r.name, i, err)
		}
		if out[i], err = r.decision(v, reqs[i].Cost); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// argv is the script's arguments: now clamped as the policies clamp it (an
// empty string asks for Redis TIME), the cost, the TTL pad, the settings.
func (r *Redis) argv(now, cost int64) []any {
	var at any = min(max(now, 0), policies.MaxTime)
	if r.opts.ServerTime {
		at = ""
	}
	return append([]any{at, cost, r.opts.TTLPadMs}, r.args...)
}

// decision reads a script's reply {code, now, at, retryAfterMs, estimate}
// (gcra: the estimate as r, q-now, joined here in int64 where Lua could not;
// leaky-bucket: then the wait in the queue).
func (r *Redis) decision(v []int64, cost int64) (policies.Decision, error) {
	if len(v) < 5 || v[0] < 0 || v[0] > 2 {
		return policies.Decision{}, fmt.Errorf("limiter: %s: the script replied %v, not {code, now, at, retry, estimate}", r.name, v)
	}
	num := v[4]
	if r.form.wholeMs {
		if len(v) < 6 {
			return policies.Decision{}, errors.New("limiter: gcra: the script's reply lacks the TAT's whole ms")
		}
		num += v[5] * r.p.Limit
	}
	var delay int64
	if r.form.delays {
		if len(v) < 6 {
			return policies.Decision{}, fmt.Errorf("limiter: %s: the script's reply lacks the wait in the queue", r.name)
		}
		delay = v[5]
	}
	now, at := v[1], v[2]
	return policies.Decision{
		Allowed:      v[0] == 1,
		Never:        v[0] == 2,
		RetryAfterMs: v[3],
		DelayMs:      delay,
		At:           at,
		Late:         at > now,
		Estimate:     policies.Fraction{Num: num, Den: r.estDen},
		Capacity:     r.capacity,
		Cost:         cost,
	}, nil
}

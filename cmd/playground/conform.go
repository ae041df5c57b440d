package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/windowlab/playground/conform"
	"github.com/windowlab/playground/policies"
)

// conformArgs is conform's synopsis.
const conformArgs = "-policy NAME -limit N -window MS [options] (-url URL | -redis URL -script FILE)"

// conformMaxRequests bounds what conform sends an endpoint in all by
// default, and conformMaxRequestsCap what -max-requests may ask: the
// endpoint is someone's server.
const (
	conformMaxRequests    = 300
	conformMaxRequestsCap = 5000
)

// runConform checks an HTTP endpoint (paced in real time) or a Redis
// script (on the virtual clock) against a registry policy with package
// conform: exit 0 when it agrees, 1 with the smallest counterexample when
// it differs, 2 on bad input.
func runConform(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("conform", conformArgs, "Check a rate limiter against a policy: an HTTP endpoint that enforces it (GET, the\nclient's key in a header, requests sent in real time at the scenarios' instants,\nloopback only unless -allow-host names the host), or a Redis script (KEYS[1] the\nkey; ARGV now ms, cost, limit, windowMs, burst, delay; reply {allowed,\nretryAfterMs, remaining, resetMs}). Exits 1 with the smallest counterexample\nfound, as scenario JSON simulate replays, and 0 when the limiter agrees.\n\n"+policyHelp(), stderr)
	policy := fs.String("policy", "", "the policy the limiter should follow: "+strings.Join(policies.Names, ", "))
	limit := fs.Int64("limit", 0, "permits per window")
	window := fs.Int64("window", 0, "the window in ms (for an endpoint, small: a few hundred ms keeps the run short)")
	options := optionFlags(fs)
	target := fs.String("url", "", "the endpoint to check (GET)")
	keyHeader := fs.String("key-header", "X-Client-Key", "the request header carrying the client's key, which the endpoint limits by")
	refused := fs.String("refused", "429", "the statuses that mean refused, comma-separated (nginx's limit_req answers 503 unless told)")
	reports := fs.String("reports", "retry-after", "the fields the limiter reports besides allowed, comma-separated: retry-after, remaining, reset, headers (RateLimit and RateLimit-Policy)")
	allowHost := fs.String("allow-host", "", "the one non-loopback host -url may name")
	tolerance := fs.Duration("tolerance", 100*time.Millisecond, "an endpoint's clock tolerance: a request decided this near a change of the policy's answer is not judged")
	maxRequests := fs.Int("max-requests", conformMaxRequests, fmt.Sprintf("the most requests sent in all (at most %d)", conformMaxRequestsCap))
	redisURL := fs.String("redis", "", "the Redis to run -script on (redis://host:port/db)")
	scriptFile := fs.String("script", "", "the Lua script to check on -redis")
	seed := fs.Uint64("seed", 1, "the random scenarios' seed")
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	if fs.NArg() > 0 {
		return usagef("conform: unexpected argument %q (usage: playground conform %s)", fs.Arg(0), conformArgs)
	}
	p := policies.Params{Limit: *limit, WindowMs: *window}
	for _, f := range options {
		if err := f.setIn(&p); err != nil {
			return err
		}
	}
	if in, ok := policies.Lookup(*policy); ok {
		for _, o := range in.Options {
			o.Resolve(&p) // a flag left out is the option's default, as a scenario's is
		}
	}
	if _, err := policies.Normalised(*policy, p); err != nil {
		return usagef("conform: %v", strings.TrimPrefix(err.Error(), "policies: "))
	}
	fields, err := parseFields(*reports)
	if err != nil {
		return usagef("conform: -reports: %v", err)
	}
	if *maxRequests < 1 || *maxRequests > conformMaxRequestsCap {
		return usagef("conform: -max-requests %d is out of range [1, %d]", *maxRequests, conformMaxRequestsCap)
	}
	opts := []conform.Option{conform.Seed(*seed), conform.MaxRequests(*maxRequests)}
	var t conform.Target
	switch {
	case *target != "" && (*redisURL != "" || *scriptFile != ""):
		return usagef("conform: give -url, or -redis and -script, not both")
	case *target != "":
		if err := loopbackOnly(*target, *allowHost); err != nil {
			return err
		}
		var statuses []int
		for _, s := range strings.Split(*refused, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || n < 400 || n > 599 {
				return usagef("conform: -refused: %q is not a 4xx or 5xx status", s)
			}
			statuses = append(statuses, n)
		}
		if *tolerance < 0 {
			return usagef("conform: -tolerance %s is negative", *tolerance)
		}
		t = conform.HTTP(*target, conform.HTTPOptions{URL: *target, KeyHeader: *keyHeader, Refused: statuses, Reports: fields, ToleranceMs: max(tolerance.Milliseconds(), 1)})
		// An endpoint takes one permit a request.
		opts = append(opts, conform.CostOne())
	case *redisURL != "" && *scriptFile != "":
		ropts, err := parseRedisURL(*redisURL)
		if err != nil {
			return err
		}
		lua, err := os.ReadFile(*scriptFile)
		if err != nil {
			return usagef("conform: -script: %v", err)
		}
		redis.SetLogger(quiet{})
		rdb := redis.NewClient(ropts)
		defer rdb.Close()
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if err := rdb.Ping(pctx).Err(); err != nil {
			return fmt.Errorf("conform: Redis at %s does not answer: %w", ropts.Addr, err)
		}
		t = conform.RedisScript(*scriptFile, rdb, string(lua), fields)
	default:
		return usagef("conform: give -url URL, or -redis URL and -script FILE (usage: playground conform %s)", conformArgs)
	}
	rep, err := conform.Run(ctx, t, *policy, p, opts...)
	if err != nil {
		return fmt.Errorf("conform: %w", err)
	}
	fmt.Fprintln(stdout, rep.Text())
	if !rep.Agrees() {
		return fmt.Errorf("conform: %s differs from %s (the counterexample is above)", t.Name, *policy)
	}
	return nil
}

// optionFlag is the flag of one option some policy takes, named as the
// option is in scenarios: a Number's whole number (num), or the words of
// a Choice or of a Number with a word of its own (word).
type optionFlag struct {
	o    policies.Option
	num  *int64
	word *string
}

// optionFlags defines a flag for every option some policy takes, each
// left out (0, or a Choice's empty word) unless given.
func optionFlags(fs *flag.FlagSet) []optionFlag {
	var out []optionFlag
	for _, o := range policies.Options() {
		help := fmt.Sprintf("the %s of %s", o.Name, policies.JoinNames(policies.Taking(o.Name)))
		f := optionFlag{o: o}
		switch {
		case o.Kind == policies.Choice:
			f.word = fs.String(o.Name, "", fmt.Sprintf("%s: %s (left out: %s)", help, strings.Join(o.Choices, " or "), o.Choices[0]))
		case o.Word != "":
			f.word = fs.String(o.Name, "0", fmt.Sprintf("%s: a whole number or %q", help, o.Word))
		default:
			f.num = fs.Int64(o.Name, 0, fmt.Sprintf("%s (0: %s)", help, o.LeftOut))
		}
		out = append(out, f)
	}
	return out
}

// setIn sets the flag's option in *p: a word a Choice does not take is
// left for policies.Normalised to refuse, naming the option.
func (f optionFlag) setIn(p *policies.Params) error {
	switch {
	case f.num != nil:
		f.o.Set(p, *f.num)
	case f.o.Kind == policies.Choice:
		f.o.SetWord(p, *f.word)
	case *f.word == f.o.Word:
		f.o.Set(p, f.o.WordValue)
	default:
		n, err := strconv.ParseInt(*f.word, 10, 64)
		if err != nil {
			return usagef("conform: -%s %q is neither a whole number nor %q", f.o.Name, *f.word, f.o.Word)
		}
		f.o.Set(p, n)
	}
	return nil
}

// parseFields reads -reports.
func parseFields(s string) (conform.Fields, error) {
	var f conform.Fields
	for _, w := range strings.Split(s, ",") {
		switch strings.TrimSpace(w) {
		case "":
		case "retry-after":
			f |= conform.RetryAfter
		case "remaining":
			f |= conform.Remaining
		case "reset":
			f |= conform.Reset
		case "headers":
			f |= conform.Headers
		default:
			return 0, fmt.Errorf("%q is none of retry-after, remaining, reset, headers", w)
		}
	}
	return f, nil
}

// loopbackOnly refuses an endpoint off this machine unless allowHost
// names its host: conform sends hundreds of requests, and a typo should
// not aim them at someone else's server.
func loopbackOnly(raw, allowHost string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usagef("conform: -url %q is not an http:// or https:// URL", raw)
	}
	host := u.Hostname()
	if allowHost != "" && strings.EqualFold(host, allowHost) {
		return nil
	}
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return usagef("conform: -url names %s, which is not this machine: give -allow-host %s to send it requests", host, host)
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/redis/go-redis/v9"
	"github.com/windowlab/playground/explain"
	"github.com/windowlab/playground/scenario"
)

// simulateArgs is simulate's synopsis, one string so that -h and the
// message for a wrong argument count cannot name different flags.
const simulateArgs = "[--json] [--headers] [-redis URL] [FILE|-]"

// runSimulate reads a scenario from a file or standard input and prints the
// decisions of every policy side by side, or as JSON with --json; with
// --headers each decision's response headers too, from explain.Headers,
// the code the playground's panel shows them with.
func runSimulate(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("simulate", simulateArgs, "Run a scenario (a file, or standard input for - or no FILE) through its\npolicies and print every decision side by side.\n\n"+policyHelp(), stderr)
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	withHeaders := fs.Bool("headers", false, "also give each decision's response headers, as a server enforcing the policy would send them: the status, Retry-After on a refusal, Server-Timing on a queued request, and the RateLimit-Policy and RateLimit fields of draft-ietf-httpapi-ratelimit-headers (after the table, one policy after another; with --json a \"headers\" object in each decision). On several servers they are the deciding node's")
	redisURL := fs.String("redis", "", "also decide every request through each policy's Redis script at this URL (redis://host:port) and say where it differs from Go; with --json this goes to standard error. Exits 1 when Redis cannot be asked or any decision differs")
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	var redisOpts *redis.Options
	if *redisURL != "" {
		var err error
		if redisOpts, err = parseRedisURL(*redisURL); err != nil {
			return err
		}
	}
	if fs.NArg() > 1 {
		return usagef("simulate: one scenario at a time (usage: playground simulate %s)", simulateArgs)
	}
	in, name := stdin, "standard input"
	if path := fs.Arg(0); path != "" && path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return usagef("simulate: %v", err)
		}
		defer f.Close()
		in, name = f, path
	}
	s, err := scenario.Decode(in)
	if err != nil {
		return usagef("%s: %v", name, err)
	}
	run := scenario.RunContext
	if *withHeaders {
		run = explain.Run
	}
	res, err := run(context.Background(), s)
	if err != nil {
		var fe scenario.Errors
		if errors.As(err, &fe) {
			return usagef("%s: %v", name, err)
		}
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
		if redisOpts != nil {
			return replayOnRedis(redisOpts, s, res, stderr)
		}
		return nil
	}
	if err := explain.Table(stdout, res); err != nil {
		return fmt.Errorf("writing table: %w", err)
	}
	if err := explain.TableLegend(stdout, res); err != nil {
		return fmt.Errorf("writing table: %w", err)
	}
	if *withHeaders {
		if err := explain.HeadersText(stdout, res); err != nil {
			return fmt.Errorf("writing headers: %w", err)
		}
	}
	if redisOpts != nil {
		return replayOnRedis(redisOpts, s, res, stdout)
	}
	return nil
}

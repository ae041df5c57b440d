package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
	"github.com/windowlab/playground/traffic"
)

// trafficArgs is traffic's synopsis.
const trafficArgs = "[--limit N] [--window D] [--policies P,…] [--key K] [--json|--csv] [--sweep FROM:TO:STEP] [--fit clients:1%] [--scenario-of KEY] [FILE|-]"

// runTraffic replays an access log through the policies, per client, and
// prints per policy what it admitted and refused and whom it refused most;
// or sweeps limits; or fits the smallest limit meeting a target; or writes
// one client's requests as a scenario. docs/traffic.md is its manual.
func runTraffic(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("traffic", trafficArgs, "Replay an access log (a file, or standard input for - or no FILE; gzip or not) through\nthe policies, each client counted apart, and say whom each would refuse.\nFormats: combined, common, jsonl, csv (time,key[,cost]), har. See docs/traffic.md.\n\n"+policyHelp(), stderr)
	format := fs.String("format", "auto", "the log's format: auto (told from the first line), combined, common, jsonl, csv or har")
	keyFlag := fs.String("key", "client", "what counts as one client: client, user, path, path:N (its first N segments), host, agent, referer, field:NAME (JSON), header:NAME (HAR), or several joined by +")
	timeField := fs.String("time-field", "time", "jsonl: the field holding each request's time (RFC 3339, or epoch s, ms or µs; a.b for a nested field)")
	keyField := fs.String("key-field", "client", "jsonl: the field the key part client reads")
	costField := fs.String("cost-field", "", "jsonl: the field holding each request's cost (default: every request costs 1)")
	unitFlag := fs.String("time-unit", "auto", "jsonl and csv: what a numeric time counts: auto (by its size), s, ms or us")
	limit := fs.Int64("limit", 100, fmt.Sprintf("permits per window, 1 to %d", scenario.MaxLimit))
	window := fs.String("window", "1m", "the window: a duration (1m, 30s, 500ms) or milliseconds")
	policyFlag := fs.String("policies", strings.Join(policies.Names, ","), "the policies, comma-separated, in the short form lessons use (token-bucket/20 for a burst of 20, sliding-counter/exact, leaky-bucket/5/nodelay)")
	asJSON := fs.Bool("json", false, "print JSON (docs/traffic.md gives its fields)")
	asCSV := fs.Bool("csv", false, "print CSV: a row per policy, then a row per client under it")
	top := fs.Int("top", -1, "clients listed per policy, refused most first (default 10 in the table, all with --json or --csv; 0 all)")
	sweep := fs.String("sweep", "", "run every policy at each of these limits (FROM:TO:STEP or a list 10,20,50) and report the share of requests and of clients refused")
	fit := fs.String("fit", "", "find each policy's smallest limit meeting a target: clients:SHARE (at most SHARE of clients ever refused) or requests:SHARE, SHARE as 1% or 0.01")
	scenarioOf := fs.String("scenario-of", "", "print this client's requests (its first 10,000, sorted by time) as a scenario for simulate and the playground, instead of a report")
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	if fs.NArg() > 1 {
		return usagef("traffic: one log at a time (usage: playground traffic %s)", trafficArgs)
	}
	modes := 0
	for _, on := range []bool{*sweep != "", *fit != "", *scenarioOf != ""} {
		if on {
			modes++
		}
	}
	if modes > 1 || *asJSON && *asCSV {
		return usagef("traffic: choose one of --sweep, --fit and --scenario-of, and one of --json and --csv")
	}
	opts, set, err := trafficSettings(*format, *keyFlag, *timeField, *keyField, *costField, *unitFlag, *limit, *window, *policyFlag)
	if err != nil {
		return usagef("traffic: %v", err)
	}
	src, closer, err := traffic.Open(fs.Arg(0), stdin)
	if err != nil {
		return badLog(err)
	}
	defer closer.Close()
	switch {
	case *sweep != "":
		limits, err := traffic.ParseLimits(*sweep)
		if err != nil {
			return usagef("traffic: %v", err)
		}
		rep, err := traffic.Sweep(ctx, src, opts, set, limits)
		if err != nil {
			return badLog(err)
		}
		return writeTraffic(stdout, rep, *asJSON, *asCSV, traffic.WriteSweepCSV, traffic.WriteSweepText)
	case *fit != "":
		target, err := traffic.ParseTarget(*fit)
		if err != nil {
			return usagef("traffic: %v", err)
		}
		opts.WindowMs = set.WindowMs
		t, err := traffic.Load(src, opts, 0)
		if err != nil {
			return badLog(err)
		}
		rep, err := traffic.FitTrace(ctx, t, set, target)
		if err != nil {
			return badLog(err)
		}
		return writeTraffic(stdout, rep, *asJSON, *asCSV, traffic.WriteFitCSV, traffic.WriteFitText)
	case *scenarioOf != "":
		set.Policies = set.Specs()
		opts.WindowMs = set.WindowMs
		capture, _, err := traffic.CaptureClient(src, opts, *scenarioOf)
		if err != nil {
			return badLog(err)
		}
		s, err := traffic.ClientScenario(set, *scenarioOf, capture.Requests)
		if err != nil {
			return badLog(err)
		}
		if capture.Truncated {
			fmt.Fprintf(stderr, "traffic: client %q sent more than %d requests; the scenario holds the first %d\n", *scenarioOf, scenario.MaxRequests, scenario.MaxRequests)
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	n := *top
	if n < 0 {
		n = 10
		if *asJSON || *asCSV {
			n = 0
		}
	}
	rep, err := traffic.Replay(ctx, src, opts, set, traffic.ReplayOptions{Top: n})
	if err != nil {
		return badLog(err)
	}
	return writeTraffic(stdout, rep, *asJSON, *asCSV, traffic.WriteCSV, func(w io.Writer, r traffic.Report) error {
		return traffic.WriteText(w, r, n)
	})
}

// writeTraffic prints a report as JSON, CSV or text.
func writeTraffic[R any](w io.Writer, rep R, asJSON, asCSV bool, csv, text func(io.Writer, R) error) error {
	switch {
	case asJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	case asCSV:
		return csv(w, rep)
	}
	return text(w, rep)
}

// badLog makes what is wrong with the log, or the way it was asked to be
// read, the user's mistake (exit status 2).
func badLog(err error) error {
	if errors.Is(err, traffic.ErrBadLog) {
		return usagef("%v", err)
	}
	return err
}

// trafficSettings reads the flags that say how to read the log and what
// to run it through.
func trafficSettings(format, key, timeField, keyField, costField, unit string, limit int64, window, policyList string) (traffic.Options, traffic.Settings, error) {
	var opts traffic.Options
	var set traffic.Settings
	var err error
	if opts.Format, err = traffic.ParseFormat(format); err != nil {
		return opts, set, err
	}
	if opts.Key, err = traffic.ParseKey(key); err != nil {
		return opts, set, err
	}
	if opts.Unit, err = traffic.ParseTimeUnit(unit); err != nil {
		return opts, set, err
	}
	opts.TimeField, opts.KeyField, opts.CostField = timeField, keyField, costField
	set.Limit = limit
	if ms, err := strconv.ParseInt(window, 10, 64); err == nil {
		set.WindowMs = ms
	} else if d, err := time.ParseDuration(window); err == nil && d%time.Millisecond == 0 {
		set.WindowMs = d.Milliseconds()
	} else {
		return opts, set, fmt.Errorf("--window %q: want a duration such as 1m or 500ms, or milliseconds", window)
	}
	for _, ref := range strings.Split(policyList, ",") {
		if strings.TrimSpace(ref) == "" {
			continue
		}
		spec, err := scenario.ParsePolicyRef(ref)
		if err != nil {
			return opts, set, fmt.Errorf("--policies: %v", err)
		}
		set.Policies = append(set.Policies, spec)
	}
	if len(set.Policies) == 0 {
		return opts, set, errors.New("--policies: name at least one policy")
	}
	if err := set.Validate(); err != nil {
		return opts, set, fmt.Errorf("%v", strings.TrimPrefix(err.Error(), "traffic: "))
	}
	return opts, set, nil
}

package explain

import (
	"fmt"
	"strings"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// wording is how this package words one policy. Each policy has a file of
// its own here (fixed_window.go, …) whose type implements it and registers
// itself, so the exported functions look a policy up instead of switching
// on its name; a test checks that every policy in the policies registry
// has one.
type wording interface {
	// name is the policy as people read it, from its human name and the
	// options the spec sets.
	name(human string, spec scenario.PolicySpec) string
	// estimateWord is what the policy calls the number it compares with
	// its capacity: a count, an estimate, or the permits in use.
	estimateWord() string
	// working is one decision's arithmetic on one line (see Working).
	working(p Policy, d scenario.Decision) string
	// state is what the policy holds for a key in one line (see State).
	state(s policies.State) string
	// status is what the lane's status line adds about the policy's own
	// state after what is left, "" for nothing (see Status).
	status(s policies.State) string
	// legend says what a lane draws for the policy (see Legend);
	// legendWhileAsked, what it draws while a question is open.
	legend() string
	legendWhileAsked() string
	// stepsInSeconds is true when the policy's steps put durations side by
	// side in a formula, so every one of them, the retry included, is
	// written in seconds.
	stepsInSeconds() bool
	// steps writes the policy's own part of Steps into st.
	steps(st *stepper, pol Policy, det policies.Decision, after policies.State)
	// toWorkOut says what to work out to decide a request at when (the
	// window written as window), by the policy's own arithmetic, without
	// saying how it comes out: a hint's words.
	toWorkOut(p policies.Params, window, when string) string
}

// ToWorkOut says what to work out, by the policy's own arithmetic, to
// decide a request at instant at, without giving the outcome away; "" for
// a policy this package does not word.
func ToWorkOut(name string, p policies.Params, at int64) string {
	return wordingOf(name).toWorkOut(p, scenario.FormatMs(p.WindowMs), scenario.FormatMs(at))
}

// wordings holds each policy's wording, registered from the policies' own
// files.
var wordings = policies.NewByName[wording]("explain")

// register records the wording of the named policy; each policy's file
// calls it once, from init.
func register(name string, w wording) { wordings.Register(name, w) }

// wordingOf is the named policy's wording; a name no policy has (a
// scenario built in Go without validation) gets words that claim nothing
// about its state.
func wordingOf(name string) wording { return wordings.Of(name, unknownPolicy{}) }

// humanName is what people call the policy: its registry entry's human
// name, or its id with spaces for dashes.
func humanName(name string) string {
	if in, ok := policies.Lookup(name); ok {
		return in.Human
	}
	return strings.ReplaceAll(name, "-", " ")
}

// stepper collects the lines of Steps.
type stepper struct {
	lines    []string
	ms       func(int64) string // how the steps write a duration or instant
	capacity int64
}

func (st *stepper) add(format string, args ...any) {
	st.lines = append(st.lines, fmt.Sprintf(format, args...))
}

// verdict compares a total with the capacity: "6 > 5: refused".
func (st *stepper) verdict(total string, fits bool) string {
	if fits {
		return fmt.Sprintf("%s ≤ %d: %s", total, st.capacity, Admitted)
	}
	return fmt.Sprintf("%s > %d: %s", total, st.capacity, Refused)
}

// plusCost is the estimate before the request plus its cost, exactly.
func plusCost(det policies.Decision) policies.Fraction {
	return policies.Fraction{Num: det.Estimate.Num + det.Cost*det.Estimate.Den, Den: det.Estimate.Den}
}

// withNumbers names a policy with the number options its spec sets, as a
// lane's label writes them (policies.Option.Describe): "token bucket
// (burst 10)", "leaky bucket (burst 5, nodelay)", "leaky bucket (no
// queue)", "exponential histogram (k=6)".
func withNumbers(human string, spec scenario.PolicySpec) string {
	in, _ := policies.Lookup(spec.Name)
	var parts []string
	for _, o := range in.Options {
		if v := spec.Option(o); o.Kind == policies.Number && v != 0 {
			parts = append(parts, o.Describe(v))
		}
	}
	if len(parts) == 0 {
		return human
	}
	return human + " (" + strings.Join(parts, ", ") + ")"
}

// unknownPolicy words a policy no file here registered: only its
// estimate, which every decision has.
type unknownPolicy struct{}

func (unknownPolicy) toWorkOut(policies.Params, string, string) string { return "" }

func (unknownPolicy) name(human string, _ scenario.PolicySpec) string { return human }
func (unknownPolicy) estimateWord() string                            { return "estimate" }
func (unknownPolicy) working(_ Policy, d scenario.Decision) string {
	return "estimate " + scenario.FormatFraction(d.Estimate)
}
func (unknownPolicy) state(s policies.State) string {
	return "estimate " + scenario.FormatFraction(s.Estimate)
}
func (unknownPolicy) status(policies.State) string                              { return "" }
func (unknownPolicy) legend() string                                            { return "" }
func (unknownPolicy) legendWhileAsked() string                                  { return "" }
func (unknownPolicy) stepsInSeconds() bool                                      { return false }
func (unknownPolicy) steps(*stepper, Policy, policies.Decision, policies.State) {}

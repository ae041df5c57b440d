package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/windowlab/playground/policies"
	"github.com/windowlab/playground/scenario"
)

// policyHelp lists the policies a scenario may name, each with the options
// it takes, from the policies registry, for simulate's help.
func policyHelp() string {
	var b strings.Builder
	b.WriteString("policies (a scenario's \"policies\": a name, or {\"name\": …, \"<option>\": …}):\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, in := range policies.Registered() {
		var opts []string
		for _, o := range in.Options {
			opts = append(opts, optionHelp(o))
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", in.Name, in.Human, strings.Join(opts, "; "))
	}
	tw.Flush()
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ") // a policy without options pads nothing
	}
	return strings.Join(lines, "\n")
}

// optionHelp describes one option: "burst: 0 to 10000 (0 = limit)".
func optionHelp(o policies.Option) string {
	if o.Kind == policies.Choice {
		return fmt.Sprintf("%s: %s (default %s)", o.Name, strings.Join(o.Choices, " or "), o.Choices[0])
	}
	s := fmt.Sprintf("%s: %d to %d", o.Name, o.Min, min(o.Max, scenario.MaxLimit))
	switch {
	case o.Help != "":
		s += " (" + o.Help + ")"
	case o.Default != 0:
		s += fmt.Sprintf(" (default %d)", o.Default)
	}
	return s
}

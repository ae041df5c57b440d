// Command playground serves the rate-limit playground and runs scenarios
// from the command line.
//
//	playground [serve] [-addr :8080]   start the web server (the default)
//	playground simulate [--json] [--headers] [-redis URL] [FILE|-]
//	playground check FILE|-            validate an exercise, print its computed answer
//	playground traffic [flags] [FILE|-] replay an access log per client (docs/traffic.md)
//	playground nats [-listen ADDR]     a NATS server for replicas of serve to share
//	playground conform …               check an endpoint or a Redis script against a policy
//	playground -h                      list the commands
//
// simulate decodes a scenario (package scenario), runs it through the
// policies and prints package explain's table; check loads the lessons and
// their exercises and prints an exercise's computed answer and working;
// serve builds package web's site on the playground store and lessons.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/windowlab/playground/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// usagef is the user's mistake (exit status 2), in the project's one
// convention for commands.
var usagef = cli.Usagef

func exitCode(err error, stderr io.Writer) int { return cli.ExitCode("playground", err, stderr) }

// usage is the answer to "playground -h": without it, the default command's
// flag set answered, and its "Usage of serve:" hid the other commands.
const usage = `usage: playground [COMMAND] [flags] [args]

commands:
  serve                      start the web server (the default; flags -addr, -datastar, …)
  simulate ` + simulateArgs + `
                             run a scenario through its policies and print the decisions
  check FILE|-               validate an exercise file and print its computed answer
  traffic [flags] [FILE|-]   replay an access log through the policies: whom each would refuse, the limit to choose
  nats [-listen ADDR]        run the NATS server replicas of serve share (serve -nats nats://ADDR)
  conform ` + conformArgs + `
                             check an HTTP endpoint or a Redis script against a policy

"playground COMMAND -h" describes a command and its flags.
`

// run dispatches to a subcommand; serve is the default.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) > 0 && slices.Contains([]string{"-h", "-help", "--help", "help"}, args[0]) {
		fmt.Fprint(stderr, usage)
		return nil
	}
	cmd := "serve"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return runServe(ctx, args, stderr)
	case "simulate":
		return runSimulate(args, stdin, stdout, stderr)
	case "check":
		return runCheck(args, stdin, stdout, stderr)
	case "traffic":
		return runTraffic(ctx, args, stdin, stdout, stderr)
	case "nats":
		return runNATS(ctx, args, stderr)
	case "conform":
		return runConform(ctx, args, stdout, stderr)
	default:
		return usagef("unknown command %q (want serve, simulate, check, traffic, conform or nats)", cmd)
	}
}

// newFlagSet is a subcommand's flag set whose usage (printed for -h, and
// for a bad flag) says what the command does and what it takes.
func newFlagSet(name, synopsis, about string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: playground %s %s\n\n%s\n", name, synopsis, about)
		hasFlags := false
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprintln(stderr, "\nflags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// flagError turns a flag set's parse error into the command's answer: a
// request for help has been answered by the usage text, anything else is
// a usage error (exit status 2) after it.
func flagError(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return cli.Usage{Err: err}
}

// Command benchreport turns the output of one run of the policies' and
// their concurrent forms' benchmarks into the speed tables of
// docs/performance.md, as Markdown, with every ratio computed from that run
// and each goal line marked met or not met by one rule (a ratio at most
// 1.00 as printed is met):
//
//	go test -run '^$' -bench . -benchmem -cpu 1,2 ./policies/ ./limiter/ > /tmp/bench.txt
//	go run ./cmd/benchreport /tmp/bench.txt                 # print the tables
//	go run ./cmd/benchreport -doc docs/performance.md /tmp/bench.txt   # replace them in the doc
//
// With no file it reads standard input. With -count above 1 each number is
// the median of the rounds. -doc replaces what lies between the lines
// "<!-- benchreport:begin -->" and "<!-- benchreport:end -->" and nothing
// else. scripts/bench.sh runs the benchmarks and this in one go.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/windowlab/playground/internal/cli"
)

const (
	beginMarker = "<!-- benchreport:begin -->"
	endMarker   = "<!-- benchreport:end -->"
)

func main() {
	os.Exit(cli.ExitCode("benchreport", run(os.Args[1:], os.Stdin, os.Stdout), os.Stderr))
}

func run(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("benchreport", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	doc := fs.String("doc", "", "replace the tables between the benchreport markers in this Markdown file instead of printing them")
	note := fs.String("note", "", "a sentence added to the opening paragraph, e.g. the machine's load")
	const usage = "usage: benchreport [-doc FILE] [-note TEXT] [BENCH-OUTPUT]"
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(stdout, "%s\n\nTurn one `go test -bench` run of ./policies and ./limiter into the speed tables and goal lines of docs/performance.md.\n\nflags:\n", usage)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return nil
	} else if err != nil {
		return cli.Usagef("%w (%s)", err, usage)
	}
	if fs.NArg() > 1 {
		return cli.Usagef("give one benchmark output file, not %d", fs.NArg())
	}
	in := stdin
	if fs.NArg() == 1 {
		f, err := os.Open(fs.Arg(0))
		if err != nil {
			return cli.Usage{Err: err}
		}
		defer f.Close()
		in = f
	}
	r, err := parseRun(in)
	if err != nil {
		return cli.Usage{Err: err}
	}
	var report bytes.Buffer
	if err := writeReport(&report, r, *note); err != nil {
		return cli.Usage{Err: err}
	}
	if *doc == "" {
		_, err := stdout.Write(report.Bytes())
		return err
	}
	text, err := os.ReadFile(*doc)
	if err != nil {
		return cli.Usage{Err: err}
	}
	out, err := splice(text, report.Bytes())
	if err != nil {
		return cli.Usagef("%s: %w", *doc, err)
	}
	return os.WriteFile(*doc, out, 0o644)
}

// splice replaces the lines between the begin and end markers of doc with
// report, keeping the markers.
func splice(doc, report []byte) ([]byte, error) {
	begin := bytes.Index(doc, []byte(beginMarker+"\n"))
	end := bytes.Index(doc, []byte(endMarker))
	switch {
	case begin < 0 || end < 0:
		return nil, fmt.Errorf("no %q line followed later by %q", beginMarker, endMarker)
	case end < begin:
		return nil, fmt.Errorf("%q comes before %q", endMarker, beginMarker)
	case bytes.Count(doc, []byte(beginMarker)) > 1 || bytes.Count(doc, []byte(endMarker)) > 1:
		return nil, fmt.Errorf("the markers appear more than once")
	}
	start := begin + len(beginMarker) + 1
	var out bytes.Buffer
	out.Write(doc[:start])
	out.Write(report)
	out.Write(doc[end:])
	return out.Bytes(), nil
}

package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/windowlab/playground/exercises"
	"github.com/windowlab/playground/lessons"
)

// runCheck validates one exercise file and prints its question, the answer
// the policies compute and the working behind it. A file that cannot be
// read or is not a valid exercise is a usage error (exit status 2).
//
//	playground check FILE|-
func runCheck(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("check", "FILE|-", "Validate one exercise file (- for standard input) and print its question,\nthe answer the policies compute and the working behind it, for example:\n  playground check exercises/try-it-1-exact.json", stderr)
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	if fs.NArg() != 1 {
		return usagef("check takes one exercise file, or - for standard input: playground check exercises/try-it-1-exact.json")
	}
	name := fs.Arg(0)
	var data []byte
	var err error
	if name == "-" {
		// The name gives the exercise its id when the file has none.
		name = "standard-input"
		data, err = io.ReadAll(io.LimitReader(stdin, maxExerciseBytes+1))
		if err == nil && len(data) > maxExerciseBytes {
			return usagef("check: standard input holds more than %d bytes, more than any exercise file", maxExerciseBytes)
		}
	} else {
		data, err = os.ReadFile(name)
	}
	if err != nil {
		return usagef("check: %v", err)
	}
	lib, err := lessons.Load()
	if err != nil {
		return err
	}
	e, err := exercises.Parse(data, filepath.Base(name), lib)
	if err != nil {
		return usagef("%v", err)
	}
	in := e.Instance(0)
	sol, err := in.Solve()
	if err != nil {
		return usagef("check: %s: computing the answer: %v", name, err)
	}
	// "Another one" must ask another problem: the variants' answers are
	// checked here as the exercises' tests check them.
	if e.Vary == nil {
		return usagef("check: %s: vary: missing; every exercise varies, so that its page can offer another one (see exercises/README.md)", name)
	}
	answers, err := e.VariantAnswers()
	if err != nil {
		return usagef("check: %s: computing a variant's answer: %v", name, err)
	}
	if len(answers) < e.WantAnswers() {
		return usagef("check: %s: vary: seeds 0 to %d give %d answer(s) (%s); a variant must change the answer, so give vary a range that does (at least %d)",
			name, exercises.VariantSeeds-1, len(answers), strings.Join(answers, "; "), e.WantAnswers())
	}
	fmt.Fprintf(stdout, "exercise  %s: %s\n", e.ID, e.Title)
	fmt.Fprintf(stdout, "question  %s\n", in.Question())
	fmt.Fprintf(stdout, "policy    %s\n", strings.Join(in.LaneNames(), ", "))
	fmt.Fprintf(stdout, "answer    %s (computed by running the scenario)\n", sol.Text())
	fmt.Fprintf(stdout, "variants  %d answers over seeds 0 to %d: %s\n", len(answers), exercises.VariantSeeds-1, strings.Join(answers, "; "))
	fmt.Fprintln(stdout, "working:")
	for _, st := range sol.Trace {
		note := ""
		if st.Note != "" {
			note = " — " + st.Note
		}
		fmt.Fprintf(stdout, "  %-8s %s: %s (%s)%s\n", st.When(), st.Policy, st.Outcome, st.Working, note)
	}
	return nil
}

// maxExerciseBytes bounds what check reads from standard input: an
// exercise file is a few kilobytes, and a scenario at most 1 MiB.
const maxExerciseBytes = 2 << 20

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/windowlab/playground/exercises"
	"github.com/windowlab/playground/lessons"
	"github.com/windowlab/playground/room"
)

// runCheck validates one exercise file and prints its question, the answer
// the policies compute and the working behind it; or one workshop deck (a
// file with "steps"), printing each step with its question's answers. A
// file that cannot be read or is not a valid exercise or deck is a usage
// error (exit status 2).
//
//	playground check FILE|-
func runCheck(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("check", "FILE|-", "Validate one exercise or workshop deck file (- for standard input) and print\nits questions with the answers the policies compute, for example:\n  playground check exercises/try-it-1-exact.json\n  playground check decks/introduction.json", stderr)
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
	if isDeck(data) {
		return checkDeck(data, filepath.Base(name), lib, stdout)
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

// isDeck reports whether data is a deck rather than an exercise: a JSON
// object with a "steps" field, which no exercise has.
func isDeck(data []byte) bool {
	var probe map[string]json.RawMessage
	if json.Unmarshal(data, &probe) != nil {
		return false
	}
	_, ok := probe["steps"]
	return ok
}

// checkDeck validates a deck as a room would load it and prints each step
// with its question's computed answer per lane.
func checkDeck(data []byte, name string, lib *lessons.Library, stdout io.Writer) error {
	d, err := room.ParseDeck(data, name, lib, room.DefaultBounds())
	if err != nil {
		return usagef("%v", err)
	}
	fmt.Fprintf(stdout, "deck  %s: %d steps\n", d.Title, len(d.Steps))
	for i, st := range d.Steps {
		fmt.Fprintf(stdout, "%2d. %s\n", i+1, st.Title)
		a, ok := st.Question()
		if !ok {
			continue
		}
		sc, _ := st.Shown()
		q, sol, err := room.Preview(a, sc)
		if err != nil {
			return usagef("check: %s: steps[%d].ask: %v", name, i, err)
		}
		kind, asked := q.Ask()
		timer := "no countdown"
		if a.Timer.Seconds > 0 {
			timer = fmt.Sprintf("%d s countdown", a.Timer.Seconds)
		}
		fmt.Fprintf(stdout, "    asks  %s (%s)\n", kind.Ask(asked), timer)
		width := 0
		for lane := range sol.Truth {
			width = max(width, utf8.RuneCountInString(q.Label(lane)))
		}
		for lane, v := range sol.Truth {
			fmt.Fprintf(stdout, "    %-*s  %s\n", width, q.Label(lane), kind.Word(asked, v))
		}
	}
	return nil
}

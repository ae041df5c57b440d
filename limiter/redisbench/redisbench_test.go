package redisbench_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/windowlab/playground/limiter/redisbench"
	"github.com/windowlab/playground/policies"
)

// TestEveryPolicyHasARow: the committed file measures every policy in the
// registry, each arithmetic of those that have one, so that no page has
// to fall back on a typed figure. (A policy takes an arithmetic if
// Normalised gives it one by default.)
func TestEveryPolicyHasARow(t *testing.T) {
	rep, err := redisbench.Committed()
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range policies.Registered() {
		arithmetics := []policies.Arithmetic{""}
		if np, _ := policies.Normalised(in.Name, policies.Params{Limit: 1, WindowMs: 1000}); np.Arithmetic != "" {
			arithmetics = []policies.Arithmetic{policies.Floor, policies.Exact}
		}
		for _, a := range arithmetics {
			row, ok := rep.Of(in.Name, string(a))
			if !ok {
				t.Errorf("%s %s: no row in %s (run %s)", in.Name, a, redisbench.Path, redisbench.Command)
				continue
			}
			if row.Commands <= 0 || row.RoundTrips <= 0 {
				t.Errorf("%s %s: %v commands and %v round trips per decision, want both positive", in.Name, a, row.Commands, row.RoundTrips)
			}
		}
	}
	if rep.Command != redisbench.Command {
		t.Errorf("the file says it was written by %q, want %q", rep.Command, redisbench.Command)
	}
}

// TestParseRefusesUnknownFields: a figure this package does not know is an
// error, not a figure quietly dropped.
func TestParseRefusesUnknownFields(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{`{"forms": [{"form": "x", "bytesPerCat": 3}]}`, `unknown field "bytesPerCat"`},
		{`{"forms": 3}`, "cannot unmarshal"},
		{``, "EOF"},
	}
	for i, tc := range tests {
		if _, err := redisbench.Parse([]byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), redisbench.Command) {
			t.Errorf("%d: Parse(%q) = %v, want an error containing %q and the command", i, tc.in, err, tc.want)
		}
	}
	rep, err := redisbench.Parse([]byte(`{"forms": [{"form": "a", "policy": "gcra", "commandsPerDecision": 2}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if row, ok := rep.Of("gcra", ""); !ok || row.Commands != 2 {
		t.Errorf("Of(gcra) = %+v, %v; want the row of 2 commands", row, ok)
	}
	if _, ok := rep.Of("gcra", "exact"); ok {
		t.Error("Of(gcra, exact) found a row measured without that arithmetic")
	}
}

// TestPoliciesDoNotImportTheMeasurement: the policies are what is measured;
// a policy reading its own measurement would make the figures circular.
// The policies' code imports no package of this module, so its own
// files' imports are all there is to check (their tests may).
func TestPoliciesDoNotImportTheMeasurement(t *testing.T) {
	files, err := filepath.Glob("../../policies/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no policies sources found: %v", err)
	}
	fset := token.NewFileSet()
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if path := strings.Trim(imp.Path.Value, `"`); strings.HasPrefix(path, "github.com/windowlab/playground/") {
				t.Errorf("%s imports %s; the policies must import none of this module (least of all %s)", file, path, "limiter/redisbench")
			}
		}
	}
}

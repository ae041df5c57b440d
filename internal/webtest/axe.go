package webtest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/windowlab/playground/internal/browsertest"
)

// AxeViolation is the part of an axe-core result the test reports.
type AxeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []any `json:"target"`
	} `json:"nodes"`
}

// String says the violation as a failure reports it: its rule, impact and
// help, and the elements it found.
func (v AxeViolation) String() string {
	where := make([]string, 0, len(v.Nodes))
	for _, n := range v.Nodes {
		b, _ := json.Marshal(n.Target)
		where = append(where, string(b))
	}
	return fmt.Sprintf("%s (%s): %s, at %s", v.ID, v.Impact, v.Help, strings.Join(where, " "))
}

// Axe runs axe-core (the npm package `npm ci` installs beside Datastar's)
// on the tab's page as it is and returns its violations, of any impact.
func Axe(t testing.TB, tab *browsertest.Tab) []AxeViolation {
	t.Helper()
	axe, err := os.ReadFile(filepath.Join(filepath.Dir(BundlePath(t)), "..", "..", "..", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatalf("reading axe-core (run `npm ci` in the project directory to install it): %v", err)
	}
	browsertest.Run(tab, chromedp.Evaluate[bool](string(axe)+"\n;true"))
	out := browsertest.Run(tab, chromedp.Evaluate[string](
		`axe.run(document, {resultTypes: ['violations']}).then(r => JSON.stringify(r.violations))`, chromedp.EvalAwaitPromise))
	var violations []AxeViolation
	if err := json.Unmarshal([]byte(out), &violations); err != nil {
		t.Fatalf("reading axe's result: %v", err)
	}
	return violations
}

// NoAxeViolations fails the test for each violation axe-core finds on the
// tab's page, naming the page as what.
func NoAxeViolations(t testing.TB, tab *browsertest.Tab, what string) {
	t.Helper()
	for _, v := range Axe(t, tab) {
		t.Errorf("%s: axe: %s", what, v)
	}
}

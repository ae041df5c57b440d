package policies

import "testing"

// policyCase is what the tests that run every policy need to know of one,
// registered from the policy's own test file (see registerCase), so that a
// new policy brings its cases with it and no test here names it.
type policyCase struct {
	// ruleDomain is the small domain TestRuleCopiesAgree explores
	// exhaustively, and checkRule that exploration for one of its params
	// (checkRuleCopies with the policy's ruleCase), returning the states
	// it reached.
	ruleDomain []Params
	checkRule  func(t *testing.T, label string, p Params) int
	// absorbsExactly is true for a policy whose Absorb keeps the instants
	// apart, so that reports out of order leave it exactly where reports
	// in order would; false for one that charges a late report at its
	// latest instant, the upper bound (see Absorber).
	absorbsExactly bool
}

var policyCases = map[string]policyCase{}

// registerCase records name's case, from the init of its test file.
func registerCase(name string, c policyCase) { policyCases[name] = c }

// caseOf is name's case, failing the test when it has none.
func caseOf(t *testing.T, name string) policyCase {
	t.Helper()
	c, ok := policyCases[name]
	if !ok {
		t.Fatalf("%s has no policyCase: register one from its test file's init", name)
	}
	return c
}

// TestEveryPolicyHasItsCase: every registered policy brings its cases.
func TestEveryPolicyHasItsCase(t *testing.T) {
	for _, name := range Names {
		caseOf(t, name)
	}
	for name := range policyCases {
		if _, ok := Lookup(name); !ok {
			t.Errorf("a policyCase for %q, which is not registered", name)
		}
	}
}

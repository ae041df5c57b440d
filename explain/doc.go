// Package explain is the one place that words a policy's decisions, so that
// every page, the simulate table, exercise feedback and the playground say
// the same thing the same way.
//
// What flows where: a scenario (package scenario) is replayed through the
// policies (package policies); each decision, with the policy's state before
// and after it, comes here to be put into words — the outcome ("admitted",
// "refused, retry after 5 s", "refused, can never pass"), the one-line
// working shown in tables (Working), the step-by-step explanation (Steps),
// the state line under a playground lane (Status, State), the lane's legend
// (Legend) and the response headers a server would send (Headers). The
// lessons, exercises, the playground's view and the web templates then show
// these words; none of them switch on a policy's name to word a decision.
//
// What is particular to one policy lives in that policy's own file here
// (fixed_window.go, …): a type implementing the wording interface
// (policy.go), registered from the file's init, reading the policy's own
// terms and state (policies.Terms.FixedWindow, policies.FixedWindowHeld).
// The exported functions look the policy up; a test checks that every
// policy in the policies registry has its wording.
//
// Every number is exact: fractions are written as fractions (with their
// value to two decimals), and GCRA's theoretical arrival time is never
// rounded through a float.
package explain

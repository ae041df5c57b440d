// Package policies holds the rate-limit window policies the playground
// teaches: pure, deterministic decision functions over integer milliseconds.
//
// Nothing here reads a clock: every call takes `now`, so the playground's
// virtual clock, the scenario runner and the tests all drive the same code.
// Nothing here imports anything from the web side of the project.
//
// Units and bounds, shared by every policy:
//   - times are int64 milliseconds in [0, MaxTime];
//   - limit and burst are permits in [1, MaxLimit];
//   - windowMs is in [1, MaxWindowMs];
//   - cost is a whole number of permits >= 1 (a cost above the policy's
//     capacity is refused and can never be admitted, so it never wedges a key).
//
// The bounds keep every product the policies compute (count × window,
// time × limit) inside int64, which is what lets them decide with integer
// arithmetic only: no float64 takes part in any decision.
package policies

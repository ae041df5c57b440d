package lane

import "github.com/windowlab/playground/policies"

// fixed-window draws its windows (every lane of a policy counting in
// aligned windows does) and its count as the curve, in steps: nothing
// more.
func init() { register(policies.FixedWindow, fixedWindowDrawing{}) }

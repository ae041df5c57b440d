package lane

import "github.com/windowlab/playground/policies"

// stepped-bucket's tokens in use are the curve, drawn in steps: they change
// only by whole tokens, at a request and at each fill's edge, which falls
// between the curve's samples. Nothing more.
func init() { register(policies.SteppedBucket, countsInSteps{}) }

package lane

import "github.com/windowlab/playground/policies"

// stepped-bucket's tokens in use are the curve, which steps down at each
// fill: nothing more.
func init() { register(policies.SteppedBucket, nothingHeld{}) }

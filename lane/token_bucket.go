package lane

import "github.com/windowlab/playground/policies"

// token-bucket's tokens are the curve (permits in use): nothing more.
func init() { register(policies.TokenBucket, tokenBucketDrawing{}) }

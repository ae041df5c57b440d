package explain

import "github.com/windowlab/playground/policies"

// carrier is implemented by the wording of a policy that counts part of an
// older stretch of time it has stopped counting whole: the sliding
// counter's previous window, the ring's oldest bucket.
type carrier interface {
	carried(d policies.Decision) policies.Fraction
}

// Carried is the part of an older window (or bucket) that decision d of
// the named policy counted; ok is false for a policy that carries none,
// so that a caller asks the policy instead of knowing which ones do.
func Carried(policy string, d policies.Decision) (f policies.Fraction, ok bool) {
	c, ok := wordingOf(policy).(carrier)
	if !ok {
		return policies.Fraction{}, false
	}
	return c.carried(d), true
}

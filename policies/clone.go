package policies

// Clone returns an independent copy of p, every key's state included, and
// whether p could be copied (only policies built by New, which are Local,
// can). A caller that keeps a policy between calls, as the playground
// keeps a lane's replay, asks its what-ifs of a copy so that the original
// still holds only what was really decided. The copy costs the policy's
// memory (see Stats).
func Clone(p Policy) (Policy, bool) {
	l, ok := p.(Local)
	if !ok {
		return nil, false
	}
	return l.Clone(), true
}

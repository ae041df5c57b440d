package policies

// clampTime moves t into [0, MaxTime]. Every policy clamps its inputs first,
// so the products it forms stay inside int64 whatever a caller passes.
func clampTime(t int64) int64 {
	switch {
	case t < 0:
		return 0
	case t > MaxTime:
		return MaxTime
	}
	return t
}

// decideAt applies the late rule shared by fixed-window, sliding-log,
// sliding-counter and token-bucket: a now earlier than the key's latest
// instant is decided at that latest instant. (gcra needs no such rule; see
// gcraPolicy.)
func decideAt(now, latest int64) (at int64, late bool) {
	if now < latest {
		return latest, true
	}
	return now, false
}

// ceilDiv is ⌈a/b⌉ for a >= 0, b > 0.
func ceilDiv(a, b int64) int64 {
	return (a + b - 1) / b
}

// refusedNever is the decision for a request that can never be admitted:
// cost below 1 or above the policy's capacity. Such a request changes no
// state; the decision still reports the estimate at the instant it names.
func refusedNever(d Decision) Decision {
	d.Allowed = false
	d.Never = true
	d.RetryAfterMs = 0
	return d
}

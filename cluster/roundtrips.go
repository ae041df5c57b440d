package cluster

// RoundTrips is how many times the nodes reach shared state while deciding
// reqs, the price each way of counting pays for what it knows:
//
//   - Central: one per decision, since every node asks the store and
//     waits for its answer before it can say yes or no.
//   - Syncing: one per node at each sync after the first request, up to
//     the last (the syncs at k × SyncMs, k >= 1, with first < k × SyncMs
//     <= last): each node sends what it admitted and takes in the others'
//     in one exchange, as Kong's and APISIX's counters flush once an
//     interval. A sync before the first request has nothing to tell.
//   - Never syncing, or one node: none.
//
// It counts exchanges, not bytes: a sync carries a batch of admissions,
// a central decision one.
func RoundTrips(cfg Config, reqs []Request) int64 {
	switch {
	case len(reqs) == 0:
		return 0
	case cfg.Central:
		return int64(len(reqs))
	case cfg.Nodes < 2 || cfg.SyncMs <= 0:
		return 0
	}
	first, last := reqs[0].At, reqs[0].At
	for _, r := range reqs {
		first, last = min(first, r.At), max(last, r.At)
	}
	// Syncs at multiples of SyncMs in (first, last]; instants are never
	// negative, so floor division is plain division.
	syncs := last/cfg.SyncMs - first/cfg.SyncMs
	return syncs * int64(cfg.Nodes)
}

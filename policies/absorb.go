package policies

// Absorber is a policy that can take in a request it did not decide: one
// that another server admitted, at instant at with cost permits, and that
// this server hears of later, at a sync. Every policy New builds is one
// (NewLocal returns it as such), its rule's Absorb on the key's state, which
// Rule demands. It is not part of Policy
// because a policy shared by every server (a central store, or the
// concurrent form) never hears of requests it did not decide.
//
// What every Absorb has in common:
//   - The request has passed already, so it is counted whether or not it
//     fits: a count may exceed the limit, a bucket may go below empty, and
//     the policy then refuses until enough of it has left or refilled.
//   - For an at at or after the key's latest instant, the state changes
//     exactly as a Decide at at that admitted the request would change it.
//     The property test in absorb_test.go holds each policy to that.
//   - For an earlier at, which a sync makes common (a server hears at the
//     sync of requests admitted before its own latest decision), each
//     policy counts the request where its state can place it, and says in
//     its Absorb why that is right: exactly, where the state keeps the
//     instants apart (windows, the log, the buckets), and otherwise by the
//     upper bound, charging the whole cost at the latest instant (the
//     buckets and GCRA), so that a late report never lets more through.
//   - A cost no server with these parameters could have admitted (below 1
//     or above the limit or burst) is ignored.
//   - Counts saturate (see each policy) where the arithmetic would leave
//     int64; a saturated state refuses wherever the true one would.
//   - Times are clamped to [0, MaxTime], as Decide clamps them.
type Absorber interface {
	Absorb(key Key, at, cost int64)
}

// lineCap is the largest TAT (gcra) or refill line (token-bucket:
// latest*limit + units in use) Absorb keeps, in units of 1/limit ms. A TAT
// at or above it refuses every request up to MaxTime, since the deficit
// left at any instant t <= MaxTime is still at least capacity, so capping
// there changes no decision in the range of time the policies accept; and
// it is at most 2^62 + 2^60, so adding a cost of up to 2^60 units (burst ×
// windowMs) stays inside int64.
func lineCap(limit, capacity int64) int64 {
	return MaxTime*limit + capacity
}

// windowCountCap is where Absorb saturates a count that a policy multiplies
// by a width of up to windowMs (sliding-counter's two counts, a
// sliding-buckets ring's total): the products stay below 2^62. It is at
// least 2^21, twice MaxLimit, and 2.3e15 for a one-second window.
func windowCountCap(width int64) int64 {
	return (1 << 61) / width
}

// countCap is where fixed-window's count saturates: far above any limit, so
// a saturated count refuses as the true one would, and count+cost never
// overflows.
const countCap = 1 << 62

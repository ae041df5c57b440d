package policies

import "fmt"

const (
	// MaxLimit bounds limit and burst. Sliding log allocates limit
	// timestamps per key, so this is also a memory bound.
	MaxLimit = 1 << 20
	// MaxWindowMs is about 34.8 years.
	MaxWindowMs = 1 << 40
	// MaxTime is about 139 years after the epoch, far past any clock a
	// caller will pass, while time × MaxLimit still fits in int64.
	MaxTime = 1 << 42
)

// Key identifies one client. String keys are hashed with Mix32.
type Key = uint64

// Arithmetic selects how sliding-counter weights the previous window.
type Arithmetic string

const (
	// Floor, the default, works in whole numbers so that every port agrees:
	// carried = previous*(windowMs-elapsed) div windowMs.
	Floor Arithmetic = "floor"
	// Exact is the textbook form: admit iff
	// previous*(windowMs-elapsed) + (current+cost)*windowMs <= limit*windowMs.
	Exact Arithmetic = "exact"
)

// Names of the policies, as used in scenarios, URLs and JSON.
const (
	FixedWindow    = "fixed-window"
	SlidingLog     = "sliding-log"
	SlidingCounter = "sliding-counter"
	SlidingBuckets = "sliding-buckets"
	TokenBucket    = "token-bucket"
	GCRA           = "gcra"
)

// Names lists every policy in the order pages show them.
var Names = []string{FixedWindow, SlidingLog, SlidingCounter, SlidingBuckets, TokenBucket, GCRA}

// Params configures one policy. Fields a policy does not use are ignored.
type Params struct {
	Limit    int64 // permits per window
	WindowMs int64

	Arithmetic Arithmetic // sliding-counter only; "" means Floor
	Buckets    int64      // sliding-buckets only: k sub-buckets per window; windowMs must be a multiple of k
	Burst      int64      // token-bucket and gcra: capacity; 0 means Limit
}

// Fraction is an exact non-negative rational Num/Den with Den > 0. Estimates
// are reported this way so that the exact arithmetic never rounds.
type Fraction struct {
	Num, Den int64
}

// Float returns the fraction for display only; decisions never use it.
func (f Fraction) Float() float64 {
	if f.Den == 0 {
		return 0
	}
	return float64(f.Num) / float64(f.Den)
}

// Whole reports a whole number as a Fraction.
func Whole(n int64) Fraction { return Fraction{Num: n, Den: 1} }

func (f Fraction) String() string {
	if f.Den == 1 || f.Den == 0 {
		return fmt.Sprint(f.Num)
	}
	return fmt.Sprintf("%d/%d", f.Num, f.Den)
}

// Decision is the outcome of one request, with the numbers that produced it.
// It holds no slices, so deciding never allocates.
type Decision struct {
	Allowed bool
	// Never is true when the request can never be admitted (cost above the
	// policy's capacity); RetryAfterMs is then meaningless.
	Never bool
	// RetryAfterMs is, for a refused request that could pass later, the
	// smallest wait after which the same request is admitted if nothing else
	// arrives. Zero when allowed.
	RetryAfterMs int64
	// At is the instant the policy actually decided at: now, or the key's
	// latest instant when now was earlier (see each policy's late rule).
	At int64
	// Late is true when now was earlier than the key's latest instant (gcra,
	// which keeps no latest instant, never sets it).
	Late bool
	// Estimate is the policy's own count or weighted estimate before the
	// request, in permits, compared against Capacity.
	Estimate Fraction
	// Capacity is what Estimate + cost is compared with: the limit, or the
	// burst for token-bucket and gcra.
	Capacity int64
	Cost     int64
	// Terms are the inputs of the arithmetic, for explaining a decision.
	Terms Terms
}

// Verdict is what a server acts on: admit, or refuse with a Retry-After.
// It is the first three fields of the Decision the same request would get.
type Verdict struct {
	Allowed bool
	Never   bool // the request can never be admitted; RetryAfterMs is 0
	// RetryAfterMs is, for a refused request that could pass later, the
	// smallest wait after which the same request is admitted if nothing else
	// arrives. Zero when allowed.
	RetryAfterMs int64
}

// verdictOf is the verdict part of a decision.
func verdictOf(d Decision) Verdict {
	return Verdict{Allowed: d.Allowed, Never: d.Never, RetryAfterMs: d.RetryAfterMs}
}

// Terms carries the numbers a decision was computed from. Each policy fills
// the fields that apply to it and leaves the rest zero.
type Terms struct {
	WindowStart int64 // fixed-window, sliding-counter: aligned start of the current window
	Elapsed     int64 // ms since WindowStart (sliding-buckets: since the current bucket's start)
	Count       int64 // fixed-window count; sliding-log entries inside the window
	Previous    int64 // sliding-counter previous count; sliding-buckets oldest slot
	Current     int64 // sliding-counter current count; sliding-buckets sum of the other slots
	Carried     Fraction
	BucketMs    int64    // sliding-buckets bucket width
	Tokens      Fraction // token-bucket tokens available before the request
	TAT         Fraction // gcra theoretical arrival time in ms, before the request
	OldestMs    int64    // sliding-log: timestamp of the oldest entry inside the window (0 when empty)
}

// Policy decides requests for many keys. The policies New builds are not
// safe for concurrent use; callers serialise access (one playground session
// owns its policies), or use limiter.NewConcurrent, which is.
type Policy interface {
	Name() string
	Params() Params
	// Decide admits or refuses a request of cost permits at now for key.
	Decide(key Key, now, cost int64) Decision
	// Allow is Decide for a server: the same decision and the same change
	// of state, returning only the verdict. It builds no explanation, and
	// its small result travels in registers, so it is the fast path.
	Allow(key Key, now, cost int64) Verdict
	// Peek reports the estimate at now without deciding or changing state.
	Peek(key Key, now int64) Fraction
	// Snapshot describes the key's state at now for drawing; it allocates
	// and does not change state.
	Snapshot(key Key, now int64) State
	// Stats reports the memory the policy holds.
	Stats() Stats
}

// State is a drawable picture of one key at one instant.
type State struct {
	Estimate    Fraction
	Capacity    int64
	WindowStart int64    // fixed-window, sliding-counter
	Count       int64    // fixed-window
	Previous    int64    // sliding-counter
	Current     int64    // sliding-counter
	Log         []int64  // sliding-log: timestamps inside (now-windowMs, now], oldest first
	Slots       []Slot   // sliding-buckets: oldest first, with each slot's weight
	Tokens      Fraction // token-bucket
	TAT         Fraction // gcra, in ms
}

// Slot is one sub-bucket of sliding-buckets.
type Slot struct {
	Start  int64
	Count  int64
	Weight Fraction // share of the slot still inside the window (1 for all but the oldest)
}

// Stats reports what a policy holds in memory.
type Stats struct {
	Keys        int
	Entries     int64 // numbers tracked across all keys (counters, timestamps, slots)
	BytesPerKey int64 // one key's own state in bytes, without the key table's overhead
	// HeapBytes is everything the policy holds on the heap: the key table at
	// its full size (free slots included, keys and state inline) and any
	// backing array at its capacity. Divided by Keys it is the true cost of
	// a key, which BytesPerKey is not.
	HeapBytes int64
}

// New builds a policy by name, validating its parameters. Errors name the
// parameter and the reason, prefixed with "policies: ".
//
// Each policy documents its arithmetic and its late rule on its type, in the
// file named after it. In short: fixed-window, sliding-log, sliding-counter
// and token-bucket decide a now earlier than the key's latest instant at that
// instant; gcra decides it at its own instant, which its forward-only TAT
// makes safe with one integer per key; sliding-buckets follows its seed,
// estimating at its newest bucket and refusing a late request whose bucket
// no longer counts in full. Either way RetryAfterMs is counted from the caller's now. Estimates
// are not reduced (sliding-counter Exact has denominator windowMs,
// sliding-buckets the bucket width, token-bucket and gcra windowMs); see
// Fraction.Reduced.
func New(name string, p Params) (Policy, error) {
	return newPolicy(name, p)
}

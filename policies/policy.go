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

// Params configures one policy. Fields a policy does not use are ignored.
type Params struct {
	Limit    int64 // permits per window
	WindowMs int64

	Arithmetic Arithmetic // sliding-counter only; "" means Floor
	Buckets    int64      // sliding-buckets only: k sub-buckets per window; windowMs must be a multiple of k
	Burst      int64      // token-bucket and gcra: capacity; leaky-bucket: queue length (or NoQueue); 0 means Limit
	// Delay is, for leaky-bucket, how many excess permits pass without
	// waiting (nginx's delay=); NoDelay means all of them (Burst).
	Delay int64
}

// NoDelay as Params.Delay is nginx's nodelay: no admitted request waits.
const NoDelay = -1

// NoQueue as Params.Burst is, for leaky-bucket, nginx's limit_req without
// burst: a queue of length 0, so one request passes per windowMs/limit and
// none waits. It stays NoQueue once normalised (0 would read back as the
// limit); Queue is the length it stands for.
const NoQueue = -1

// Queue is leaky-bucket's queue length: Burst, or 0 for NoQueue.
func (p Params) Queue() int64 {
	if p.Burst == NoQueue {
		return 0
	}
	return p.Burst
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
	// DelayMs is, for an admitted request a queue holds back (leaky-bucket),
	// how long it waits before it is served, counted from At; zero for
	// every other policy and for refusals.
	DelayMs int64
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
	// burst for token-bucket and gcra (leaky-bucket: burst + 1, the queue
	// and the request at its head).
	Capacity int64
	Cost     int64
	// Terms are the inputs of the arithmetic, for explaining a decision.
	Terms Terms
}

// Verdict is what a server acts on: admit, or refuse with a Retry-After.
// It is the first four fields of the Decision the same request would get.
type Verdict struct {
	Allowed bool
	Never   bool // the request can never be admitted; RetryAfterMs is 0
	// RetryAfterMs is, for a refused request that could pass later, the
	// smallest wait after which the same request is admitted if nothing else
	// arrives. Zero when allowed.
	RetryAfterMs int64
	// DelayMs is how long an admitted request waits in a queue before it is
	// served (leaky-bucket only); a server holds it back that long.
	DelayMs int64
}

// Verdict is the verdict part of the decision: what Allow returns for the
// same request.
func (d Decision) Verdict() Verdict {
	return Verdict{Allowed: d.Allowed, Never: d.Never, RetryAfterMs: d.RetryAfterMs, DelayMs: d.DelayMs}
}

// termsWords is how many numbers any policy's terms may hold: a policy's
// own terms type packs into them.
const termsWords = 6

// Terms are the numbers one decision was computed from, for explaining it.
// Each policy has its own terms type (FixedWindowTerms, …, in its file),
// which it packs in here and which the matching accessor reads back
// (Terms.FixedWindow, …). They live in a small fixed array held by value,
// so that Decide, which returns them in its Decision, still allocates
// nothing, where an interface holding a policy's struct would allocate on
// every decision.
type Terms struct {
	// tag says which policy packed them (termsTag of its name). It is a
	// number, not the name: a string would put a pointer in Decision, and
	// every decision would pay for it in write barriers.
	tag uint32
	w   [termsWords]int64
}

// termsTag is the tag of the named policy's terms.
func termsTag(policy string) uint32 { return Mix32(policy) | 1 } // never 0, the zero Terms' tag

// termsOf reads back the words a policy packed, or zeros when the terms are
// another policy's.
func (t Terms) termsOf(tag uint32) [termsWords]int64 {
	if t.tag != tag {
		return [termsWords]int64{}
	}
	return t.w
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

// State is a drawable picture of one key at one instant: what every policy
// has (its estimate and capacity), and what only it holds, in its own type
// (FixedWindowHeld, …, in its file). Snapshot allocates anyway, so the
// policy's part is an interface value.
type State struct {
	Estimate Fraction
	Capacity int64
	// Held is what the policy holds for the key; nil in a zero State.
	Held Held
}

// Held is the part of a State only its policy has.
type Held interface {
	// Policy names the policy that holds it.
	Policy() string
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

package scenario

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// Shape names a shape of generated traffic. The playground fires some of
// them as patterns; the lessons compare the policies on others.
type Shape string

// The shapes of traffic.
const (
	// Steady spaces requests evenly.
	Steady Shape = "steady"
	// Poisson draws independent arrivals (exponential gaps, a Poisson
	// process) at the mean rate.
	Poisson Shape = "poisson"
	// Bursty sends clumps of half the limit at once, the clumps arriving
	// as a Poisson process.
	Bursty Shape = "bursty"
	// FrontLoaded packs each window's requests into its first tenth.
	FrontLoaded Shape = "front-loaded"
	// EndLoaded packs each window's requests into its last tenth.
	EndLoaded Shape = "end-loaded"
	// Straddle sends half the requests just before the next window
	// boundary and half just after it: the fixed window's boundary burst.
	Straddle Shape = "straddle"
	// Adversarial, at every other window edge, sends a full limit on the
	// window's last millisecond and again on each of the next two.
	Adversarial Shape = "adversarial"
)

// Label is a short description of the shape for a form.
func (s Shape) Label() string {
	switch s {
	case Steady:
		return "steady rate"
	case Poisson:
		return "Poisson (random, seeded)"
	case Bursty:
		return "bursts of half the limit"
	case FrontLoaded:
		return "front-loaded windows"
	case EndLoaded:
		return "end-loaded windows"
	case Straddle:
		return "burst straddling a window boundary"
	case Adversarial:
		return "aimed at window edges"
	}
	return string(s)
}

// Traffic describes generated requests for one key. The same Traffic
// always gives the same instants: randomness comes from Seed.
type Traffic struct {
	Shape    Shape
	From     int64 // ms: the first instant anything may arrive
	SpanMs   int64 // how long the traffic lasts; the loaded shapes fill the windows it touches
	WindowMs int64 // the windows the loaded, straddling and adversarial shapes aim at, aligned to the epoch
	Limit    int64 // the policy's limit: bursty clumps hold half of it, adversarial bursts all of it
	// PerWindow is the mean number of requests per window.
	PerWindow float64
	// Count, when above 0, is exactly how many requests to make (the
	// random shapes may then run past the span); 0 lets the span end them.
	Count int64
	Seed  uint64
}

// AtRate is the traffic the lessons compare policies on: windows windows
// from 0 at 1.25 times the limit, a load every policy must refuse some of.
func AtRate(shape Shape, limit, windowMs, windows int64, seed uint64) Traffic {
	return Traffic{Shape: shape, SpanMs: windows * windowMs, WindowMs: windowMs, Limit: limit,
		PerWindow: 1.25 * float64(limit), Seed: seed}
}

// MaxGenerated bounds the requests one Traffic may make, so that a bad
// description cannot exhaust memory.
const MaxGenerated = MaxRequests

// Times returns the instants of the requests, sorted.
func (t Traffic) Times() ([]int64, error) {
	switch {
	case t.WindowMs < 1 || t.WindowMs > MaxWindowMs:
		return nil, fmt.Errorf("traffic: window %d ms is out of range (1 to %d)", t.WindowMs, int64(MaxWindowMs))
	case t.SpanMs < 1 || t.SpanMs > MaxWindowMs*MaxRequests:
		return nil, fmt.Errorf("traffic: span %d ms is out of range", t.SpanMs)
	case t.Count < 0 || t.Count > MaxGenerated:
		return nil, fmt.Errorf("traffic: count %d is out of range (0 to %d)", t.Count, MaxGenerated)
	case t.Count == 0 && !(t.PerWindow > 0):
		return nil, fmt.Errorf("traffic: give a count or a rate per window")
	}
	rng := rand.New(rand.NewPCG(t.Seed, 0x5eed))
	end := t.From + t.SpanMs
	gap := float64(t.WindowMs) / t.PerWindow
	if t.Count > 0 {
		gap = float64(t.SpanMs) / float64(t.Count)
	}
	w := t.WindowMs
	var out []int64
	// more reports whether another request is wanted at t: until Count
	// when there is one, else until the span ends.
	more := func(at float64) bool {
		if len(out) >= MaxGenerated {
			return false
		}
		if t.Count > 0 {
			return int64(len(out)) < t.Count
		}
		return int64(at) < end
	}
	switch t.Shape {
	case Steady:
		for at := float64(t.From); more(at); at += gap {
			out = append(out, int64(at))
		}
	case Poisson:
		for at := float64(t.From) + rng.ExpFloat64()*gap; more(at); at += rng.ExpFloat64() * gap {
			out = append(out, int64(at))
		}
	case Bursty:
		size := max(2, t.Limit/2)
		clump := gap * float64(size)
		for at := float64(t.From) + rng.ExpFloat64()*clump; more(at); at += rng.ExpFloat64() * clump {
			for range size {
				if more(at) {
					out = append(out, int64(at))
				}
			}
		}
	case FrontLoaded, EndLoaded:
		// The windows the span touches share the requests out in turn, each
		// spreading its own evenly over its first (or last) tenth.
		first := t.From - t.From%w
		windows := (end-1)/w - first/w + 1
		per := int64(math.Round(t.PerWindow))
		n := per * windows
		if t.Count > 0 {
			n = t.Count
			per = (n + windows - 1) / windows
		}
		n = min(n, MaxGenerated)
		tenth := max(w/10, 1)
		for i := range n {
			off := (i / windows) * tenth / max(per, 1)
			if t.Shape == EndLoaded {
				off += w - tenth
			}
			out = append(out, max(first+(i%windows)*w+off, t.From))
		}
	case Straddle:
		n := t.Count
		if n == 0 {
			n = min(int64(math.Round(t.PerWindow)), MaxGenerated)
		}
		edge := t.From - t.From%w + w
		near := max(w/100, 1) // a hundredth of the window either side
		for i := range n {
			if i < n-n/2 {
				out = append(out, max(edge-near, t.From))
			} else {
				out = append(out, edge+near)
			}
		}
	case Adversarial:
		for edge := t.From - t.From%w + w; edge < end; edge += 2 * w {
			for _, at := range []int64{edge - 1, edge, edge + 1} {
				for range t.Limit {
					// Every burst lands whole unless a count cuts it short.
					if len(out) < MaxGenerated && (t.Count == 0 || int64(len(out)) < t.Count) {
						out = append(out, at)
					}
				}
			}
		}
	default:
		return nil, fmt.Errorf("unknown traffic shape %q", t.Shape)
	}
	slices.Sort(out)
	return out, nil
}

// Requests turns sorted instants into request entries for one key, each
// of the given cost; requests at the same instant share an entry with a
// count.
func Requests(times []int64, key string, cost int64) []Request {
	var reqs []Request
	for _, at := range times {
		if n := len(reqs); n > 0 && reqs[n-1].At == at {
			reqs[n-1].Count++
			continue
		}
		reqs = append(reqs, Request{At: at, Key: key, Cost: cost, Count: 1})
	}
	return reqs
}

// GeneratedPrefix starts the name of a generated
const GeneratedPrefix = "generated/"

// Generated builds the scenario a name such as
// generated/SHAPE/LIMIT/WINDOWMS/WINDOWS/SEED stands for: Traffic of that
// shape for one key, run through the default lanes. Lessons and exercises
// name generated traffic this way instead of storing thousands of requests.
func Generated(name string) (Scenario, error) {
	spec, ok := strings.CutPrefix(name, GeneratedPrefix)
	if !ok {
		return Scenario{}, fmt.Errorf("%q: a generated scenario's name starts with %s", name, GeneratedPrefix)
	}
	parts := strings.Split(spec, "/")
	if len(parts) != 5 {
		return Scenario{}, fmt.Errorf("generated/%s: want generated/SHAPE/LIMIT/WINDOWMS/WINDOWS/SEED", spec)
	}
	var nums [4]int64
	for i, p := range parts[1:] {
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil || n < 0 {
			return Scenario{}, fmt.Errorf("generated/%s: %q is not a whole number", spec, p)
		}
		nums[i] = n
	}
	if nums[2] < 1 || nums[2] > 100 {
		return Scenario{}, fmt.Errorf("generated/%s: between 1 and 100 windows", spec)
	}
	t := AtRate(Shape(parts[0]), nums[0], nums[1], nums[2], uint64(nums[3]))
	times, err := t.Times()
	if err != nil {
		return Scenario{}, err
	}
	s := Scenario{Limit: nums[0], WindowMs: nums[1], Requests: Requests(times, "", 1)}
	return s, s.Validate()
}

package scenario

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Shapes of generated traffic, in the order the comparison shows them.
var Shapes = []string{"steady", "poisson", "bursty", "end-loaded", "adversarial"}

// Traffic generates one key's requests for windows windows of windowMs at
// about 1.25 times the limit, in the named shape. The same seed always gives
// the same requests.
//
//   - steady: evenly spaced;
//   - poisson: independent arrivals (exponential gaps);
//   - bursty: clumps of half the limit arriving at once;
//   - end-loaded: every window's requests packed into its last tenth;
//   - adversarial: every other window edge, a full limit on its last
//     millisecond and again on each of the next two.
func Traffic(shape string, limit, windowMs int64, windows int, seed uint64) ([]Request, error) {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	end := windowMs * int64(windows)
	gap := float64(windowMs) / (1.25 * float64(limit))
	var times []int64
	switch shape {
	case "steady":
		for t := 0.0; int64(t) < end; t += gap {
			times = append(times, int64(t))
		}
	case "poisson":
		for t := rng.ExpFloat64() * gap; int64(t) < end; t += rng.ExpFloat64() * gap {
			times = append(times, int64(t))
		}
	case "bursty":
		size := max(2, limit/2)
		for t := rng.ExpFloat64() * gap * float64(size); int64(t) < end; t += rng.ExpFloat64() * gap * float64(size) {
			for range size {
				times = append(times, int64(t))
			}
		}
	case "end-loaded":
		per := int64(1.25*float64(limit) + 0.5)
		tail := max(windowMs/10, 1)
		for w := int64(0); w < end; w += windowMs {
			for i := range per {
				times = append(times, w+windowMs-tail+i*tail/per)
			}
		}
	case "adversarial":
		for w := windowMs; w < end; w += 2 * windowMs {
			for _, t := range []int64{w - 1, w, w + 1} {
				for range limit {
					times = append(times, t)
				}
			}
		}
	default:
		return nil, fmt.Errorf("unknown traffic shape %q (want one of %v)", shape, Shapes)
	}
	var reqs []Request
	for _, t := range times {
		if n := len(reqs); n > 0 && reqs[n-1].At == t {
			reqs[n-1].Count++
			continue
		}
		reqs = append(reqs, Request{At: t, Cost: 1, Count: 1})
	}
	return reqs, nil
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
	reqs, err := Traffic(parts[0], nums[0], nums[1], int(nums[2]), uint64(nums[3]))
	if err != nil {
		return Scenario{}, err
	}
	s := Scenario{Limit: nums[0], WindowMs: nums[1], Requests: reqs}
	return s, s.Validate()
}

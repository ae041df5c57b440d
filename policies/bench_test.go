package policies

import (
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// Every benchmark uses limit 100 per 1200 ms (1200 so that sliding-buckets
// can split it into 6 buckets of 200 ms), and the clock advances 1 ms per
// decision. Hot key: one key, about one decision in twelve admitted. Many
// keys: 1e6 keys created before the timer starts, then decided in a
// precomputed random order.

const (
	benchLimit  = 100
	benchWindow = 1200
	benchKeys   = 1_000_000
	benchBase   = int64(1_700_000_000_000)
)

var benchPolicies = []struct {
	label, name string
	p           Params
}{
	{"fixed-window", FixedWindow, Params{}},
	{"sliding-log", SlidingLog, Params{}},
	{"sliding-counter-floor", SlidingCounter, Params{Arithmetic: Floor}},
	{"sliding-counter-exact", SlidingCounter, Params{Arithmetic: Exact}},
	{"sliding-buckets-k6", SlidingBuckets, Params{Buckets: 6}},
	{"token-bucket", TokenBucket, Params{}},
	{"gcra", GCRA, Params{}},
}

func benchParams(p Params) Params {
	p.Limit, p.WindowMs = benchLimit, benchWindow
	return p
}

// benchKeySet returns benchKeys spread-out keys and a random access order
// over them (a power of two long, indexed with a mask).
func benchKeySet() (keys []Key, order []uint32) {
	r := rand.New(rand.NewPCG(1, 2))
	keys = make([]Key, benchKeys)
	for i := range keys {
		keys[i] = r.Uint64()
	}
	order = make([]uint32, 1<<22)
	for i := range order {
		order[i] = uint32(r.IntN(benchKeys))
	}
	return keys, order
}

func reportStats(b *testing.B, pol Policy) {
	s := pol.Stats()
	b.ReportMetric(float64(s.BytesPerKey), "B/key")
	b.ReportMetric(float64(s.Entries), "entries")
}

var sinkDecision Decision

func BenchmarkDecideHotKey(b *testing.B) {
	for _, bp := range benchPolicies {
		b.Run(bp.label, func(b *testing.B) {
			pol := mustNew(b, bp.name, benchParams(bp.p))
			pol.Decide(1, benchBase, 1)
			b.ReportAllocs()
			now := benchBase
			for b.Loop() {
				now++
				sinkDecision = pol.Decide(1, now, 1)
			}
			reportStats(b, pol)
		})
	}
	b.Run("x-time-rate", func(b *testing.B) {
		lim := rate.NewLimiter(rate.Limit(benchLimit*1000.0/benchWindow), benchLimit)
		t0 := time.UnixMilli(benchBase)
		b.ReportAllocs()
		var i int64
		for b.Loop() {
			i++
			lim.AllowN(t0.Add(time.Duration(i)*time.Millisecond), 1)
		}
	})
}

func BenchmarkDecideManyKeys(b *testing.B) {
	keys, order := benchKeySet()
	mask := len(order) - 1
	for _, bp := range benchPolicies {
		b.Run(bp.label, func(b *testing.B) {
			runtime.GC()
			pol := mustNew(b, bp.name, benchParams(bp.p))
			for _, k := range keys {
				pol.Decide(k, benchBase, 1)
			}
			b.ReportAllocs()
			now := benchBase
			i := 0
			for b.Loop() { // the setup above is outside the timed loop
				now++
				sinkDecision = pol.Decide(keys[order[i&mask]], now, 1)
				i++
			}
			reportStats(b, pol)
		})
	}
	b.Run("x-time-rate", func(b *testing.B) {
		runtime.GC()
		limiters := make(map[uint64]*rate.Limiter, len(keys))
		for _, k := range keys {
			limiters[k] = rate.NewLimiter(rate.Limit(benchLimit*1000.0/benchWindow), benchLimit)
		}
		t0 := time.UnixMilli(benchBase)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			limiters[keys[order[i&mask]]].AllowN(t0.Add(time.Duration(i)*time.Millisecond), 1)
			i++
		}
	})
}

var sinkUint64 uint64

// benchMap is the bare map the many-keys benchmarks are compared with: the
// same keys, each mapped to its index.
func benchMap() (keys []Key, order []uint32, m map[uint64]uint64) {
	keys, order = benchKeySet()
	runtime.GC()
	m = make(map[uint64]uint64, len(keys))
	for i, k := range keys {
		m[k] = uint64(i)
	}
	return keys, order, m
}

// BenchmarkMapLookup is the floor the many-keys policies are measured
// against: one lookup in a map[uint64]uint64 of 1e6 entries, same keys, same
// order.
func BenchmarkMapLookup(b *testing.B) {
	keys, order, m := benchMap()
	mask := len(order) - 1
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		sinkUint64 += m[keys[order[i&mask]]]
		i++
	}
}

// BenchmarkMapUpdate is a second reference: a read-modify-write of one
// uint64 per key (m[k] = m[k] + 1, two hash probes in a Go map), the least a
// limiter that keeps state per key must do.
func BenchmarkMapUpdate(b *testing.B) {
	keys, order, m := benchMap()
	mask := len(order) - 1
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		k := keys[order[i&mask]]
		m[k] = m[k] + 1
		i++
	}
}

// The two benchmarks below make each step's key depend on the step before
// (on the decision, or on the value looked up), so the processor cannot
// overlap the cache misses of consecutive steps. BenchmarkMapLookup's tiny
// loop body lets several independent misses run at once, which a decision's
// longer body cannot; measured one miss at a time, the comparison is of the
// per-key work alone.

// BenchmarkMapLookupDependent is BenchmarkMapLookup with each lookup's key
// chosen by the value the previous one found.
func BenchmarkMapLookupDependent(b *testing.B) {
	keys, order, m := benchMap()
	mask := len(order) - 1
	b.ReportAllocs()
	i := 0
	var v uint64
	for b.Loop() {
		v = m[keys[order[(i+int(v&1))&mask]]]
		i++
	}
	sinkUint64 = v
}

// BenchmarkDecideManyKeysDependent is BenchmarkDecideManyKeys with each
// decision's key chosen by whether the previous request was admitted.
func BenchmarkDecideManyKeysDependent(b *testing.B) {
	keys, order := benchKeySet()
	mask := len(order) - 1
	for _, bp := range benchPolicies {
		b.Run(bp.label, func(b *testing.B) {
			runtime.GC()
			pol := mustNew(b, bp.name, benchParams(bp.p))
			for _, k := range keys {
				pol.Decide(k, benchBase, 1)
			}
			b.ReportAllocs()
			now := benchBase
			i := 0
			var d Decision
			for b.Loop() {
				now++
				j := i
				if d.Allowed {
					j++
				}
				d = pol.Decide(keys[order[j&mask]], now, 1)
				i++
			}
			sinkDecision = d
		})
	}
}

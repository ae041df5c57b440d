package policies

import (
	"runtime"
	"testing"
)

// stateStats is pol's Stats without HeapBytes, which depends on how the
// table has grown; TestHeapBytesMatchesHeap checks that one against the heap.
func stateStats(pol Policy) Stats {
	s := pol.Stats()
	s.HeapBytes = 0
	return s
}

// TestHeapBytesMatchesHeap fills every policy with many keys and compares
// Stats.HeapBytes with the live heap the fill added, measured by the
// runtime: a Stats that forgot the table or a backing array's spare capacity
// would fall short by far more than the tolerance.
func TestHeapBytesMatchesHeap(t *testing.T) {
	const keys = 20000
	for _, tc := range []struct {
		name string
		p    Params
	}{
		{FixedWindow, Params{}},
		{SlidingLog, Params{}},
		{SlidingCounter, Params{}},
		{SlidingBuckets, Params{Buckets: 6}},
		{TokenBucket, Params{}},
		{GCRA, Params{}},
		{LeakyBucket, Params{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p
			p.Limit, p.WindowMs = 50, 1200
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			pol := mustNew(t, tc.name, p)
			for k := range Key(keys) {
				pol.Decide(k*7919+1, 1000, 1)
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			measured := int64(after.HeapAlloc) - int64(before.HeapAlloc)
			got := pol.Stats()
			runtime.KeepAlive(pol)
			if got.Keys != keys {
				t.Fatalf("Keys = %d, want %d", got.Keys, keys)
			}
			if got.HeapBytes < got.BytesPerKey*keys {
				t.Errorf("HeapBytes %d is less than the keys' own state, %d × %d", got.HeapBytes, keys, got.BytesPerKey)
			}
			// 10% either way, plus 64 KiB for what the runtime allocates
			// meanwhile.
			if diff := measured - got.HeapBytes; diff > measured/10+64<<10 || -diff > measured/10+64<<10 {
				t.Errorf("HeapBytes = %d, but the heap grew by %d", got.HeapBytes, measured)
			}
		})
	}
}

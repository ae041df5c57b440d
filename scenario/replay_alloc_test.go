package scenario

import (
	"runtime"
	"testing"
)

// TestWorstCaseAllocatesItsRingsOnce bounds what the costliest valid run
// allocates: its eight sliding-log lanes need 100 keys × 10,000 timestamps
// each (64 MB); grown key by key they allocated 348 MB, and that garbage
// kept the collector running beside every page the server answered.
func TestWorstCaseAllocatesItsRingsOnce(t *testing.T) {
	sc := WorstCase()
	rings := uint64(MaxPolicies * MaxKeys * MaxLimit * 8)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := Run(sc); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > rings*3/2 {
		t.Errorf("the worst case allocated %d MiB, want at most %d MiB (its rings, %d MiB, and half again for the decisions)", got>>20, rings*3/2>>20, rings>>20)
	}
}

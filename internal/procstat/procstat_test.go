package procstat

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func TestSelfCPUGrowsWithWork(t *testing.T) {
	before, ok := SelfCPU()
	if !ok {
		if runtime.GOOS == "linux" {
			t.Fatal("SelfCPU: not measured on Linux")
		}
		return
	}
	x := 0
	for i := range 50_000_000 {
		x += i % 7
	}
	after, _ := SelfCPU()
	if after <= before {
		t.Errorf("SelfCPU went from %v to %v over a busy loop (x = %d)", before, after, x)
	}
}

func TestLoadAverageIsThreeNumbers(t *testing.T) {
	got := LoadAverage()
	if _, err := os.Stat("/proc/loadavg"); err != nil {
		if got != "unknown" {
			t.Errorf("LoadAverage() = %q without /proc/loadavg, want unknown", got)
		}
		return
	}
	f := strings.Fields(got)
	if len(f) != 3 {
		t.Fatalf("LoadAverage() = %q, want three numbers", got)
	}
	for _, s := range f {
		if _, err := strconv.ParseFloat(s, 64); err != nil {
			t.Errorf("LoadAverage() = %q: %q is not a number", got, s)
		}
	}
}
